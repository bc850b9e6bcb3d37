"""PostgresStore: PostgreSQL + pgvector as a complete backend. Episodes, memory versions, the journal, the
keyword index (a ``tsvector`` column with a GIN index) and vectors (a ``vector`` column with an HNSW index
over current versions) live in one database; every write plan is one transaction; the row-level security
policies of :mod:`.schema` confine every statement to its partition."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from memscribe.core.cjk import segment_cjk
from memscribe.core.records import JournalEntry, MemoryRecord
from memscribe.errors import EmbeddingMismatch, NotFound, StoreError, WriteConflict
from memscribe.stores.embedding import MOVE_HINT
from memscribe.stores.ports import Changeset, Partition, PurgeReport, RecordFilter
from memscribe.stores.postgres import codec, erasure, maintenance
from memscribe.stores.postgres.db import ALL, Database
from memscribe.stores.postgres.episodes import EpisodeMixin
from memscribe.stores.postgres.filters import where
from memscribe.stores.postgres.schema import hnsw_index_sql, migrate, pending_migrations
from memscribe.stores.postgres.search import SearchMixin, vector_literal

if TYPE_CHECKING:
    pass

__all__ = ["PostgresStore", "redacted"]

_ANN_LOCK = 0x6D656D74  # pg_advisory_xact_lock key of the ANN index build
_M = ", ".join(f"m.{c.strip()}" for c in codec.MEMORY_COLUMNS.split(","))
_INSERT = (
    f"INSERT INTO memories ({codec.MEMORY_COLUMNS}, keywords, embedding) "
    f"VALUES ({codec.placeholders(codec.MEMORY_COLUMNS)}, to_tsvector('memscribe_words', %s), {{vector}})"
)
_FRESH = _INSERT.format(vector="%s::vector")
_REUSED = _INSERT.format(
    vector="(SELECT embedding FROM memories WHERE version_id = %s AND tenant = %s AND user_id = %s)"
)


def redacted(url: str) -> str:
    """``url`` without its password, for messages and stats."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresStore(EpisodeMixin, SearchMixin):
    """The system of record in a PostgreSQL database (``postgresql://user:pass@host/db``). Nothing connects
    on construction; the schema is migrated on first use."""

    def __init__(self, url: str, *, max_connections: int = 8, retry_seconds: float = 60.0) -> None:
        self.url = url
        self.path = redacted(url)
        self.db = Database(url, max_connections=max_connections, retry_seconds=retry_seconds)
        self._ready = False
        self._ready_lock = threading.Lock()
        self._model: tuple[str, int] | None = None
        self._ann_ready = False

    # -- lifecycle ---------------------------------------------------------------------------------

    def _open(self, create: bool = True) -> bool:
        if not self._ready:
            with self._ready_lock:
                if not self._ready:
                    self._migrate()
                    self._ready = True
        return True

    def _migrate(self) -> None:
        import psycopg

        from memscribe.stores.postgres.db import translate

        try:
            with self.db.connection() as conn:
                if pending_migrations(conn):
                    conn.rollback()
                    migrate(conn)
                conn.rollback()
        except psycopg.Error as exc:
            raise translate(exc) from exc

    def pending_migrations(self) -> list[str]:
        with self.db.connection() as conn:
            names = pending_migrations(conn)
            conn.rollback()
            return names

    def run(self, fn: Callable[[Any], Any], partition: Partition, **retry: Any) -> Any:
        """``fn(conn)`` in one transaction confined to ``partition`` (``*`` widens it), retried when transient."""
        self._open()
        return self.db.run(fn, tenant=partition[0], user_id=partition[1], **retry)

    def read(self, fn: Callable[[Any], Any], partition: Partition) -> Any:
        """``fn(conn)``: read-only statements confined to ``partition``, each its own snapshot (no transaction)."""
        self._open()
        return self.db.read(fn, tenant=partition[0], user_id=partition[1])

    def close(self) -> None:
        self.db.close()

    # -- memories ------------------------------------------------------------------------------------

    def apply(self, changes: Changeset) -> bool:
        def work(conn: Any) -> bool:
            if changes.episode_id:
                row = conn.execute(
                    "SELECT status FROM episodes WHERE id = %s AND tenant = %s AND user_id = %s FOR UPDATE",
                    (changes.episode_id, *changes.partition),
                ).fetchone()
                if row is None:  # purged (or never stored) while the writer ran: nothing may outlive a purge
                    raise NotFound(f"episode {changes.episode_id} was erased before it was written")
                if changes.require_pending and row[0] == "done":
                    return False
            for version_id, when in changes.retire:
                cur = conn.execute(
                    "UPDATE memories SET retired_at = %s WHERE version_id = %s AND tenant = %s AND user_id = %s "
                    "AND retired_at IS NULL",
                    (codec.utc(when), version_id, *changes.partition),
                )
                if cur.rowcount != 1:
                    raise WriteConflict(f"version {version_id} is no longer current in this partition")
            for memory_id in changes.erase:
                erasure.erase_memory(conn, changes.partition, memory_id)
            self._insert(conn, changes)
            self._journal(conn, changes)
            if changes.episode_id and changes.episode_done:
                conn.execute(
                    "UPDATE episodes SET status = 'done', error = NULL, processed_at = %s WHERE id = %s",
                    (codec.utc(changes.journal[0].created_at) if changes.journal else None, changes.episode_id),
                )
            return True

        applied: bool = self.run(work, changes.partition, landed=lambda conn: _landed(conn, changes), on_landed=True)
        if applied and changes.erase:
            erasure.vacuum(self, full=False)
        return applied

    def _journal(self, conn: Any, changes: Changeset) -> None:
        for entry in changes.journal:
            if entry.scope.partition != changes.partition:
                raise StoreError("a changeset may only journal inside its own partition")
        if changes.journal:
            sql = f"INSERT INTO journal ({codec.JOURNAL_COLUMNS}) VALUES ({codec.placeholders(codec.JOURNAL_COLUMNS)})"
            conn.cursor().executemany(sql, [codec.journal_params(e) for e in changes.journal])

    def _insert(self, conn: Any, changes: Changeset) -> None:
        fresh = [r for r in changes.insert if r.version_id not in changes.reuse_vector]
        vectors = changes.vectors
        if fresh and (vectors is None or len(vectors) != len(fresh)):
            raise StoreError("a changeset must carry one vector per new text")
        for record in changes.insert:
            if record.scope.partition != changes.partition:
                raise StoreError("a changeset may only write inside its own partition")
        if not changes.insert:
            return
        if fresh and vectors is not None:
            self._check_model(conn, fresh[0].embedding_model or "", int(vectors.shape[1]))
        sources = sorted(set(changes.reuse_vector.values()))
        if sources:
            found = conn.execute(
                "SELECT version_id FROM memories WHERE version_id = ANY(%s) AND tenant = %s AND user_id = %s",
                (sources, *changes.partition),
            ).fetchall()
            if len(found) != len(sources):  # never borrow another partition's vector, never leave one without
                raise StoreError("no vector to reuse for a version in this partition")
        matrix = np.asarray(vectors, dtype=np.float32) if vectors is not None else None
        position = {r.version_id: i for i, r in enumerate(fresh)}
        rows_fresh, rows_reused = [], []
        for record in changes.insert:
            params = (*codec.memory_params(record), segment_cjk(record.text))
            if record.version_id in changes.reuse_vector:
                rows_reused.append((*params, changes.reuse_vector[record.version_id], *changes.partition))
            else:
                assert matrix is not None
                rows_fresh.append((*params, vector_literal(matrix[position[record.version_id]])))
        cur = conn.cursor()
        if rows_fresh:
            cur.executemany(_FRESH, rows_fresh)
        if rows_reused:
            cur.executemany(_REUSED, rows_reused)

    def _check_model(self, conn: Any, model: str, dim: int) -> None:
        known = self._model or _meta_model(conn)
        if known is None:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('embedding_model', %s), ('dim', %s) ON CONFLICT DO NOTHING",
                (model, str(dim)),
            )
            known = _meta_model(conn)
        if known != (model, dim):
            assert known is not None
            raise EmbeddingMismatch(
                f"this store holds {known[0]} vectors of dim {known[1]}; got {model} of dim {dim}. {MOVE_HINT}"
            )
        self._model = known

    def ensure_ann_index(self, dim: int) -> None:
        """Create the HNSW index over current versions if it is missing. Done on the first vector search, not
        the first write, so a bulk import loads without maintaining the graph row by row (building it once
        afterwards is several times faster); writers wait while it is built."""
        if self._ann_ready:
            return

        def work(conn: Any) -> None:
            if conn.execute("SELECT to_regclass('memories_hnsw') IS NULL").fetchone()[0]:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_ANN_LOCK,))
                conn.execute(hnsw_index_sql(dim))

        self.run(work, (ALL, ALL))
        self._ann_ready = True

    def embedding_model(self) -> tuple[str, int] | None:
        if self._model is None:
            self._model = self.run(_meta_model, (ALL, ALL))
        return self._model

    def get(self, partition: Partition, memory_id: str) -> MemoryRecord | None:
        rows = self._select("m.id = %s AND m.retired_at IS NULL", [memory_id], partition)
        return rows[0] if rows else None

    def versions(self, partition: Partition, memory_id: str) -> list[MemoryRecord]:
        return self._select("m.id = %s", [memory_id], partition, order="m.version, m.seq")

    def by_version_ids(self, partition: Partition, version_ids: Sequence[str]) -> list[MemoryRecord]:
        if not version_ids:
            return []
        found = self._select("m.version_id = ANY(%s)", [list(version_ids)], partition)
        order = {v: i for i, v in enumerate(version_ids)}
        return sorted(found, key=lambda r: order[r.version_id])

    def by_slot(self, partition: Partition, slot: str) -> list[MemoryRecord]:
        return self._select("m.slot = %s AND m.retired_at IS NULL AND m.status = 'active'", [slot], partition)

    def by_subject(self, partition: Partition, subject: str, limit: int = 50) -> list[MemoryRecord]:
        clause = "m.subject = %s AND m.retired_at IS NULL AND m.status = 'active'"
        return self._select(clause, [subject], partition, limit=limit)

    def owner_of(self, tenant: str, memory_id: str) -> str | None:
        def work(conn: Any) -> str | None:
            sql = "SELECT user_id FROM memories WHERE tenant = %s AND id = %s LIMIT 1"
            found = conn.execute(sql, (tenant, memory_id)).fetchone()
            return str(found[0]) if found else None

        result: str | None = self.run(work, (tenant, ALL))
        return result

    def query(
        self, partition: Partition, flt: RecordFilter, *, limit: int = 100, offset: int = 0
    ) -> list[MemoryRecord]:
        clause, params = where(partition, flt)
        order = "m.valid_from DESC, m.id DESC, m.version DESC"
        return self._select(clause, params, partition, order=order, limit=limit, offset=offset, scoped=False)

    def _select(
        self,
        clause: str,
        params: list[Any],
        partition: Partition,
        *,
        order: str = "m.seq",
        limit: int | None = None,
        offset: int = 0,
        scoped: bool = True,
    ) -> list[MemoryRecord]:
        if scoped:
            clause, params = f"m.tenant = %s AND m.user_id = %s AND {clause}", [*partition, *params]
        sql = f"SELECT {_M} FROM memories m WHERE {clause} ORDER BY {order} LIMIT %s OFFSET %s"

        def work(conn: Any) -> list[MemoryRecord]:
            return [codec.memory_row(r) for r in conn.execute(sql, (*params, limit, offset))]

        result: list[MemoryRecord] = self.read(work, partition)
        return result

    # -- journal and maintenance ---------------------------------------------------------------------

    def journal(
        self, partition: Partition, *, memory_id: str | None = None, episode_id: str | None = None
    ) -> list[JournalEntry]:
        clause, params = "tenant = %s AND user_id = %s", list(partition)
        for column, value in (("memory_id", memory_id), ("episode_id", episode_id)):
            if value is not None:
                clause += f" AND {column} = %s"
                params.append(value)
        sql = f"SELECT {codec.JOURNAL_COLUMNS} FROM journal WHERE {clause} ORDER BY seq"

        def work(conn: Any) -> list[JournalEntry]:
            return [codec.journal_row(r) for r in conn.execute(sql, params)]

        result: list[JournalEntry] = self.run(work, partition)
        return result

    def purge(self, partition: Partition) -> PurgeReport:
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


def _meta_model(conn: Any) -> tuple[str, int] | None:
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'dim')").fetchall())
    return (meta["embedding_model"], int(meta["dim"])) if len(meta) == 2 else None


def _landed(conn: Any, changes: Changeset) -> bool:
    """Whether ``changes`` committed before the connection was lost (its first row is there)."""
    if changes.insert:
        sql, arg = "SELECT 1 FROM memories WHERE version_id = %s", changes.insert[0].version_id
    elif changes.journal:
        sql, arg = "SELECT 1 FROM journal WHERE id = %s", changes.journal[0].id
    elif changes.retire:
        sql, arg = "SELECT 1 FROM memories WHERE version_id = %s AND retired_at IS NOT NULL", changes.retire[0][0]
    elif changes.episode_id and changes.episode_done:
        sql, arg = "SELECT 1 FROM episodes WHERE id = %s AND status = 'done'", changes.episode_id
    else:
        return False
    return conn.execute(sql, (arg,)).fetchone() is not None
