"""A JSONL import cut into request bodies under the server's 1 MiB limit, for both clients.

The server checks each body whole before it writes any of it, and skips rows it already holds, so each batch
is all or nothing and a rerun after a failure adds nothing twice. Every batch starts with the export's header
line (it says which tenant the ids came from), and a memory or journal row travels with the episode it was
written from (repeated from an earlier batch when needed: the server skips the copy), so ids remapped on a
cross-tenant import agree across batches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from memscribe.errors import InvalidInput, MemscribeError
from memscribe.types import ImportResult

__all__ = ["MAX_BATCH_BYTES", "Batch", "ImportProgress", "batches"]

MAX_BATCH_BYTES = 1024 * 1024  # the server's request limit


@dataclass
class Batch:
    """One request body and, for each of its lines, the line number in the input (0: a repeated line)."""

    body: bytearray = field(default_factory=bytearray)
    numbers: list[int] = field(default_factory=list)
    episodes: set[str] = field(default_factory=set)
    rows: int = 0  # lines of the input other than the header
    repeated: int = 0  # episode lines sent again for a row of this batch; the server counts them as skipped

    def add(self, data: bytes, number: int, episode_id: str | None = None, *, row: bool = True) -> None:
        self.body += data
        self.numbers.append(number)
        self.rows += 1 if row and number else 0
        self.repeated += 0 if number else 1
        if episode_id is not None:
            self.episodes.add(episode_id)


def _row(text: str) -> dict[str, Any]:
    try:
        row = json.loads(text)
    except ValueError:
        return {}  # sent as it is: the server names the line
    return row if isinstance(row, dict) else {}


def _encoded(text: str, number: int) -> bytes:
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"import line {number} is not valid Unicode (character {exc.start} is a lone surrogate)"
        ) from None


def batches(lines: Iterable[str], limit: int = MAX_BATCH_BYTES) -> Iterator[Batch]:
    """The input's non-blank lines as batches of at most ``limit`` bytes. A line that cannot fit in one
    batch (with the header and its episode) is refused before it is sent."""
    header: tuple[bytes, int] | None = None
    episodes: dict[str, bytes] = {}  # every episode line seen, by id, to travel with its rows
    batch = Batch()
    for number, line in enumerate(lines, start=1):
        text = line.rstrip("\n")
        if not text.strip():
            continue
        data, row = _encoded(text, number), _row(text)
        kind = row.get("kind")
        if kind == "header":  # a new export begins: its rows go in batches of their own
            if batch.rows:
                yield batch
            header, batch = (data, number), Batch()
            batch.add(data, number, row=False)
            continue
        source = row.get("episode_id") if kind in ("memory", "journal") else None
        own = row.get("id") if kind == "episode" and isinstance(row.get("id"), str) else None
        needed = _needed(episodes, batch, source)
        if len(batch.body) + len(data) + len(needed or b"") > limit and batch.rows:
            yield batch
            batch = Batch()
            if header is not None:
                batch.add(*header, row=False)
            needed = _needed(episodes, batch, source)
        if len(batch.body) + len(data) + len(needed or b"") > limit:
            raise InvalidInput(f"import line {number} does not fit in one {limit}-byte request (with the header "
                               "and its episode): import this file on the store's machine with `memscribe import "
                               "FILE`")  # fmt: skip
        if needed is not None:
            batch.add(needed, 0, str(source))
        if own is not None:
            episodes[own] = data
        batch.add(data, number, own)
    if batch.rows:
        yield batch


def _needed(episodes: dict[str, bytes], batch: Batch, source: object) -> bytes | None:
    """The episode line a row must travel with, when it is known and not in the batch yet."""
    if isinstance(source, str) and source not in batch.episodes:
        return episodes.get(source)
    return None


@dataclass
class ImportProgress:
    """The counts of the batches imported so far, and the error that stops an import, explained."""

    counts: dict[str, int] = field(default_factory=lambda: {"episodes": 0, "memories": 0, "journal": 0, "skipped": 0})
    batches: int = 0
    lines: int = 0

    def done(self, batch: Batch, result: dict[str, Any]) -> None:
        for key in self.counts:
            self.counts[key] += int(result.get(key, 0))
        self.counts["skipped"] -= batch.repeated
        self.batches += 1
        self.lines += batch.rows

    def result(self) -> ImportResult:
        c = self.counts
        return ImportResult(episodes=c["episodes"], memories=c["memories"], journal=c["journal"], skipped=c["skipped"])

    def failed(self, error: MemscribeError, batch: Batch) -> MemscribeError:
        """``error`` with the input's line number in place of the batch's, and what was imported before it."""
        message = str(error)
        found = re.match(r"line (\d+): ", message)
        if found and 0 < int(found.group(1)) <= len(batch.numbers):
            number = batch.numbers[int(found.group(1)) - 1]
            message = f"line {number}: " + message[found.end() :] if number else message
        done = ", ".join(f"{v} {k}" for k, v in self.counts.items())
        error.args = (f"{message} — imported before it: {self.batches} batch(es), {self.lines} lines ({done}); "
                      "the failed batch stored nothing, and running the import again adds nothing twice",)  # fmt: skip
        error.imported = self.result()  # type: ignore[attr-defined]
        return error
