"""Forget and purge for PostgresStore.

A forget deletes every version of the memory and scrubs its text from the partition's messages and journal
reasons (the rules every store shares, :mod:`memscribe.stores.erasure`), then runs a plain ``VACUUM`` so the
space is reclaimable. A purge deletes the partition's rows, then rewrites the three tables with
``VACUUM FULL`` — a plain VACUUM leaves a deleted row's bytes in the page until it is reused — and verifies
that no purged text is still held by any row of the database. ``VACUUM FULL`` holds an exclusive lock on each
table while it rewrites it: a purge pauses other writers for that long. The write-ahead log, replicas and
backups keep the old bytes until they are recycled; that is the operator's retention policy (docs/scaling.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memscribe.stores.erasure import ERASED, Needles, needles_of, quoted_texts, scrub_messages, sources_of
from memscribe.stores.ports import Partition, PurgeReport
from memscribe.stores.postgres import codec
from memscribe.stores.postgres.db import ALL

if TYPE_CHECKING:
    from memscribe.stores.postgres.store import PostgresStore

__all__ = ["TABLES", "erase_memory", "purge_partition", "vacuum"]

TABLES = ("memories", "episodes", "journal")
_M = ", ".join(f"m.{c.strip()}" for c in codec.MEMORY_COLUMNS.split(","))


def erase_memory(conn: Any, partition: Partition, memory_id: str) -> int:
    """Physically remove every version of one memory, and its text wherever the partition still holds it:
    its source messages, other messages repeating it, journal reasons quoting it."""
    rows = conn.execute(
        f"DELETE FROM memories m WHERE m.id = %s AND m.tenant = %s AND m.user_id = %s RETURNING {_M}",
        (memory_id, *partition),
    ).fetchall()
    records = [codec.memory_row(r) for r in rows]
    linked = {
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT episode_id FROM journal WHERE memory_id = %s AND tenant = %s AND user_id = %s "
            "AND episode_id IS NOT NULL",
            (memory_id, *partition),
        )
    }
    conn.execute(
        "UPDATE journal SET reason = %s WHERE memory_id = %s AND tenant = %s AND user_id = %s",
        (ERASED, memory_id, *partition),
    )
    needles = needles_of(records)
    sources = sources_of(records)
    _scrub_episodes(conn, partition, needles, sources, linked | {e for e, _ in sources})
    for needle in needles.strings:
        conn.execute(
            "UPDATE journal SET reason = replace(reason, %s, %s) WHERE tenant = %s AND user_id = %s "
            "AND strpos(reason, %s) > 0",
            (needle, ERASED, *partition, needle),
        )
    return len(rows)


def _scrub_episodes(
    conn: Any, partition: Partition, needles: Needles, sources: set[tuple[str, int]], linked: set[str]
) -> None:
    candidates = set(linked)
    for quoted in quoted_texts(needles):  # any other episode repeating a forgotten text verbatim
        rows = conn.execute(
            "SELECT id FROM episodes WHERE tenant = %s AND user_id = %s AND strpos(messages, %s) > 0",
            (*partition, quoted),
        )
        candidates |= {r[0] for r in rows}
    for episode_id in sorted(candidates):
        row = conn.execute(
            "SELECT messages FROM episodes WHERE id = %s AND tenant = %s AND user_id = %s", (episode_id, *partition)
        ).fetchone()
        if row is None:
            continue
        messages = json.loads(row[0])
        if scrub_messages(messages, episode_id, needles, sources, episode_id in linked):
            conn.execute("UPDATE episodes SET messages = %s WHERE id = %s", (json.dumps(messages), episode_id))


def vacuum(store: PostgresStore, *, full: bool) -> list[str]:
    """VACUUM (or VACUUM FULL) the tables holding user text; returns the tables it failed on. Best effort
    for a forget (the rows are gone either way); a purge reports a failure as a leftover."""
    failed = []
    with store.db.connection() as conn:
        for table in TABLES:
            try:
                conn.execute(f"VACUUM {'FULL ' if full else ''}{table}")
            except Exception:
                failed.append(table)
    return failed


def purge_partition(store: PostgresStore, partition: Partition) -> PurgeReport:
    """Delete every row of one partition, rewrite the tables so no page keeps their bytes, and verify that
    no row of the partition is left. The tests also scan the database files for the purged texts."""

    def delete(conn: Any) -> dict[str, int]:
        return {
            table: conn.execute(f"DELETE FROM {table} WHERE tenant = %s AND user_id = %s", partition).rowcount
            for table in ("journal", "episodes", "memories")
        }

    counts: dict[str, int] = store.run(delete, partition)
    unvacuumed = vacuum(store, full=True) if any(counts.values()) else []
    leftovers = [f"table:{t} (VACUUM FULL failed: deleted bytes may remain in its pages)" for t in unvacuumed]
    leftovers += store.run(lambda conn: _remaining(conn, partition), (ALL, ALL))
    return PurgeReport(
        partition=partition,
        memories=counts["memories"],
        episodes=counts["episodes"],
        journal=counts["journal"],
        files_checked=tuple(f"table:{t}" for t in TABLES),
        leftovers=tuple(leftovers),
    )


def _remaining(conn: Any, partition: Partition) -> list[str]:
    """Tables still holding a row of the partition (read store-wide, past the row-level policies' scope)."""
    return [
        f"table:{table}"
        for table in TABLES
        if conn.execute(f"SELECT 1 FROM {table} WHERE tenant = %s AND user_id = %s LIMIT 1", partition).fetchone()
    ]
