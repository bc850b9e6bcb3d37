"""Every built-in store passes the one store contract."""

from __future__ import annotations

from pathlib import Path

from memscribe.stores.memory import InMemoryStore
from memscribe.stores.ports import Store
from memscribe.stores.sqlite import SQLiteStore
from memscribe.testing.contract import StoreContract


class TestSQLiteStore(StoreContract):
    def make_store(self, tmp_path: Path) -> Store:
        return SQLiteStore(tmp_path / "memscribe.db")


class TestInMemoryStore(StoreContract):
    def make_store(self, tmp_path: Path) -> Store:
        return InMemoryStore()
