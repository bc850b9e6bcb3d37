"""MySQLJournal: the journal archive on MySQL or MariaDB (PyMySQL), the audit store the reference system keeps
in MySQL. The record store (SQLite or PostgreSQL) stays the system of record and writes every operation to its
own journal in the write's transaction; this archive holds a copy for reporting, audit tools and retention
beyond the store, filled by :func:`memscribe.stores.archive.archive_journal`.

- ``MySQLJournal("mysql://user:pass@host:3306/db")`` (also ``mariadb://``); the password may instead come
  from ``password=`` (never logged: messages carry the URL without it). Nothing connects on construction;
  the schema is migrated on first use (named migrations in ``memscribe_migrations``, under ``GET_LOCK``).
- One connection per thread; appends are ``INSERT IGNORE`` on the entry id in one transaction, so a retry
  after a lost connection or a deadlock (retried with backoff for up to ``retry_seconds``) never stores an
  entry twice, and many writer processes may append at once.
- Every read names its ``(tenant, user_id)`` partition. ``purge`` deletes the partition's rows and rebuilds
  the table (``OPTIMIZE TABLE``: InnoDB copies the live rows into a new tablespace file), so the table's file
  keeps no byte of them. Not erased: InnoDB's redo and undo logs until they are overwritten, binary logs and
  replicas, backups: the server's retention policy.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from memscribe.core.records import JournalEntry
from memscribe.errors import ConfigError, StoreError, StoreLocked
from memscribe.stores.archive import selected
from memscribe.stores.ports import Partition
from memscribe.stores.rows import JOURNAL_COLUMNS, journal_from_row, journal_params

__all__ = ["MIGRATIONS", "MySQLJournal"]

T = TypeVar("T")
MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_journal",
        """
        CREATE TABLE journal (
            seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
            id VARCHAR(128) NOT NULL,
            episode_id VARCHAR(128),
            tenant VARCHAR(255) NOT NULL, user_id VARCHAR(255) NOT NULL,
            agent_id VARCHAR(255), session_id VARCHAR(255), project TEXT,
            kind VARCHAR(16) NOT NULL,
            memory_id VARCHAR(128), version_id VARCHAR(128),
            reason MEDIUMTEXT NOT NULL,
            candidates MEDIUMTEXT NOT NULL,
            writer VARCHAR(255) NOT NULL,
            accepted BOOLEAN NOT NULL,
            model VARCHAR(255), prompt_version VARCHAR(255),
            calls INT NOT NULL DEFAULT 0, tokens_in INT NOT NULL DEFAULT 0, tokens_out INT NOT NULL DEFAULT 0,
            latency_ms DOUBLE NOT NULL DEFAULT 0,
            created_at DATETIME(6) NOT NULL,
            UNIQUE KEY journal_id (id),
            KEY journal_memory (tenant, user_id, memory_id),
            KEY journal_episode (tenant, user_id, episode_id)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
        """,
    ),
)
_TRANSIENT = {1205, 1213, 2002, 2003, 2006, 2013, 2055}  # lock wait, deadlock, lost / refused connections
_LOCK = "memscribe_migrate"


def _pymysql() -> Any:
    try:
        import pymysql
    except ModuleNotFoundError as exc:
        raise ConfigError("the MySQL journal archive needs the 'mysql' extra: pip install 'memscribe[mysql]'") from exc
    return pymysql


def _to_db(when: datetime | None) -> datetime | None:
    return when.astimezone(UTC).replace(tzinfo=None) if when is not None else None  # DATETIME(6), in UTC


def _from_db(value: datetime | None) -> datetime | None:
    return value.replace(tzinfo=UTC) if value is not None else None


def _connect_args(url: str, password: str | None) -> tuple[dict[str, Any], str]:
    parts = urlsplit(url)
    if parts.scheme not in ("mysql", "mariadb", "mysql+pymysql") or not parts.path.strip("/"):
        raise ConfigError(f"a MySQL journal URL looks like mysql://user@host:3306/database, got {parts.scheme}://…")
    args = {
        "host": parts.hostname or "127.0.0.1", "port": parts.port or 3306, "user": unquote(parts.username or ""),
        "password": password if password is not None else unquote(parts.password or ""),
        "database": parts.path.strip("/"), "charset": "utf8mb4", "autocommit": False, "connect_timeout": 10,
    }  # fmt: skip
    shown = f"{parts.scheme}://{args['user']}@{args['host']}:{args['port']}/{args['database']}"
    return args, shown


class MySQLJournal:
    """The journal archive in one MySQL/MariaDB database (see the module docstring)."""

    def __init__(self, url: str, *, password: str | None = None, retry_seconds: float = 60.0) -> None:
        self._args, self.path = _connect_args(url, password)
        self.retry_seconds = retry_seconds
        self._local = threading.local()
        self._ready = False
        self._ready_lock = threading.Lock()

    # -- connections ---------------------------------------------------------------------------------

    def _connection(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _pymysql().connect(**self._args)
            self._local.conn = conn
        return conn

    def _drop_connection(self) -> None:
        conn, self._local.conn = getattr(self._local, "conn", None), None
        if conn is not None:
            with contextlib.suppress(Exception):  # already broken: nothing more to release
                conn.close()

    def _run(self, fn: Callable[[Any], T]) -> T:
        """``fn(cursor)`` in one transaction, retried on deadlocks, lock timeouts and lost connections."""
        pymysql = _pymysql()
        deadline, delay = time.monotonic() + self.retry_seconds, 0.02
        while True:
            try:
                conn = self._connection()
                with conn.cursor() as cur:
                    result = fn(cur)
                conn.commit()
                return result
            except pymysql.err.MySQLError as exc:
                code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0
                self._drop_connection()
                if code not in _TRANSIENT:
                    raise StoreError(f"MySQL journal {self.path}: {exc}") from exc
                if time.monotonic() > deadline:
                    raise StoreLocked(f"MySQL journal {self.path} kept failing: {exc}") from exc
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 1.0)

    def _open(self) -> None:
        if not self._ready:
            with self._ready_lock:
                if not self._ready:
                    self._run(self._migrate)
                    self._ready = True

    @staticmethod
    def _migrate(cur: Any) -> None:
        cur.execute("SELECT GET_LOCK(%s, 60)", (_LOCK,))
        try:
            cur.execute(
                "CREATE TABLE IF NOT EXISTS memscribe_migrations (name VARCHAR(100) PRIMARY KEY, "
                "applied_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB"
            )
            cur.execute("SELECT name FROM memscribe_migrations")
            done = {row[0] for row in cur.fetchall()}
            for name, sql in MIGRATIONS:
                if name not in done:  # MySQL commits DDL at once: each migration is recorded right after it
                    cur.execute(sql)
                    cur.execute("INSERT INTO memscribe_migrations (name) VALUES (%s)", (name,))
            cur.connection.commit()  # before the lock is released: the next process must see the record
        finally:
            cur.execute("SELECT RELEASE_LOCK(%s)", (_LOCK,))

    # -- the archive ---------------------------------------------------------------------------------

    def append(self, entries: Sequence[JournalEntry]) -> int:
        if not entries:
            return 0
        rows = [journal_params(e, _to_db) for e in dict((e.id, e) for e in entries).values()]
        marks = ", ".join(["%s"] * len(rows[0]))

        def work(cur: Any) -> int:
            return int(cur.executemany(f"INSERT IGNORE INTO journal ({JOURNAL_COLUMNS}) VALUES ({marks})", rows) or 0)

        self._open()
        return self._run(work)

    def journal(
        self, partition: Partition, *, memory_id: str | None = None, episode_id: str | None = None
    ) -> list[JournalEntry]:
        clause, params = "tenant = %s AND user_id = %s", list(partition)
        for column, value in (("memory_id", memory_id), ("episode_id", episode_id)):
            if value is not None:
                clause, params = f"{clause} AND {column} = %s", [*params, value]

        def work(cur: Any) -> list[JournalEntry]:
            cur.execute(f"SELECT {JOURNAL_COLUMNS} FROM journal WHERE {clause} ORDER BY seq", params)
            return [journal_from_row(row, _from_db) for row in cur.fetchall()]

        self._open()
        found = self._run(work)
        return selected(found, partition, memory_id, episode_id)  # the collation is binary: a guard, not a fix

    def count(self, partition: Partition | None = None) -> int:
        clause, params = ("tenant = %s AND user_id = %s", list(partition)) if partition else ("1 = 1", [])

        def work(cur: Any) -> int:
            cur.execute(f"SELECT COUNT(*) FROM journal WHERE {clause}", params)
            return int(cur.fetchone()[0])

        self._open()
        return self._run(work)

    def purge(self, partition: Partition) -> int:
        def delete(cur: Any) -> int:
            return int(cur.execute("DELETE FROM journal WHERE tenant = %s AND user_id = %s", list(partition)))

        def rebuild(cur: Any) -> None:
            cur.execute("OPTIMIZE TABLE journal")  # InnoDB: recreate the table, live rows only
            cur.fetchall()

        self._open()
        gone = self._run(delete)
        self._run(rebuild)
        if self.count(partition):
            raise StoreError(f"MySQL journal {self.path}: rows of the purged partition are left")
        return gone

    def close(self) -> None:
        self._drop_connection()

    def __repr__(self) -> str:
        return f"MySQLJournal({self.path!r})"
