"""Low-level readers shared by sources: JSONL with a partial last line, zstd frames, JSON documents, times.

Every reader is tolerant: a line that is not JSON is counted as malformed and skipped, and a last line
without its newline is left for the next read (the tool is still writing it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memscribe.errors import ConfigError
from memscribe.hub.model import ReadResult

__all__ = ["iso_or_epoch", "json_lines", "load_json", "read_zstd", "split_complete"]


def split_complete(data: bytes) -> tuple[list[bytes], bool]:
    """Complete lines of ``data`` and whether an unterminated tail was left out."""
    end = data.rfind(b"\n")
    if end < 0:
        return [], bool(data.strip())
    tail = data[end + 1 :]
    return data[:end].split(b"\n"), bool(tail.strip())


def json_lines(path: Path, result: ReadResult, data: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each complete line of ``path`` (or of ``data``); other lines are malformed."""
    raw = path.read_bytes() if data is None else data
    lines, partial = split_complete(raw)
    result.partial_tail = result.partial_tail or partial
    result.consumed = raw.rfind(b"\n") + 1
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            value = None
        if isinstance(value, dict):
            yield number, value
        else:
            result.malformed += 1


def read_zstd(path: Path) -> bytes:
    """The decompressed bytes of a file of concatenated zstd frames; a torn last frame keeps what it holds."""
    try:
        import zstandard
    except ImportError as exc:
        raise ConfigError(f"{path} is zstd-compressed: install memscribe[hub] (the zstandard package)") from exc
    out = bytearray()
    with path.open("rb") as fh:
        reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
        try:
            while chunk := reader.read(1 << 16):
                out += chunk
        except zstandard.ZstdError:
            pass  # a frame cut off by a crash: its complete lines were already returned
    return bytes(out)


def load_json(path: Path, result: ReadResult) -> Any:
    """One JSON document, or None (counted as malformed) when it is half-written or not JSON."""
    try:
        return json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError, OSError):
        result.malformed += 1
        return None


def iso_or_epoch(value: object, *, unit: str = "auto") -> datetime | None:
    """A UTC datetime from an ISO string or an epoch number (``unit``: s, ms or auto), else None."""
    if isinstance(value, bool) or value is None or value == "":
        return None
    if isinstance(value, int | float):
        seconds = float(value)
        if unit == "ms" or (unit == "auto" and seconds > 1e11):
            seconds /= 1000.0
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        text = value.strip()
        if text.replace(".", "", 1).isdigit():
            return iso_or_epoch(float(text), unit=unit)
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None
