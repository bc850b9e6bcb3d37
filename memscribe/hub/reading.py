"""Low-level readers shared by sources: JSONL with a partial last line, zstd frames, JSON documents, times.

Every reader is tolerant: a line that is not JSON is counted as malformed and skipped, and a last line
without its newline is left for the next read (the tool is still writing it).
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
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


@dataclass
class _Parsed:
    """A JSONL file parsed up to ``offset``: kept so a poll of a growing file parses only the new lines."""

    inode: int
    head: bytes
    offset: int
    rows: list[tuple[int, dict[str, Any]]]
    lines: int
    malformed: int


_CACHE: OrderedDict[Path, _Parsed] = OrderedDict()
MAX_CACHED_FILES = 32
MIN_CACHED_BYTES = 256 * 1024  # smaller files are cheaper to parse again than to keep


def _parse(lines: list[bytes], first: int) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    rows, malformed = [], 0
    for number, line in enumerate(lines, start=first):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            value = None
        if isinstance(value, dict):
            rows.append((number, value))
        else:
            malformed += 1
    return rows, malformed


def _cached_lines(path: Path, result: ReadResult) -> list[tuple[int, dict[str, Any]]]:
    """Parse ``path``, reusing what an earlier read of the same, only appended-to, file parsed."""
    with path.open("rb") as fh:
        st = os.fstat(fh.fileno())
        head = fh.read(256)
        known = _CACHE.get(path)
        fresh = (
            known is None
            or known.inode != st.st_ino
            or known.head != head[: len(known.head)]
            or st.st_size < known.offset
        )
        start = 0 if fresh or known is None else known.offset
        fh.seek(start)
        raw = fh.read()
    lines, partial = split_complete(raw)
    result.partial_tail = result.partial_tail or partial
    consumed = start + raw.rfind(b"\n") + 1
    result.consumed = consumed
    base = known if not fresh and known is not None else _Parsed(st.st_ino, head, 0, [], 0, 0)
    rows, malformed = _parse(lines, base.lines)
    entry = _Parsed(st.st_ino, head, consumed, base.rows + rows, base.lines + len(lines), base.malformed + malformed)
    result.malformed += entry.malformed
    if st.st_size >= MIN_CACHED_BYTES:
        _CACHE[path] = entry
        _CACHE.move_to_end(path)
        while len(_CACHE) > MAX_CACHED_FILES:
            _CACHE.popitem(last=False)
    else:
        _CACHE.pop(path, None)
    return entry.rows


def json_lines(path: Path, result: ReadResult, data: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each complete line of ``path`` (or of ``data``); other lines are malformed.

    Large plain files are kept parsed between reads (readers must not modify the objects they are given), so
    a watched transcript that grows costs only its new lines."""
    if data is None:
        yield from _cached_lines(path, result)
        return
    lines, partial = split_complete(data)
    result.partial_tail = result.partial_tail or partial
    result.consumed = data.rfind(b"\n") + 1
    rows, malformed = _parse(lines, 0)
    result.malformed += malformed
    yield from rows


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
            parsed = datetime.fromisoformat(text)  # a trailing "Z" too (Python 3.11)
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None
