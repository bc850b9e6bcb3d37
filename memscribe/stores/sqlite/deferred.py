"""Deferred vectors for SQLiteStore: memories stored before their vectors, embedded later in batches.

A changeset may name versions in ``deferred``: their rows, keyword index entries and journal are written in the
write's transaction, and each is marked in ``unembedded`` instead of getting a vector. The engine's indexer reads
the marked texts (:meth:`DeferredMixin.unembedded`), embeds them in one model call and stores the vectors
(:meth:`DeferredMixin.attach_vectors`), which also enters current active versions into the ANN index's log. A
mark outlives a crash (it is a row of the same transaction), so the next process resumes the backlog; a forget or
purge deletes marks with their memories.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memscribe.core.records import MemoryRecord
from memscribe.core.text import normalize
from memscribe.stores.ports import Partition, RecordFilter
from memscribe.stores.sqlite import codec
from memscribe.stores.sqlite.filters import where
from memscribe.stores.sqlite.vectors import partition_token

if TYPE_CHECKING:
    from memscribe.core.vectors import Vectors
    from memscribe.stores.sqlite.db import Database

__all__ = ["DeferredMixin"]

_M = ", ".join(f"m.{c.strip()}" for c in codec.MEMORY_COLUMNS.split(","))


class DeferredMixin:
    """The :class:`~memscribe.stores.embedding.DeferredVectors` side of SQLiteStore; the store provides ``db``,
    ``_open``, ``_read`` and ``_check_model``."""

    db: Database
    _open: Callable[[bool], bool]
    _read: Callable[..., Any]
    _check_model: Callable[[sqlite3.Connection, str, int], None]

    def unembedded(
        self, partition: Partition | None = None, *, tenant: str | None = None, limit: int = 64
    ) -> list[tuple[Partition, str, str]]:
        """Up to ``limit`` versions still to be embedded, oldest first: (partition, version id, text), of one
        partition, or of one tenant, or of the whole store."""
        if partition is not None:
            clause, params = "u.tenant = ? AND u.user_id = ?", [*partition]
        elif tenant is not None:
            clause, params = "u.tenant = ?", [tenant]
        else:
            clause, params = "1", []
        sql = (
            "SELECT m.tenant, m.user_id, m.version_id, m.text FROM unembedded u JOIN memories m ON m.rowid = u.rowid "
            f"WHERE {clause} ORDER BY u.rowid LIMIT ?"
        )

        def run(conn: sqlite3.Connection) -> list[tuple[Partition, str, str]]:
            return [((str(a), str(b)), str(v), str(text)) for a, b, v, text in conn.execute(sql, (*params, limit))]

        found: list[tuple[Partition, str, str]] = self._read(run, [])
        return found

    def attach_vectors(self, partition: Partition, version_ids: Sequence[str], vectors: Vectors, model_id: str) -> int:
        """Store the vectors of versions still marked unembedded (one row each, in order) in one transaction;
        versions erased or embedded meanwhile are skipped. Returns how many were stored."""
        if not version_ids:
            return 0
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.shape[0] != len(version_ids):
            raise ValueError("attach_vectors needs one vector per version id")
        self._open(True)
        stored = 0
        with self.db.write() as conn:
            self._check_model(conn, model_id, int(matrix.shape[1]))
            for version_id, vector in zip(version_ids, matrix, strict=True):
                row = conn.execute(
                    "SELECT m.rowid, m.retired_at IS NULL AND m.status = 'active' FROM unembedded u "
                    "JOIN memories m ON m.rowid = u.rowid WHERE m.version_id = ? AND u.tenant = ? AND u.user_id = ?",
                    (version_id, *partition),
                ).fetchone()
                if row is None:
                    continue
                blob = np.ascontiguousarray(vector).tobytes()
                conn.execute(
                    "INSERT INTO vectors (rowid, tenant, user_id, model, dim, vector) VALUES (?, ?, ?, ?, ?, ?)",
                    (row[0], *partition, model_id, int(matrix.shape[1]), blob),
                )
                if row[1]:
                    log = "INSERT INTO vector_log (tenant, user_id, key, op) VALUES (?, ?, ?, 'add')"
                    conn.execute(log, (*partition, row[0]))
                conn.execute("DELETE FROM unembedded WHERE rowid = ?", (row[0],))
                stored += 1
        return stored

    def same_text(self, partition: Partition, text: str, flt: RecordFilter, limit: int = 5) -> list[MemoryRecord]:
        """Versions under ``flt`` whose text is ``text`` up to case and spacing, found through the keyword
        index (a phrase match of the whole text), so that no vector is needed; newest first. A text with no
        indexable word returns nothing."""
        from memscribe.core.cjk import segment_cjk

        phrase = segment_cjk(text).replace('"', '""')
        if not any(ch.isalnum() for ch in phrase):
            return []
        key = normalize(text)
        match = f'part:{partition_token(partition)} AND "{phrase}"'
        clause, params = where(partition, flt)
        sql = (
            "SELECT m.rowid, m.text FROM memories m WHERE m.rowid IN "
            f"(SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?) AND {clause} ORDER BY m.rowid DESC"
        )

        def run(conn: sqlite3.Connection) -> list[MemoryRecord]:
            try:  # texts first: a short phrase may occur in many longer memories, decoded only when equal
                same = [rowid for rowid, found in conn.execute(sql, (match, *params)) if normalize(found) == key]
            except sqlite3.OperationalError:  # a phrase FTS5 cannot parse: no exact match is claimed
                return []
            chosen = same[:limit]
            marks = ",".join("?" * len(chosen))
            rows = conn.execute(f"SELECT {_M} FROM memories m WHERE m.rowid IN ({marks}) ORDER BY m.rowid DESC", chosen)
            return [codec.memory_row(row) for row in rows] if chosen else []

        result: list[MemoryRecord] = self._read(run, [])
        return result
