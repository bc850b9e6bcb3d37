"""PgVectorIndex: the :class:`~memscribe.stores.ports.VectorIndex` port over a pgvector table, for a record store
that keeps its vectors elsewhere (the SQLite store with its index in a shared PostgreSQL). PostgresStore does
not need it: its vectors and their HNSW index live in its own ``memories`` table.

One table holds every partition's rows (``tenant, user_id, key``), one more the watermark each partition was
persisted at. Search ranks a partition's rows exactly (a btree on the partition, inner product on unit
vectors). A ``persist`` after deletes rewrites the table (``VACUUM FULL``) so no page keeps a deleted
vector's bytes, as the port requires; so does ``drop``."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memscribe.core.vectors import Partition
from memscribe.stores.postgres.db import Database
from memscribe.stores.postgres.search import vector_literal

if TYPE_CHECKING:
    from memscribe.core.vectors import Keys, Vectors

__all__ = ["PgVectorIndex"]

_SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS memscribe_vector_index (
    tenant text NOT NULL, user_id text NOT NULL, key bigint NOT NULL, embedding vector NOT NULL,
    PRIMARY KEY (tenant, user_id, key)
);
CREATE TABLE IF NOT EXISTS memscribe_vector_watermarks (
    tenant text NOT NULL, user_id text NOT NULL, dim integer NOT NULL, watermark bigint NOT NULL,
    PRIMARY KEY (tenant, user_id)
);
"""


class PgVectorIndex:
    """Partition vector indexes in a PostgreSQL database (``postgresql://…``)."""

    def __init__(self, url: str, *, max_connections: int = 4) -> None:
        self.db = Database(url, max_connections=max_connections)
        self._ready = False
        self._deleted: set[Partition] = set()

    def _run(self, fn: Any, partition: Partition) -> Any:
        if not self._ready:
            self.db.run(lambda conn: conn.execute(_SCHEMA), tenant="*", user_id="*")
            self._ready = True
        return self.db.run(fn, tenant=partition[0], user_id=partition[1])

    def load(self, partition: Partition, dim: int) -> int:
        def work(conn: Any) -> int:
            row = conn.execute(
                "SELECT dim, watermark FROM memscribe_vector_watermarks WHERE tenant = %s AND user_id = %s", partition
            ).fetchone()
            if row is not None and row[0] == dim:
                return int(row[1])
            conn.execute("DELETE FROM memscribe_vector_index WHERE tenant = %s AND user_id = %s", partition)
            conn.execute("DELETE FROM memscribe_vector_watermarks WHERE tenant = %s AND user_id = %s", partition)
            return 0

        result: int = self._run(work, partition)
        return result

    def upsert(self, partition: Partition, keys: Keys, vectors: Vectors) -> None:
        rows = [(*partition, int(k), vector_literal(v)) for k, v in zip(keys, np.asarray(vectors), strict=True)]
        if rows:
            sql = (
                "INSERT INTO memscribe_vector_index (tenant, user_id, key, embedding) VALUES (%s, %s, %s, %s::vector) "
                "ON CONFLICT (tenant, user_id, key) DO UPDATE SET embedding = EXCLUDED.embedding"
            )
            self._run(lambda conn: conn.cursor().executemany(sql, rows), partition)

    def delete(self, partition: Partition, keys: Keys) -> None:
        wanted = [int(k) for k in keys]
        if wanted:
            sql = "DELETE FROM memscribe_vector_index WHERE tenant = %s AND user_id = %s AND key = ANY(%s)"
            self._run(lambda conn: conn.execute(sql, (*partition, wanted)), partition)
            self._deleted.add(partition)

    def search(
        self, partition: Partition, vector: Vectors, k: int, *, among: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        if k <= 0 or (among is not None and not among):
            return []
        literal = vector_literal(vector)
        extra, params = ("", []) if among is None else (" AND key = ANY(%s)", [[int(x) for x in among]])
        sql = (
            "SELECT key, -(embedding <#> %s::vector) FROM memscribe_vector_index WHERE tenant = %s AND user_id = %s"
            f"{extra} ORDER BY embedding <#> %s::vector LIMIT %s"
        )

        def work(conn: Any) -> list[tuple[int, float]]:
            rows = conn.execute(sql, (literal, *partition, *params, literal, k)).fetchall()
            return [(int(key), float(score)) for key, score in rows]

        result: list[tuple[int, float]] = self._run(work, partition)
        return result

    def persist(self, partition: Partition, watermark: int) -> None:
        def work(conn: Any) -> None:
            dim = conn.execute(
                "SELECT vector_dims(embedding) FROM memscribe_vector_index WHERE tenant = %s AND user_id = %s "
                "LIMIT 1",
                partition,
            ).fetchone()
            conn.execute(
                "INSERT INTO memscribe_vector_watermarks (tenant, user_id, dim, watermark) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (tenant, user_id) DO UPDATE SET watermark = EXCLUDED.watermark, dim = EXCLUDED.dim",
                (*partition, int(dim[0]) if dim else 0, int(watermark)),
            )

        self._run(work, partition)
        if partition in self._deleted:
            self._rewrite()
            self._deleted.discard(partition)

    def drop(self, partition: Partition) -> None:
        def work(conn: Any) -> None:
            conn.execute("DELETE FROM memscribe_vector_index WHERE tenant = %s AND user_id = %s", partition)
            conn.execute("DELETE FROM memscribe_vector_watermarks WHERE tenant = %s AND user_id = %s", partition)

        self._run(work, partition)
        self._rewrite()

    def _rewrite(self) -> None:
        with self.db.connection() as conn:
            conn.execute("VACUUM FULL memscribe_vector_index")

    def files(self) -> list[Path]:
        return []  # the server's files, not this process's

    def close(self) -> None:
        self.db.close()
