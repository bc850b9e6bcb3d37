"""The hub's own bookkeeping: per-file cursors, which turns went into which episode, per-session counts.

A small SQLite file beside the store (``hub.db``). It holds paths, record keys, counts, database marks (row
ids, times) and content digests of key-value rows, never text, so nothing it keeps can leak a secret.
Import is write-ahead: the turns of an episode are recorded as
*planned* (with the episode's idempotency key) before ``Memory.add`` and marked *done* after it. A run
killed in between finds the plan, rebuilds the same episode and adds it again, which the engine answers
from its idempotency key, so every turn ends up in exactly one episode.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memscribe.hub.model import Resume

__all__ = ["FileCursor", "HubState", "signature"]

_MIGRATIONS = (("files", "mark", "ALTER TABLE files ADD COLUMN mark TEXT"),)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
  source TEXT NOT NULL, path TEXT NOT NULL, signature TEXT NOT NULL, inode INTEGER, size INTEGER,
  mtime_ns INTEGER, offset INTEGER, partial INTEGER NOT NULL DEFAULT 0, error TEXT, imported_at TEXT,
  PRIMARY KEY (source, path));
CREATE TABLE IF NOT EXISTS turns (
  source TEXT NOT NULL, session TEXT NOT NULL, key TEXT NOT NULL, episode TEXT NOT NULL,
  done INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (source, session, key)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS turns_pending ON turns (source, session) WHERE done = 0;
CREATE TABLE IF NOT EXISTS digests (
  source TEXT NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL,
  PRIMARY KEY (source, path, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
  source TEXT NOT NULL, session TEXT NOT NULL, path TEXT, project TEXT, turns INTEGER NOT NULL DEFAULT 0,
  episodes INTEGER NOT NULL DEFAULT 0, last_import TEXT, PRIMARY KEY (source, session));
"""


class FileCursor:
    """Where a file stood when it was last read: the signature of every watched path and the byte offset
    after its last complete line (a partial last line is read again once it is complete)."""

    def __init__(
        self,
        signature: str,
        inode: int | None,
        size: int | None,
        mtime_ns: int | None,
        offset: int | None,
        partial: bool,
    ) -> None:
        self.signature, self.inode, self.size, self.mtime_ns = signature, inode, size, mtime_ns
        self.offset, self.partial = offset, partial


def signature(paths: Iterable[Path]) -> tuple[str, FileCursor]:
    """A change signature for the watched paths (inode, size, mtime of each; missing ones included)."""
    parts: list[Any] = []
    first: os.stat_result | None = None
    for index, path in enumerate(paths):
        try:
            st = path.stat()
        except OSError:
            parts.append([path.name, None])
            continue
        first = first or st
        if index and not st.st_size:  # an empty -wal is no change: a read-only open may create one
            parts.append([path.name, None])
            continue
        parts.append([path.name, st.st_ino, st.st_size, st.st_mtime_ns])
    text = json.dumps(parts)
    if first is None:
        return text, FileCursor(text, None, None, None, None, False)
    return text, FileCursor(text, first.st_ino, first.st_size, first.st_mtime_ns, None, False)


