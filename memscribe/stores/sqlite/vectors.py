"""The SQLite store's side of the vector-index seam.

SQLite holds every vector (as a BLOB) and ``vector_log``, the order in which current active rows entered
and left: :class:`SQLiteVectorLog` reads them for :class:`~memscribe.stores.sync.IndexSync`, which keeps
the configured :class:`~memscribe.stores.ports.VectorIndex` in step (by default a
:class:`~memscribe.stores.local.LocalIndex` whose files live beside the database, in ``<db>.ann``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memscribe.core.vectors import Partition, partition_token
from memscribe.stores.local import LocalIndex
from memscribe.stores.ports import VectorIndex, VectorLog
from memscribe.stores.sync import IndexSync

if TYPE_CHECKING:
    from memscribe.core.vectors import Vectors

__all__ = ["SQLiteVectorLog", "VectorCache", "partition_token"]


class SQLiteVectorLog:
    """:class:`~memscribe.stores.ports.VectorLog` over one open connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def log_after(self, partition: Partition, seq: int) -> list[tuple[int, int, str]]:
        rows = self.conn.execute(
            "SELECT seq, key, op FROM vector_log WHERE tenant = ? AND user_id = ? AND seq > ? ORDER BY seq",
            (*partition, seq),
        ).fetchall()
        return [(int(s), int(k), str(op)) for s, k, op in rows]

    def log_holds(self, partition: Partition, seq: int) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM vector_log WHERE seq = ? AND tenant = ? AND user_id = ?", (seq, *partition)
        ).fetchone()
        return row is not None

    def vectors_of(self, keys: Sequence[int]) -> tuple[list[int], Vectors]:
        marks = ",".join("?" * len(keys))
        found = self.conn.execute(f"SELECT rowid, vector FROM vectors WHERE rowid IN ({marks})", list(keys)).fetchall()
        if not found:
            return [], np.empty((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(r[1] for r in found), dtype=np.float32)
        return [int(r[0]) for r in found], matrix.reshape(len(found), -1)


class VectorCache(IndexSync):
    """The store's synced vector index, read through SQLite connections."""

    def __init__(
        self,
        directory: Path,
        connect: Callable[[], sqlite3.Connection],
        *,
        index: VectorIndex | None = None,
        save_every: int = 5_000,
    ) -> None:
        super().__init__(index if index is not None else LocalIndex(directory), save_every=save_every)
        self.directory = directory
        self.connect = connect  # for save_all at shutdown, which runs outside any read

    def save_all(self, log: VectorLog | None = None) -> None:
        super().save_all(log if log is not None else SQLiteVectorLog(self.connect()))

    def files(self) -> list[Path]:
        return self.index.files()

    def check_files(self, dim: int) -> list[str]:
        return self.index.check_files(dim) if isinstance(self.index, LocalIndex) else []
