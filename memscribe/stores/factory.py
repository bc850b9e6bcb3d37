"""Which store a spec names: a PostgreSQL URL (``postgresql://…``), a
``sqlite:///path`` URL, or a plain path to a SQLite file (the embedded default)."""

from __future__ import annotations

from pathlib import Path

from memscribe.errors import ConfigError
from memscribe.stores.ports import Store, VectorIndex

__all__ = ["SCHEMES", "is_url", "open_store"]

SCHEMES = ("postgresql", "postgres", "sqlite")


def is_url(spec: str | Path) -> bool:
    """Whether ``spec`` is a store URL rather than a file path."""
    return isinstance(spec, str) and "://" in spec


def open_store(
    spec: str | Path,
    *,
    lock_timeout: float = 60.0,
    vectors: str | VectorIndex | None = None,
    vectors_api_key: str | None = None,
) -> Store:
    """The store ``spec`` names. Nothing is created or connected until the first read or write. ``vectors``
    chooses the vector index of a SQLite store (see :mod:`memscribe.stores.select`); a PostgreSQL store keeps its
    vectors in pgvector."""
    text = str(spec)
    scheme = text.split("://", 1)[0].lower() if is_url(spec) else "sqlite"
    if scheme in ("postgresql", "postgres"):
        if vectors not in (None, "local"):
            raise ConfigError("a PostgreSQL store keeps its vectors in pgvector; vectors= applies to SQLite stores")
        from memscribe.stores.postgres import PostgresStore

        return PostgresStore(text, retry_seconds=lock_timeout)
    if scheme != "sqlite":
        raise ConfigError(f"unknown store {scheme}://…; known: {', '.join(s + '://' for s in SCHEMES)} or a file path")
    from memscribe.stores.select import make_vector_index
    from memscribe.stores.sqlite import SQLiteStore

    db = Path(text.split("://", 1)[1] if is_url(spec) else text).expanduser()
    index = make_vector_index(vectors, db_path=db, api_key=vectors_api_key) if isinstance(vectors, str) else vectors
    return SQLiteStore(db, lock_timeout=lock_timeout, vector_index=index)
