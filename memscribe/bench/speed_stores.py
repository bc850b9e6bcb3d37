"""The stores ``memscribe bench speed --store a,b,...`` can compare, side by side in one run.

Each entry opens a store whose files live in a given directory (the same directory reopens it). Built in:
``sqlite`` (the embedded default, vector index files beside the database), and SQLite records with another
vector index: ``qdrant`` (qdrant-client local mode on disk), ``qdrant-memory`` (local mode in memory),
``faiss`` and ``chroma``; and ``postgres`` (PostgreSQL + pgvector on the server that
``MEMSCRIBE_BENCH_POSTGRES_URL`` names, a database per directory). Another backend registers
itself with :func:`register_store` (or by adding a line to ``STORES``); an entry whose extra is missing fails
with the install hint when it is asked for, not before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["STORES", "open_store", "parse_stores", "register_store"]

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
