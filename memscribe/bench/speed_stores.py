"""The stores ``memscribe bench speed --store a,b,...`` can compare, side by side in one run.

Each entry opens a store whose files live in a given directory (the same directory reopens it). Built in:
``sqlite`` (the embedded default, vector index files beside the database), and SQLite records with another
vector index: ``qdrant`` (qdrant-client local mode on disk), ``qdrant-memory`` (local mode in memory),
``faiss`` and ``chroma``; and ``postgres`` (PostgreSQL + pgvector on the server that
``MEMSCRIBE_BENCH_POSTGRES_URL`` names, a database per directory). Another backend registers
itself with :func:`register_store` (or by adding a line to ``STORES``); an entry whose extra is missing fails
with the install hint when it is asked for, not before.

Each store is filled the way an import fills it: ``speed._insert`` hands it changesets of ``--batch`` new
memories, each one ``store.apply`` (one transaction: the same rows, keyword index, vectors and log a writer's
changeset produces). Derived indexes are built as in normal use: the ANN index (usearch, Qdrant, pgvector's
HNSW) on the first search. The timed operations are public API only: ``Memory.search`` and, when stores are
compared side by side, one-message ``Memory.add`` calls into the filled store (:func:`adds_at_size`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memscribe.bench.speed import SpeedParams
    from memscribe.providers.ports import Embedder

__all__ = ["STORES", "adds_at_size", "open_store", "parse_stores", "register_store"]

StoreFactory = Callable[[Path], Any]  # directory -> a memscribe.stores.ports.Store


def _sqlite(directory: Path, vectors: str = "local") -> Any:
    from memscribe.stores.select import make_vector_index
    from memscribe.stores.sqlite import SQLiteStore

    db = directory / "memscribe.db"
    return SQLiteStore(db, vector_index=make_vector_index(vectors, db_path=db))


def _postgres(directory: Path) -> Any:
    from memscribe.bench.speed_postgres import postgres_store

    return postgres_store(directory)  # a server named by MEMSCRIBE_BENCH_POSTGRES_URL


STORES: dict[str, StoreFactory] = {
    "sqlite": _sqlite,
    "qdrant": lambda d: _sqlite(d, "qdrant+local"),  # local mode on disk: one commit per point, slow to fill
    "qdrant-memory": lambda d: _sqlite(d, "qdrant+memory"),  # local mode in memory: refilled at each open
    "faiss": lambda d: _sqlite(d, "faiss"),
    "chroma": lambda d: _sqlite(d, "chroma"),
    "postgres": _postgres,
}


def register_store(name: str, factory: StoreFactory) -> None:
    """Make ``name`` selectable with ``--store``; ``factory(directory)`` opens the store kept there."""
    STORES[name] = factory


def open_store(name: str, directory: Path) -> Any:
    directory.mkdir(parents=True, exist_ok=True)
    return STORES[name](directory)


def parse_stores(text: str) -> tuple[str, ...]:
    """``"sqlite,qdrant"`` → ``("sqlite", "qdrant")``; raises ValueError naming an unknown store."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [n for n in names if n not in STORES]
    if unknown or not names:
        raise ValueError(f"unknown store {', '.join(unknown) or '(none)'}; one of: {', '.join(STORES)}")
    return names


def adds_at_size(store: Any, embedder: Embedder, p: SpeedParams) -> dict[str, Any]:
    """One-message ``Memory.add`` calls into ``store`` (already filled), ``p.adds`` per writer in
    ``p.add_writers``, the same user turns for every store: ``{"adds_at_size_<writer>_per_s": ..., ...}``.
    The store stays open (the caller closes it)."""
    from memscribe.bench.speed_add import user_turns
    from memscribe.bench.speed_probe import percentile
    from memscribe.engine.memory import Memory

    turns = user_turns(p.adds, seed=p.seed + 3)
    row: dict[str, Any] = {}
    for w, writer in enumerate(p.add_writers):
        memory = Memory(store=store, writer=writer, embedder=embedder)
        timings = []
        for i, text in enumerate(turns):
            # A day per writer: episodes are content-addressed (text + time), so the second writer's adds
            # would otherwise be idempotent replays of the first's.
            when = f"2024-02-{1 + w % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
            started = time.perf_counter()
            memory.add(text, user_id="bench", timestamp=when)
            timings.append((time.perf_counter() - started) * 1000)
        prefix = f"adds_at_size_{writer}"
        row[f"{prefix}_per_s"] = round(len(turns) / (sum(timings) / 1000), 1)
        row[f"{prefix}_p50_ms"] = round(percentile(timings, 50), 2)
        row[f"{prefix}_p95_ms"] = round(percentile(timings, 95), 2)
    return row
