"""Which store a spec names: a PostgreSQL URL (``postgresql://…``), a MySQL/MariaDB URL (``mysql://…``), a
``sqlite:///path`` URL, or a plain path to a SQLite file (the embedded default)."""

from __future__ import annotations

from pathlib import Path

from memscribe.errors import ConfigError
from memscribe.stores.ports import Store

__all__ = ["SCHEMES", "is_url", "open_store"]

SCHEMES = ("postgresql", "postgres", "sqlite")


def is_url(spec: str | Path) -> bool:
    """Whether ``spec`` is a store URL rather than a file path."""
    return isinstance(spec, str) and "://" in spec


def open_store(spec: str | Path, *, lock_timeout: float = 60.0) -> Store:
    """The store ``spec`` names. Nothing is created or connected until the first read or write."""
    if not is_url(spec):
        from memscribe.stores.sqlite import SQLiteStore

        return SQLiteStore(Path(spec).expanduser(), lock_timeout=lock_timeout)
    text = str(spec)
    scheme = text.split("://", 1)[0].lower()
    if scheme in ("postgresql", "postgres"):
        from memscribe.stores.postgres import PostgresStore

        return PostgresStore(text, retry_seconds=lock_timeout)
    if scheme == "sqlite":
        from memscribe.stores.sqlite import SQLiteStore

        return SQLiteStore(Path(text.split("://", 1)[1]).expanduser(), lock_timeout=lock_timeout)
    raise ConfigError(f"unknown store {scheme}://…; known: {', '.join(s + '://' for s in SCHEMES)} or a file path")
