"""The seam every benchmark drives: a memory object, a factory that builds one per writer, and run plumbing.

A benchmark never imports the engine. It receives ``make_memory(writer_name, path)`` from its caller (the CLI,
a test, a peer adapter for mem0 or the Hy-Memory SDK) and talks to what it returns through
:class:`MemoryLike`, so every writer runs with the data, queries, retriever and metrics held fixed.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "MemoryFactory",
    "MemoryLike",
    "RunClock",
    "SimClock",
    "close_quietly",
    "fresh_store_dir",
    "json_safe",
    "provenance_of",
    "result_rows",
    "row_text",
    "sdk_factory",
    "store_bytes",
]

Message = Mapping[str, str]


class MemoryLike(Protocol):
    """The part of ``memscribe.Memory`` the benchmarks use (mem0-shaped ``{"results": [...]}`` answers).

    ``add`` returns ``{"results": [{"id", "memory", "event"}]}`` with ``event`` one of ADD, UPDATE, SUPERSEDE,
    DELETE, NOOP; ``search`` and ``list`` return current memories as ``{"id", "memory", "score",
    "provenance": {"episode_id", "message_indices"}, "metadata"}``. Bench code reads these defensively: a
    missing key counts as "no answer", never as a crash.
    """

    def add(
        self,
        messages: str | Sequence[Message],
        *,
        user_id: str,
        timestamp: datetime | str | None = None,
        session_id: str | None = None,
        source: str | None = None,
    ) -> Mapping[str, Any]: ...

    def search(self, query: str, *, user_id: str, limit: int = 10) -> Mapping[str, Any]: ...

    def stats(self) -> Mapping[str, Any]: ...

    def list(self, *, user_id: str) -> Mapping[str, Any]: ...


MemoryFactory = Callable[[str, Path], MemoryLike]


class SimClock(Protocol):
    """A settable clock (``memscribe.core.clock.FrozenClock`` fits): the benchmark moves it to each
    session's date, and the memory built with it reads "now" from it."""

    def set(self, when: datetime) -> None: ...


"""``make_memory(writer_name, path)``: a fresh memory for one writer, storing its files under ``path``."""


def sdk_factory(**memory_options: Any) -> MemoryFactory:
    """A factory of ``memscribe.Memory`` stores (``store.db`` under the given path) for one writer each.

    ``memory_options`` go to ``Memory`` unchanged (``embedder="hash"`` for a model-free run, ``config=…``).
    """

    def make(writer: str, path: Path) -> MemoryLike:
        from memscribe import Memory

        memory: MemoryLike = Memory(path / "store.db", writer=writer, **memory_options)
        return memory

    return make


def result_rows(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``results`` list of an add/search/list answer, keeping only mapping rows."""
    rows = answer.get("results", [])
    if not isinstance(rows, Sequence) or isinstance(rows, str):
        return []
    return [row for row in rows if isinstance(row, Mapping)]


def row_text(row: Mapping[str, Any]) -> str:
    """The memory text of a result row, ``""`` when absent."""
    text = row.get("memory")
    return text if isinstance(text, str) else ""


def provenance_of(row: Mapping[str, Any]) -> tuple[str | None, tuple[int, ...]]:
    """``(episode_id, message_indices)`` of a search/list row; ``(None, ())`` when it carries none."""
    prov = row.get("provenance")
    if not isinstance(prov, Mapping):
        return None, ()
    episode = prov.get("episode_id")
    indices = prov.get("message_indices") or ()
    clean = tuple(i for i in indices if isinstance(i, int) and not isinstance(i, bool))
    return (str(episode) if episode is not None else None), clean


def fresh_store_dir(workdir: Path, prefix: str) -> Path:
    """A new, empty directory under ``workdir``: a benchmark never reuses a store left by an earlier run."""
    workdir.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^\w.-]+", "_", prefix)  # writer specs may hold ':' or '/'
    return Path(tempfile.mkdtemp(prefix=f"{safe}-", dir=workdir))


def store_bytes(path: Path) -> int:
    """Total size of the regular files under ``path`` (the store's footprint on disk)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def close_quietly(memory: object) -> None:
    """Call ``close()`` when the memory has one, so WAL files are checkpointed before sizes are measured."""
    close = getattr(memory, "close", None)
    if callable(close):
        close()


def json_safe(value: object) -> Any:
    """``value`` made JSON-serialisable (unknown objects become strings), for engine ``stats()`` output."""
    return json.loads(json.dumps(value, default=str))


@dataclass
class RunClock:
    """Wall time spent in ``add`` and ``search``, with the number of turns ingested."""

    add_seconds: float = 0.0
    turns: int = 0
    adds: int = 0
    search_ms: list[float] = field(default_factory=list)

    @contextmanager
    def adding(self, turns: int) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add_seconds += time.perf_counter() - start
            self.turns += turns
            self.adds += 1

    @contextmanager
    def searching(self) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.search_ms.append((time.perf_counter() - start) * 1000.0)

    def summary(self) -> dict[str, float | int]:
        """Throughput and latency figures for a results file."""
        ms = sorted(self.search_ms)
        return {
            "adds": self.adds,
            "turns": self.turns,
            "ingest_seconds": round(self.add_seconds, 4),
            "turns_per_second": round(self.turns / self.add_seconds, 2) if self.add_seconds > 0 else 0.0,
            "add_ms_mean": round(1000.0 * self.add_seconds / self.adds, 3) if self.adds else 0.0,
            "searches": len(ms),
            "search_p50_ms": round(_percentile(ms, 50), 3),
            "search_p95_ms": round(_percentile(ms, 95), 3),
            "search_mean_ms": round(statistics.fmean(ms), 3) if ms else 0.0,
        }


def _percentile(sorted_values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile of already sorted values (0.0 when empty)."""
    if not sorted_values:
        return 0.0
    rank = max(1, min(len(sorted_values), math.ceil(pct / 100.0 * len(sorted_values))))
    return sorted_values[rank - 1]
