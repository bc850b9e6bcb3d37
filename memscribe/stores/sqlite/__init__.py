"""The embedded default store: one SQLite file (WAL) is the system of record."""

from memscribe.stores.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
