"""SQLiteStore: the embedded default backend. One file in WAL mode holds episodes, memory versions,
vectors, the keyword index and the journal. A derived vector index answers ANN searches: by default
per-partition files beside the database (:class:`~memscribe.stores.local.LocalIndex`), or any other
:class:`~memscribe.stores.ports.VectorIndex` given as ``vector_index``."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memscribe.core.cjk import segment_cjk
from memscribe.core.records import JournalEntry, MemoryRecord
from memscribe.errors import EmbeddingMismatch, InvalidInput, NotFound, StoreError, StoreReadOnly, WriteConflict
from memscribe.stores.embedding import MOVE_HINT
from memscribe.stores.ports import Changeset, Partition, PurgeReport, RecordFilter, VectorIndex
from memscribe.stores.sqlite import codec, erasure, maintenance
from memscribe.stores.sqlite.codec import MEMORY_COLUMNS, t
from memscribe.stores.sqlite.db import Database, private_file, translate
from memscribe.stores.sqlite.deferred import DeferredMixin
from memscribe.stores.sqlite.episodes import MAX_EPISODE_ATTEMPTS, EpisodeMixin
from memscribe.stores.sqlite.filters import where
from memscribe.stores.sqlite.schema import migrate, pending_migrations
from memscribe.stores.sqlite.search import SearchMixin
from memscribe.stores.sqlite.vectors import SQLiteVectorLog, VectorCache, partition_token

__all__ = ["MAX_EPISODE_ATTEMPTS", "SQLiteStore"]

_M = ", ".join(f"m.{c.strip()}" for c in MEMORY_COLUMNS.split(","))


class SQLiteStore(EpisodeMixin, SearchMixin, DeferredMixin):
    """The system of record. Files are created on the first write, never on construction."""

    def __init__(
        self, path: str | Path, *, lock_timeout: float = 60.0, vector_index: VectorIndex | None = None
    ) -> None:
        self.path = Path(path)
        self.db = Database(self.path, lock_timeout=lock_timeout)
        self.vectors = VectorCache(Path(str(self.path) + ".ann"), self.db.connection, index=vector_index)
        self._ready = False

    # -- lifecycle ---------------------------------------------------------------------------------

    def _open(self, create: bool) -> bool:
        if self._ready:
            return True
        if not create and not self.path.exists():
            return False
        try:
            if create:
                private_file(self.path)
            conn = self.db.connection()
            if pending_migrations(conn):  # a read-only store that is up to date is read without the lock file
                with self.db.file_lock():
                    migrate(conn)
            if erasure.needs_scrub(conn):  # a forget or purge was killed before its clean-up
                with contextlib.suppress(StoreReadOnly):
                    erasure.finish_scrub(self)
        except (sqlite3.Error, OSError) as exc:
            raise translate(exc) from exc
        self._ready = True
        return True

    def close(self) -> None:
        if self._ready and not self.db.read_only:
            # A full disk or a vanished directory must not fail shutdown: the indexes rebuild from SQLite.
            with contextlib.suppress(OSError, sqlite3.Error, StoreError):
                self.vectors.save_all()
        with contextlib.suppress(OSError, StoreError):
            self.vectors.close()
        self.db.close()
        self._ready = False

    def _read(self, fn: Any, empty: Any) -> Any:
        if not self._open(create=False):
            return empty
        return self.db.read(fn)

    # -- memories ------------------------------------------------------------------------------------

    def apply(self, changes: Changeset) -> bool:
        self._open(create=True)
        with self.db.write() as conn:
            if changes.episode_id:
                row = conn.execute(
                    "SELECT status FROM episodes WHERE id = ? AND tenant = ? AND user_id = ?",
                    (changes.episode_id, *changes.partition),
                ).fetchone()
                if row is None:  # purged (or never stored) while the writer ran: nothing may outlive a purge
                    raise NotFound(f"episode {changes.episode_id} was erased before it was written")
                if changes.require_pending and row[0] == "done":
                    return False
            for version_id, when in changes.retire:
                self._retire(conn, changes.partition, version_id, when)
            for memory_id in changes.erase:
                erasure.erase_memory(conn, changes.partition, memory_id)
            self._insert(conn, changes)
            marks = ",".join("?" * 21)
            for entry in changes.journal:
                if entry.scope.partition != changes.partition:
                    raise StoreError("a changeset may only journal inside its own partition")
                conn.execute(
                    f"INSERT INTO journal ({codec.JOURNAL_COLUMNS}) VALUES ({marks})",
                    codec.journal_params(entry),
                )
            if changes.episode_id and changes.episode_done:
                conn.execute(
                    "UPDATE episodes SET status = 'done', error = NULL, processed_at = ? WHERE id = ?",
                    (t(changes.journal[0].created_at) if changes.journal else None, changes.episode_id),
                )
        if changes.erase:
            self._persist_erasure(changes.partition)
            erasure.finish_scrub(self)
        return True

    def _persist_erasure(self, partition: Partition) -> None:
        """A forget removes its vectors from the saved index at once, not at the next periodic save."""
        known = self.embedding_model()
        if known is not None:
            self.db.read(lambda conn: self.vectors.erased(SQLiteVectorLog(conn), partition, known[1]))

    def _retire(self, conn: sqlite3.Connection, partition: Partition, version_id: str, when: Any) -> None:
        row = conn.execute(
            "SELECT rowid, status FROM memories WHERE version_id = ? AND tenant = ? AND user_id = ? "
            "AND retired_at IS NULL",
            (version_id, *partition),
        ).fetchone()
        if row is None:
            raise WriteConflict(f"version {version_id} is no longer current in this partition")
        conn.execute("UPDATE memories SET retired_at = ? WHERE rowid = ?", (t(when), row[0]))
        if row[1] == "active":
            conn.execute(
                "INSERT INTO vector_log (tenant, user_id, key, op) VALUES (?, ?, ?, 'remove')",
                (*partition, row[0]),
            )

    def _insert(self, conn: sqlite3.Connection, changes: Changeset) -> None:
        later = set(changes.deferred)
        fresh = [r for r in changes.insert if r.version_id not in changes.reuse_vector and r.version_id not in later]
        vectors = changes.vectors
        if fresh and (vectors is None or len(vectors) != len(fresh)):
            raise StoreError("a changeset must carry one vector per new text")
        if fresh and vectors is not None:
            self._check_model(conn, fresh[0].embedding_model or "", int(vectors.shape[1]))
        token = partition_token(changes.partition)
        position = {r.version_id: i for i, r in enumerate(fresh)}
        marks = ",".join("?" * 30)
        for record in changes.insert:
            if record.scope.partition != changes.partition:
                raise StoreError("a changeset may only write inside its own partition")
            elsewhere = conn.execute(
                "SELECT 1 FROM memories WHERE id = ? AND (tenant != ? OR user_id != ?) LIMIT 1",
                (record.id, *changes.partition),
            ).fetchone()
            if elsewhere:  # ids are store-wide: another partition's id would break its next write
                raise InvalidInput(f"memory id {record.id!r} cannot be used here")
            cur = conn.execute(f"INSERT INTO memories ({MEMORY_COLUMNS}) VALUES ({marks})", codec.memory_params(record))
            rowid = cur.lastrowid
            keywords = segment_cjk(record.text)  # CJK runs as characters and bigrams
            conn.execute("INSERT INTO memories_fts (rowid, text, part) VALUES (?, ?, ?)", (rowid, keywords, token))
            if record.version_id in later or self._reuses_unembedded(conn, changes, record.version_id):
                # Stored now, embedded later: searchable by keyword at once, by vector once the indexer (or the
                # next search of this partition) has embedded it. The vector_log entry comes with the vector.
                mark = "INSERT INTO unembedded (rowid, tenant, user_id) VALUES (?, ?, ?)"
                conn.execute(mark, (rowid, *changes.partition))
                continue
            if record.version_id in changes.reuse_vector:
                source = changes.reuse_vector[record.version_id]
                copied = conn.execute(
                    "INSERT INTO vectors (rowid, tenant, user_id, model, dim, vector) "
                    "SELECT ?, v.tenant, v.user_id, v.model, v.dim, v.vector FROM vectors v "
                    "JOIN memories m ON m.rowid = v.rowid "
                    "WHERE m.version_id = ? AND m.tenant = ? AND m.user_id = ?",
                    (rowid, source, *changes.partition),
                ).rowcount
                if not copied:  # never borrow another partition's vector, never leave a version without one
                    raise StoreError(f"no vector to reuse for version {record.version_id} in this partition")
            else:
                assert vectors is not None
                blob = np.ascontiguousarray(vectors[position[record.version_id]], dtype=np.float32).tobytes()
                conn.execute(
                    "INSERT INTO vectors (rowid, tenant, user_id, model, dim, vector) VALUES (?, ?, ?, ?, ?, ?)",
                    (rowid, *changes.partition, record.embedding_model, vectors.shape[1], blob),
                )
            if record.retired_at is None and record.status.value == "active":
                conn.execute(
                    "INSERT INTO vector_log (tenant, user_id, key, op) VALUES (?, ?, ?, 'add')",
                    (*changes.partition, rowid),
                )

    @staticmethod
    def _reuses_unembedded(conn: sqlite3.Connection, changes: Changeset, version_id: str) -> bool:
        """Whether ``version_id`` would copy the vector of a version that is itself still to be embedded."""
        source = changes.reuse_vector.get(version_id)
        if source is None:
            return False
        row = conn.execute(
            "SELECT 1 FROM unembedded u JOIN memories m ON m.rowid = u.rowid "
            "WHERE m.version_id = ? AND m.tenant = ? AND m.user_id = ?",
            (source, *changes.partition),
        ).fetchone()
        return row is not None

    def _check_model(self, conn: sqlite3.Connection, model: str, dim: int) -> None:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'dim')"))
        if not meta:
            conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)", [("embedding_model", model), ("dim", str(dim))]
            )
        elif meta.get("embedding_model") != model or int(meta.get("dim", 0)) != dim:
            raise EmbeddingMismatch(
                f"this store holds {meta.get('embedding_model')} vectors of dim {meta.get('dim')}; "
                f"got {model} of dim {dim}. {MOVE_HINT}"
            )

    def embedding_model(self) -> tuple[str, int] | None:
        def run(conn: sqlite3.Connection) -> tuple[str, int] | None:
            meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'dim')"))
            return (meta["embedding_model"], int(meta["dim"])) if meta else None

        result: tuple[str, int] | None = self._read(run, None)
        return result

    def get(self, partition: Partition, memory_id: str) -> MemoryRecord | None:
        rows = self._select("m.id = ? AND m.retired_at IS NULL", [memory_id], partition)
        return rows[0] if rows else None

    def versions(self, partition: Partition, memory_id: str) -> list[MemoryRecord]:
        return self._select("m.id = ?", [memory_id], partition, order="m.version, m.rowid")

    def by_version_ids(self, partition: Partition, version_ids: Sequence[str]) -> list[MemoryRecord]:
        if not version_ids:
            return []
        found = self._select(f"m.version_id IN ({','.join('?' * len(version_ids))})", list(version_ids), partition)
        order = {v: i for i, v in enumerate(version_ids)}
        return sorted(found, key=lambda r: order[r.version_id])

    def by_slot(self, partition: Partition, slot: str) -> list[MemoryRecord]:
        return self._select(
            "m.tenant = ? AND m.user_id = ? AND m.slot = ? AND m.retired_at IS NULL AND m.status = 'active'",
            [*partition, slot],
            None,
        )

    def by_subject(self, partition: Partition, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return self._select(
            "m.tenant = ? AND m.user_id = ? AND m.subject = ? AND m.retired_at IS NULL AND m.status = 'active'",
            [*partition, subject],
            None,
            limit=limit,
        )

    def owner_of(self, tenant: str, memory_id: str) -> str | None:
        def run(conn: sqlite3.Connection) -> str | None:
            row = conn.execute("SELECT user_id FROM memories WHERE tenant = ? AND id = ? LIMIT 1", (tenant, memory_id))
            found = row.fetchone()
            return str(found[0]) if found else None

        result: str | None = self._read(run, None)
        return result

    def query(
        self, partition: Partition, flt: RecordFilter, *, limit: int = 100, offset: int = 0
    ) -> list[MemoryRecord]:
        clause, params = where(partition, flt)
        return self._select(
            clause,
            params,
            None,
            order="m.valid_from DESC, m.id DESC, m.version DESC",
            limit=limit,
            offset=offset,
        )

    def _select(
        self,
        clause: str,
        params: list[Any],
        partition: Partition | None,
        *,
        order: str = "m.rowid",
        limit: int = -1,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        if partition is not None:
            # Unary + keeps the planner on the id index: the partition index would scan a whole user's rows.
            clause += " AND +m.tenant = ? AND +m.user_id = ?"
            params = [*params, *partition]
        sql = f"SELECT {_M} FROM memories m WHERE {clause} ORDER BY {order} LIMIT ? OFFSET ?"

        def run(conn: sqlite3.Connection) -> list[MemoryRecord]:
            return [codec.memory_row(r) for r in conn.execute(sql, (*params, limit, offset))]

        result: list[MemoryRecord] = self._read(run, [])
        return result

    # -- journal and maintenance ---------------------------------------------------------------------

    def journal(
        self, partition: Partition, *, memory_id: str | None = None, episode_id: str | None = None
    ) -> list[JournalEntry]:
        clause, params = "tenant = ? AND user_id = ?", list(partition)
        if memory_id is not None:
            clause += " AND memory_id = ?"
            params.append(memory_id)
        if episode_id is not None:
            clause += " AND episode_id = ?"
            params.append(episode_id)
        sql = f"SELECT {codec.JOURNAL_COLUMNS} FROM journal WHERE {clause} ORDER BY rowid"

        def run(conn: sqlite3.Connection) -> list[JournalEntry]:
            return [codec.journal_row(r) for r in conn.execute(sql, params)]

        result: list[JournalEntry] = self._read(run, [])
        return result

    def purge(self, partition: Partition) -> PurgeReport:
        self._open(create=True)
        return erasure.purge_partition(self, partition)

    def stats(self, partition: Partition | None = None, *, tenant: str | None = None) -> dict[str, Any]:
        return maintenance.stats(self, partition, tenant)

    def reindex(
        self,
        partition: Partition | None = None,
        *,
        tenant: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> dict[str, Any]:
        return maintenance.reindex(self, partition, tenant, progress)

    def check(self) -> list[str]:
        return maintenance.check(self)
