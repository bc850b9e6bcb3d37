"""Statistics, index rebuilds and integrity checks for PostgresStore."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memscribe.core.cjk import segment_cjk
from memscribe.stores.ports import Partition
from memscribe.stores.postgres.db import ALL
from memscribe.stores.postgres.erasure import TABLES

if TYPE_CHECKING:
    from memscribe.stores.postgres.store import PostgresStore

__all__ = ["check", "health", "reindex", "stats"]

_CURRENT = "retired_at IS NULL AND status = 'active'"


def _scope(partition: Partition | None, tenant: str | None) -> tuple[Partition, str, list[Any]]:
    if partition:
        return partition, "tenant = %s AND user_id = %s", list(partition)
    if tenant is not None:
        return (tenant, ALL), "tenant = %s", [tenant]
    return (ALL, ALL), "true", []


def stats(store: PostgresStore, partition: Partition | None, tenant: str | None = None) -> dict[str, Any]:
    scope, clause, params = _scope(partition, tenant)

    def work(conn: Any) -> dict[str, Any]:
        def one(sql: str, args: list[Any] = params) -> int:
            return int(conn.execute(sql, args).fetchone()[0])

        result: dict[str, Any] = {
            "memories": one(f"SELECT COUNT(DISTINCT id) FROM memories WHERE {clause}"),
            "versions": one(f"SELECT COUNT(*) FROM memories WHERE {clause}"),
            "current": one(f"SELECT COUNT(*) FROM memories WHERE {_CURRENT} AND {clause}"),
            "episodes": one(f"SELECT COUNT(*) FROM episodes WHERE {clause}"),
            "pending_episodes": one(f"SELECT COUNT(*) FROM episodes WHERE status != 'done' AND {clause}"),
            "journal": one(f"SELECT COUNT(*) FROM journal WHERE {clause}"),
            "bytes": one("SELECT sum(pg_total_relation_size(t)) FROM unnest(%s::regclass[]) t", [list(TABLES)]),
        }
        if partition is None and tenant is not None:
            rows = conn.execute(
                "SELECT user_id, COUNT(*) FILTER (WHERE retired_at IS NULL AND status = 'active'), MIN(recorded_at), "
                "MAX(recorded_at) FROM memories WHERE tenant = %s GROUP BY user_id ORDER BY user_id",
                (tenant,),
            ).fetchall()
            result["users"] = [
                {"user_id": u, "memories": int(n), "created_at": _iso(first), "updated_at": _iso(last)}
                for u, n, first, last in rows
            ]
        return result

    result: dict[str, Any] = store.run(work, scope)
    result["path"] = store.path
    return result


def _iso(when: Any) -> str | None:
    return when.isoformat().replace("+00:00", "Z") if when is not None else None


def reindex(
    store: PostgresStore,
    partition: Partition | None,
    tenant: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Recompute each partition's keyword vectors from its texts and count the vectors its ANN index serves;
    without a partition, also rebuild the keyword and vector indexes (``REINDEX ... CONCURRENTLY``, which
    lets writes continue)."""
    known = store.embedding_model()
    if known is None:
        return {"partitions": 0, "vectors": 0, "keyword_index": "unchanged"}
    scope, clause, params = _scope(partition, tenant)
    sql = f"SELECT DISTINCT tenant, user_id FROM memories WHERE {clause} ORDER BY tenant, user_id"
    partitions = store.run(lambda conn: [tuple(r) for r in conn.execute(sql, params)], scope)
    vectors = 0
    for part in partitions:

        def work(conn: Any, part: Partition = part) -> int:
            texts = conn.execute("SELECT seq, text FROM memories WHERE tenant = %s AND user_id = %s", part).fetchall()
            conn.cursor().executemany(
                "UPDATE memories SET keywords = to_tsvector('memscribe_words', %s) WHERE seq = %s",
                [(segment_cjk(text), seq) for seq, text in texts],
            )
            row = conn.execute(
                "SELECT COUNT(*) FROM memories WHERE tenant = %s AND user_id = %s AND retired_at IS NULL "
                "AND status = 'active'",
                part,
            ).fetchone()
            return int(row[0])

        done = store.run(work, part)
        vectors += done
        if progress is not None:
            progress(done)
    keyword = "unchanged"
    store.ensure_ann_index(known[1])
    if partition is None and tenant is None:
        with store.db.connection() as conn:
            for index in ("memories_keywords", "memories_hnsw"):
                conn.execute(f"REINDEX INDEX CONCURRENTLY {index}")
        keyword = "optimized"
    return {"partitions": len(partitions), "vectors": vectors, "keyword_index": keyword}


def check(store: PostgresStore) -> list[str]:
    """Integrity problems found (empty when healthy)."""
    problems = [f"migration {name} is not applied" for name in store.pending_migrations()]

    def work(conn: Any) -> list[str]:
        found = []
        row = conn.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        if row and row[0]:
            found.append("the store connects as a role that bypasses row-level security: use a plain role")
        half = conn.execute(
            "SELECT COUNT(*) FROM memories a JOIN memories b ON a.superseded_by = b.id "
            "WHERE a.tenant != b.tenant OR a.user_id != b.user_id"
        ).fetchone()[0]
        if half:
            found.append(f"{half} supersede links cross a partition")
        return found

    return problems + list(store.run(work, (ALL, ALL)))


def health(store: PostgresStore) -> dict[str, Any]:
    """What ``memscribe doctor`` reports about a PostgreSQL store, read without migrating it: the server, the
    migrations applied (and any this memscribe does not know), row-level security on each table, the role,
    the pgvector extension and the indexes."""
    from memscribe.stores.postgres.schema import MIGRATIONS

    def work(conn: Any) -> dict[str, Any]:
        server = conn.execute("SELECT current_setting('server_version'), current_user, current_database()").fetchone()
        role = conn.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        migrated = conn.execute("SELECT to_regclass('memscribe_migrations') IS NOT NULL").fetchone()[0]
        listed = "SELECT name FROM memscribe_migrations ORDER BY name"
        applied = [r[0] for r in conn.execute(listed)] if migrated else []
        security = {
            name: (bool(on), bool(forced))
            for name, on, forced in conn.execute(
                "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
                "WHERE relname = ANY(%s) AND relnamespace = to_regnamespace(current_schema())::oid",
                (list(TABLES),),
            )
        }
        indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'memories'")}
        vector = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        return {
            "server": server[0], "role": server[1], "database": server[2], "bypasses_rls": bool(role and role[0]),
            "applied": applied, "row_security": security, "indexes": sorted(indexes),
            "pgvector": vector[0] if vector else None,
        }  # fmt: skip

    result: dict[str, Any] = store.db.run(work, tenant=ALL, user_id=ALL)  # reads only: never migrates
    known = [name for name, _ in MIGRATIONS]
    result["missing"] = [name for name in known if name not in result["applied"]]
    result["unknown"] = [name for name in result["applied"] if name not in known]
    result["known"] = known
    return result
