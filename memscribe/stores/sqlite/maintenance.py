"""Erasure, purge with byte-level verification, statistics, index rebuilds and integrity checks for
SQLiteStore."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.core.cjk import has_cjk, segment_cjk
from memscribe.stores.ports import Partition, PurgeReport

if TYPE_CHECKING:
    from memscribe.stores.sqlite.store import SQLiteStore

__all__ = ["check", "erase_memory", "purge_partition", "reindex", "stats"]

ERASED = "[erased]"


def erase_memory(conn: sqlite3.Connection, partition: Partition, memory_id: str) -> int:
    """Physically remove every version of one memory; journal lines keep their decision, not the content."""
    rows = conn.execute(
        "SELECT rowid, retired_at IS NULL AND status = 'active', episode_id, message_indices FROM memories "
        "WHERE id = ? AND tenant = ? AND user_id = ?",
        (memory_id, *partition),
    ).fetchall()
    sources = sorted({(r[2], r[3]) for r in rows if r[2]})
    for rowid, live, _, _ in rows:
        conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
        conn.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))
        conn.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
        if live:
            conn.execute(
                "INSERT INTO vector_log (tenant, user_id, key, op) VALUES (?, ?, ?, 'remove')",
                (*partition, rowid),
            )
    conn.execute(
        "UPDATE journal SET reason = ? WHERE memory_id = ? AND tenant = ? AND user_id = ?",
        (ERASED, memory_id, *partition),
    )
    _scrub_sources(conn, partition, sources)
    return len(rows)


def _scrub_sources(conn: sqlite3.Connection, partition: Partition, sources: list[tuple[str, str]]) -> None:
    """Blank the episode messages a forgotten memory came from, so the raw text goes with it."""
    for episode_id, indices in sources:
        row = conn.execute(
            "SELECT messages FROM episodes WHERE id = ? AND tenant = ? AND user_id = ?",
            (episode_id, *partition),
        ).fetchone()
        if row is None:
            continue
        messages = json.loads(row[0])
        for i in json.loads(indices):
            if 0 <= i < len(messages):
                messages[i]["content"] = ERASED
                messages[i]["tool_calls"] = []
        conn.execute("UPDATE episodes SET messages = ? WHERE id = ?", (json.dumps(messages), episode_id))


def purge_partition(store: SQLiteStore, partition: Partition) -> PurgeReport:
    """Erase every byte of one partition from the database, its WAL and its index files, then verify."""
    db = store.db
    with db.write() as conn:
        needles = _needles(conn, partition)
        counts = {
            table: conn.execute(f"DELETE FROM {table} WHERE tenant = ? AND user_id = ?", partition).rowcount
            for table in ("journal", "vector_log", "vectors", "episodes")
        }
        rowids = [r[0] for r in conn.execute("SELECT rowid FROM memories WHERE tenant = ? AND user_id = ?", partition)]
        for start in range(0, len(rowids), 500):
            chunk = rowids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM memories_fts WHERE rowid IN ({marks})", chunk)
            conn.execute(f"DELETE FROM memories WHERE rowid IN ({marks})", chunk)
        needles -= _held_elsewhere(conn, needles)
        # Deleted FTS entries linger in old segments until merged; optimize rewrites the index.
        conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
    _compact(store)
    store.vectors.drop(partition)
    files = [store.path, Path(f"{store.path}-wal"), Path(f"{store.path}-shm"), *store.vectors.files()]
    leftovers = _scan(files, needles)
    return PurgeReport(
        partition=partition,
        memories=len(rowids),
        episodes=counts["episodes"],
        journal=counts["journal"],
        files_checked=tuple(str(f) for f in files if f.exists()),
        leftovers=tuple(leftovers),
    )


def _needles(conn: sqlite3.Connection, partition: Partition) -> set[bytes]:
    """The strings whose bytes must not survive the purge: memory texts and message contents."""
    texts = {r[0] for r in conn.execute("SELECT text FROM memories WHERE tenant = ? AND user_id = ?", partition)}
    for (messages,) in conn.execute("SELECT messages FROM episodes WHERE tenant = ? AND user_id = ?", partition):
        texts.update(m.get("content") or "" for m in json.loads(messages))
    # Very short strings ("ok", "yes") occur by chance in any file; they identify nobody.
    kept = {text for text in texts if len(text.strip()) >= 12}
    kept |= {segment_cjk(text) for text in kept if has_cjk(text)}  # as the keyword index held them
    return {text.encode("utf-8") for text in kept}


def _held_elsewhere(conn: sqlite3.Connection, needles: set[bytes]) -> set[bytes]:
    """Needles another partition holds too, such as the same fact told by two users: finding their bytes
    after the purge proves nothing. Runs once the partition's rows are gone, so every row left is another's."""
    held: set[bytes] = set()
    if not needles:
        return held
    for (text,) in conn.execute("SELECT text FROM memories"):
        if (blob := text.encode("utf-8")) in needles:
            held.add(blob)
    for (messages,) in conn.execute("SELECT messages FROM episodes"):
        held |= {(m.get("content") or "").encode("utf-8") for m in json.loads(messages)} & needles
    return held


def _compact(store: SQLiteStore) -> None:
    with store.db._thread_lock, store.db._file_lock:
        conn = store.db.connection()
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _scan(files: list[Path], needles: set[bytes]) -> list[str]:
    leftovers = []
    for path in files:
        if not path.exists() or not needles:
            continue
        blob = path.read_bytes()
        if any(needle in blob for needle in needles):
            leftovers.append(str(path))
    return leftovers


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
        vectors = sum(store.vectors.rebuild(conn, p, known[1], progress) for p in partitions)
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
            "SELECT COUNT(*) FROM memories m LEFT JOIN vectors v ON v.rowid = m.rowid WHERE v.rowid IS NULL"
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
    return result
