"""Statistics, index rebuilds and integrity checks for SQLiteStore."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.stores.ports import Partition
from memscribe.stores.sqlite.vectors import SQLiteVectorLog

if TYPE_CHECKING:
    from memscribe.stores.sqlite.store import SQLiteStore

__all__ = ["check", "reindex", "stats"]


def _users(conn: sqlite3.Connection, tenant: str) -> list[dict[str, Any]]:
    """Each user of ``tenant`` with stored memories: current count, first and last write."""
    rows = conn.execute(
        "SELECT user_id, SUM(retired_at IS NULL AND status = 'active'), MIN(recorded_at), MAX(recorded_at) "
        "FROM memories WHERE tenant = ? GROUP BY user_id ORDER BY user_id",
        (tenant,),
    ).fetchall()
    return [
        {"user_id": user, "memories": int(n or 0), "created_at": first, "updated_at": last}
        for user, n, first, last in rows
    ]


def stats(store: SQLiteStore, partition: Partition | None, tenant: str | None = None) -> dict[str, Any]:
    if not store._open(create=False):
        empty = ("memories", "versions", "current", "episodes", "pending_episodes", "journal", "bytes")
        return {**dict.fromkeys(empty, 0), "path": str(store.path)}
    if partition:
        scope, params = "WHERE tenant = ? AND user_id = ?", list(partition)
    elif tenant is not None:
        scope, params = "WHERE tenant = ?", [tenant]
    else:
        scope, params = "", []
    and_scope = scope.replace("WHERE", "AND") if scope else ""

    def run(conn: sqlite3.Connection) -> dict[str, Any]:
        def one(sql: str) -> int:
            return int(conn.execute(sql, params).fetchone()[0])

        return {
            "memories": one(f"SELECT COUNT(DISTINCT id) FROM memories {scope}"),
            "versions": one(f"SELECT COUNT(*) FROM memories {scope}"),
            "current": one(f"SELECT COUNT(*) FROM memories WHERE retired_at IS NULL AND status = 'active' {and_scope}"),
            "episodes": one(f"SELECT COUNT(*) FROM episodes {scope}"),
            "pending_episodes": one(f"SELECT COUNT(*) FROM episodes WHERE status != 'done' {and_scope}"),
            "journal": one(f"SELECT COUNT(*) FROM journal {scope}"),
        }

    result: dict[str, Any] = store.db.read(run)
    if partition is None and tenant is not None:
        result["users"] = store.db.read(lambda conn: _users(conn, tenant))
    files = [store.path, Path(f"{store.path}-wal"), *store.vectors.files()]
    result["bytes"] = sum(f.stat().st_size for f in files if f.exists())
    result["path"] = str(store.path)
    return result


def reindex(
    store: SQLiteStore,
    partition: Partition | None,
    tenant: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Rebuild the vector index of one partition (or of every partition, of one tenant or all) from SQLite and
    save it beside the database. Without a partition the keyword index is also merged into one segment (it is
    shared by every tenant: this changes its speed, not what any search finds)."""
    known = store.embedding_model()
    if known is None:
        return {"partitions": 0, "vectors": 0, "keyword_index": "unchanged"}

    def run(conn: sqlite3.Connection) -> tuple[int, int]:
        tenant_, user_id = partition if partition is not None else (tenant, None)
        rows = conn.execute(
            "SELECT DISTINCT tenant, user_id FROM vector_log WHERE (?1 IS NULL OR tenant = ?1) "
            "AND (?2 IS NULL OR user_id = ?2)",
            (tenant_, user_id),
        )
        partitions = [(t, u) for t, u in rows]
        vectors = sum(store.vectors.rebuild(SQLiteVectorLog(conn), p, known[1], progress) for p in partitions)
        return len(partitions), vectors

    partitions, vectors = store.db.read(run)
    keyword = "unchanged"
    if partition is None:
        with store.db.write() as conn:
            conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
        keyword = "optimized"
    return {"partitions": partitions, "vectors": vectors, "keyword_index": keyword}


def check(store: SQLiteStore) -> list[str]:
    """Integrity problems found (empty when healthy)."""
    if not store._open(create=False):
        return []

    def run(conn: sqlite3.Connection) -> list[str]:
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"]
        try:
            conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
        except sqlite3.DatabaseError as exc:
            problems.append(f"keyword index: {exc}")
        orphans = conn.execute(
            "SELECT COUNT(*) FROM memories m LEFT JOIN vectors v ON v.rowid = m.rowid WHERE v.rowid IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM unembedded u WHERE u.rowid = m.rowid)"  # to be embedded: not lost
        ).fetchone()[0]
        if orphans:
            problems.append(f"{orphans} memory versions have no vector")
        unindexed = conn.execute(
            "SELECT COUNT(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memories_fts f WHERE f.rowid = m.rowid)"
        ).fetchone()[0]
        if unindexed:
            problems.append(f"{unindexed} memory versions are missing from the keyword index")
        half = conn.execute(
            "SELECT COUNT(*) FROM memories a JOIN memories b ON a.superseded_by = b.id "
            "WHERE a.tenant != b.tenant OR a.user_id != b.user_id"
        ).fetchone()[0]
        if half:
            problems.append(f"{half} supersede links cross a partition")
        return problems

    result: list[str] = store.db.read(run)
    known = store.embedding_model()
    if known is not None:
        result += store.vectors.check_files(known[1])
    return result