class HubState:
    """Cursors and turn bookkeeping in ``path`` (created on first use, WAL, one writer at a time)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(str(path), timeout=60.0, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.executescript(_SCHEMA)
        for table, column, statement in _MIGRATIONS:  # hub state written by an earlier version
            if column not in {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}:
                self.conn.execute(statement)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- files -------------------------------------------------------------------------------------

    def cursor(self, source: str, path: Path) -> FileCursor | None:
        row = self.conn.execute(
            "SELECT signature, inode, size, mtime_ns, offset, partial FROM files WHERE source = ? AND path = ?",
            (source, str(path)),
        ).fetchone()
        return FileCursor(row[0], row[1], row[2], row[3], row[4], bool(row[5])) if row else None

    def save_cursor(
        self,
        source: str,
        path: Path,
        cursor: FileCursor,
        error: str | None,
        *,
        mark: dict[str, Any] | None = None,
        digests: dict[str, str] | None = None,
    ) -> None:
        """Store where ``path`` stood; ``mark`` and ``digests`` (a database read that completed) in the same
        transaction. Without a mark the one stored before is kept: a failed read resumes where the last
        good one stopped."""
        stored = json.dumps({"inode": cursor.inode, "mark": mark}) if mark is not None else None
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source, path) DO UPDATE SET "
                "signature = excluded.signature, inode = excluded.inode, size = excluded.size, "
                "mtime_ns = excluded.mtime_ns, offset = excluded.offset, partial = excluded.partial, "
                "error = excluded.error, imported_at = excluded.imported_at, mark = coalesce(excluded.mark, mark)",
                (
                    source,
                    str(path),
                    cursor.signature,
                    cursor.inode,
                    cursor.size,
                    cursor.mtime_ns,
                    cursor.offset,
                    int(cursor.partial),
                    error,
                    _now(),
                    stored,
                ),
            )
            if digests:
                conn.executemany(
                    "INSERT OR REPLACE INTO digests VALUES (?, ?, ?, ?)",
                    [(source, str(path), k, d) for k, d in digests.items()],
                )

    def resume(self, source: str, path: Path, inode: int | None) -> Resume:
        """The mark and digests of the last complete read of ``path``; empty when there was none or the file
        was replaced since (another inode)."""
        row = self.conn.execute("SELECT mark FROM files WHERE source = ? AND path = ?", (source, str(path))).fetchone()
        stored = json.loads(row[0]) if row and row[0] else None
        if not isinstance(stored, dict) or stored.get("inode") != inode or not isinstance(stored.get("mark"), dict):
            return Resume()
        rows = self.conn.execute("SELECT key, digest FROM digests WHERE source = ? AND path = ?", (source, str(path)))
        return Resume(stored["mark"], dict(rows.fetchall()))

    # -- turns -------------------------------------------------------------------------------------

    def known(self, source: str, session: str) -> dict[str, tuple[str, bool]]:
        """Turn key → (episode key, done) for every turn of a session the hub has planned or imported."""
        rows = self.conn.execute(
            "SELECT key, episode, done FROM turns WHERE source = ? AND session = ?", (source, session)
        )
        return {k: (e, bool(d)) for k, e, d in rows}

    def plan(self, source: str, session: str, groups: list[tuple[str, list[str]]]) -> None:
        """Record the turns of each planned episode before it is added (done = 0)."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO turns VALUES (?, ?, ?, ?, 0)",
                [(source, session, key, episode) for episode, keys in groups for key in keys],
            )

    def finish(self, source: str, session: str, episodes: list[str], *, path: str, project: str | None) -> None:
        """Mark the planned turns of ``episodes`` done and update the session's counts."""
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE turns SET done = 1 WHERE source = ? AND session = ? AND episode = ?",
                [(source, session, e) for e in episodes],
            )
            turns = conn.execute(
                "SELECT count(*), count(DISTINCT episode) FROM turns WHERE source = ? AND session = ? AND done = 1",
                (source, session),
            ).fetchone()
            conn.execute(
                "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)",
                (source, session, path, project, turns[0], turns[1], _now()),
            )

    # -- status ------------------------------------------------------------------------------------

    def status(self) -> dict[str, dict[str, Any]]:
        """Per source: files, sessions, turns, episodes, last import and the files in error."""
        out: dict[str, dict[str, Any]] = {}
        for source, files, last in self.conn.execute(
            "SELECT source, count(*), max(imported_at) FROM files GROUP BY source"
        ):
            out[source] = {"files": files, "sessions": 0, "turns": 0, "episodes": 0, "last_import": last, "errors": []}
        for source, sessions, turns, episodes in self.conn.execute(
            "SELECT source, count(*), sum(turns), sum(episodes) FROM sessions GROUP BY source"
        ):
            entry = out.setdefault(source, {"files": 0, "last_import": None, "errors": []})
            entry.update(sessions=sessions, turns=turns or 0, episodes=episodes or 0)
        for source, path, error in self.conn.execute(
            "SELECT source, path, error FROM files WHERE error IS NOT NULL ORDER BY source, path"
        ):
            out[source]["errors"].append({"path": path, "error": error})
        return out


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
