"""Forget and purge for SQLiteStore, with byte-level verification.

Deleted rows are zeroed in place (``secure_delete``), the keyword index is merged so no segment keeps a
forgotten word, and the WAL is checkpointed and truncated so no old page image survives; a store that was
killed between the erasing transaction and that clean-up finishes it when next opened (``meta.scrub``).
A purge of a user with nothing stored touches nothing: no index merge, no VACUUM.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

from memscribe.core.cjk import has_cjk, segment_cjk
from memscribe.stores.erasure import ERASED, Needles, needles_of, quoted_texts, scrub_messages, sources_of
from memscribe.stores.ports import Partition, PurgeReport
from memscribe.stores.sqlite import codec

if TYPE_CHECKING:
    from memscribe.stores.sqlite.store import SQLiteStore

__all__ = ["ERASED", "erase_memory", "finish_scrub", "needs_scrub", "purge_partition"]

_M = ", ".join(f"m.{c.strip()}" for c in codec.MEMORY_COLUMNS.split(","))


def erase_memory(conn: sqlite3.Connection, partition: Partition, memory_id: str) -> int:
    """Physically remove every version of one memory, and its text wherever the partition still holds it:
    its source messages, other messages repeating it, journal reasons quoting it."""
    rows = conn.execute(
        f"SELECT m.rowid, m.retired_at IS NULL AND m.status = 'active', {_M} FROM memories m "
        "WHERE m.id = ? AND m.tenant = ? AND m.user_id = ?",
        (memory_id, *partition),
    ).fetchall()
    records = [codec.memory_row(r[2:]) for r in rows]
    for rowid, live, *_ in rows:
        conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
        conn.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))
        conn.execute("DELETE FROM unembedded WHERE rowid = ?", (rowid,))
        conn.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
        if live:
            conn.execute(
                "INSERT INTO vector_log (tenant, user_id, key, op) VALUES (?, ?, ?, 'remove')",
                (*partition, rowid),
            )
    linked = {
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT episode_id FROM journal WHERE memory_id = ? AND tenant = ? AND user_id = ? "
            "AND episode_id IS NOT NULL",
            (memory_id, *partition),
        )
    }
    conn.execute(
        "UPDATE journal SET reason = ? WHERE memory_id = ? AND tenant = ? AND user_id = ?",
        (ERASED, memory_id, *partition),
    )
    needles = needles_of(records)
    sources = sources_of(records)
    _scrub_episodes(conn, partition, needles, sources, linked | {e for e, _ in sources})
    _scrub_reasons(conn, partition, needles)
    if rows:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('scrub', '1')")
    return len(rows)


def _scrub_episodes(
    conn: sqlite3.Connection,
    partition: Partition,
    needles: Needles,
    sources: set[tuple[str, int]],
    linked: set[str],
) -> None:
    candidates = set(linked)
    for quoted in quoted_texts(needles):  # any other episode repeating a forgotten text verbatim
        candidates |= {
            r[0]
            for r in conn.execute(
                "SELECT id FROM episodes WHERE tenant = ? AND user_id = ? AND instr(messages, ?) > 0",
                (*partition, quoted),
            )
        }
    for episode_id in sorted(candidates):
        row = conn.execute(
            "SELECT messages FROM episodes WHERE id = ? AND tenant = ? AND user_id = ?", (episode_id, *partition)
        ).fetchone()
        if row is None:
            continue
        messages = json.loads(row[0])
        if scrub_messages(messages, episode_id, needles, sources, episode_id in linked):
            conn.execute("UPDATE episodes SET messages = ? WHERE id = ?", (json.dumps(messages), episode_id))


def _scrub_reasons(conn: sqlite3.Connection, partition: Partition, needles: Needles) -> None:
    for needle in needles.strings:
        conn.execute(
            "UPDATE journal SET reason = replace(reason, ?1, ?2) WHERE tenant = ?3 AND user_id = ?4 "
            "AND instr(reason, ?1) > 0",
            (needle, ERASED, *partition),
        )


def needs_scrub(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM meta WHERE key = 'scrub'").fetchone() is not None


def finish_scrub(store: SQLiteStore) -> None:
    """Merge the keyword index (deleted words linger in old segments until merged; the pages it frees are
    zeroed), then checkpoint and truncate the WAL. Idempotent; run after every erasure and on open."""
    with store.db.write() as conn:
        conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
        conn.execute("DELETE FROM meta WHERE key = 'scrub'")
    checkpoint(store)


def checkpoint(store: SQLiteStore, attempts: int = 50) -> bool:
    """Copy the WAL into the database and truncate it to zero bytes; False if readers kept it busy."""
    with store.db._thread_lock, store.db.file_lock():
        conn = store.db.connection()
        for _ in range(attempts):
            busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            if not busy:
                return True
            time.sleep(0.02)
    return False


def purge_partition(store: SQLiteStore, partition: Partition) -> PurgeReport:
    """Erase every byte of one partition from the database, its WAL and its index files, then verify."""
    with store.db.write() as conn:
        needles = _needles(conn, partition)
        counts = {
            table: conn.execute(f"DELETE FROM {table} WHERE tenant = ? AND user_id = ?", partition).rowcount
            for table in ("journal", "vector_log", "vectors", "unembedded", "episodes")
        }
        rowids = [r[0] for r in conn.execute("SELECT rowid FROM memories WHERE tenant = ? AND user_id = ?", partition)]
        for start in range(0, len(rowids), 500):
            chunk = rowids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM memories_fts WHERE rowid IN ({marks})", chunk)
            conn.execute(f"DELETE FROM memories WHERE rowid IN ({marks})", chunk)
        needles -= _held_elsewhere(conn, needles)
        touched = bool(rowids) or any(counts.values())
        if touched:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('scrub', '1')")
    store.vectors.drop(partition)
    if touched:
        finish_scrub(store)
    files = [store.path, Path(f"{store.path}-wal"), Path(f"{store.path}-shm"), *store.vectors.files()]
    leftovers = _scan(files, needles)
    if leftovers:  # zeroed pages should leave nothing; if a file still holds a needle, rewrite the database
        _vacuum(store)
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


def _vacuum(store: SQLiteStore) -> None:
    with store.db._thread_lock, store.db.file_lock():
        conn = store.db.connection()
        with contextlib.suppress(sqlite3.Error):
            conn.execute("VACUUM")
    checkpoint(store)


def _scan(files: list[Path], needles: set[bytes]) -> list[str]:
    leftovers = []
    for path in files:
        if not path.exists() or not needles:
            continue
        blob = path.read_bytes()
        if any(needle in blob for needle in needles):
            leftovers.append(str(path))
    return leftovers
