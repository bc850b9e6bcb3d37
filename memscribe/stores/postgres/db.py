"""Connections, transactions, tenancy settings and retries for PostgresStore.

A psycopg pool per process (opened on first use; a forked child opens its own). Every unit of work is one
transaction that first sets the partition the row-level security policies read. Transient failures are
retried with jittered backoff until ``retry_seconds`` have passed: serialization failures and deadlocks
(the transaction is re-run from the start), and a lost connection or a server that is restarting (the pool
hands out a fresh connection). A write whose commit was sent but not acknowledged is re-run only after the
caller's ``landed`` check says it did not commit, so a retry never applies a changeset twice.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from memscribe.errors import InvalidInput, StoreError, StoreFull, StoreLocked, StoreReadOnly, WriteConflict

__all__ = ["ALL", "Database", "translate"]

T = TypeVar("T")
ALL = "*"  # the wildcard partition value: every user of a tenant, or (as the tenant) every tenant


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool
    except ModuleNotFoundError as exc:
        from memscribe.errors import ConfigError

        raise ConfigError("the PostgreSQL store needs the 'postgres' extra: pip install 'memscribe[postgres]'") from exc
    return psycopg, psycopg_pool


class Database:
    """A connection pool to one PostgreSQL database, with retried, partition-scoped transactions."""

    def __init__(self, url: str, *, max_connections: int = 8, retry_seconds: float = 60.0) -> None:
        self.url = url
        self.max_connections = max_connections
        self.retry_seconds = retry_seconds
        self._pool: Any = None
        self._pid = 0
        self._lock = threading.Lock()

    def pool(self) -> Any:
        if self._pool is None or self._pid != os.getpid():
            with self._lock:
                if self._pool is None or self._pid != os.getpid():
                    _, psycopg_pool = _psycopg()
                    self._pool = psycopg_pool.ConnectionPool(
                        self.url, min_size=1, max_size=self.max_connections, open=False, timeout=10.0,
                        kwargs={"autocommit": True},  # run() opens each transaction with its settings
                        configure=_configure, name="memscribe",
                    )  # fmt: skip
                    self._pool.open(wait=False)
                    self._pid = os.getpid()
        return self._pool

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled connection, for work that manages its own transactions (migrations, VACUUM)."""
        with self.pool().connection() as conn:
            yield conn

    def run(
        self,
        fn: Callable[[Any], T],
        *,
        tenant: str,
        user_id: str,
        landed: Callable[[Any], bool] | None = None,
        on_landed: T | None = None,
    ) -> T:
        """``fn(conn)`` inside one transaction scoped to (tenant, user_id), retried on transient failures.
        After a connection lost mid-commit, ``landed(conn)`` (when given) says whether the first attempt
        committed; if so ``on_landed`` is returned instead of running ``fn`` again."""
        return self._retrying(
            lambda conn, uncertain: _in_transaction(conn, fn, tenant, user_id, landed if uncertain else None, on_landed)
        )

    def read(self, fn: Callable[[Any], T], *, tenant: str, user_id: str) -> T:
        """``fn(conn)``: read-only statements scoped to (tenant, user_id) by the connection's session settings,
        which are set only when this connection last served another partition, so a search's statement costs
        one round trip instead of three (BEGIN with the settings, the statement, COMMIT). No transaction:
        each statement sees its own snapshot, so ``fn``'s statements must not need to agree."""
        return self._retrying(lambda conn, _: _in_session(conn, fn, tenant, user_id))

    def _retrying(self, attempt: Callable[[Any, bool], T]) -> T:
        """``attempt(conn, uncertain)`` until it succeeds or a failure is not transient; ``uncertain``: an
        earlier attempt lost its connection, so it may have committed."""
        psycopg, psycopg_pool = _psycopg()
        deadline = time.monotonic() + self.retry_seconds
        delay, uncertain = 0.02, False
        while True:
            try:
                with self.pool().connection() as conn:
                    return attempt(conn, uncertain)
            except (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected) as exc:
                if time.monotonic() > deadline:
                    raise StoreLocked(f"the store kept conflicting: {exc}") from exc
            except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as exc:
                if not _transient(exc) or time.monotonic() > deadline:
                    raise translate(exc) from exc
                uncertain = True
            except psycopg.Error as exc:
                raise translate(exc) from exc
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 1.0)

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._pid == os.getpid():
                with contextlib.suppress(Exception):
                    self._pool.close()
            self._pool = None


def _in_transaction(
    conn: Any, fn: Callable[[Any], T], tenant: str, user_id: str, landed: Callable[[Any], bool] | None,
    on_landed: T | None,
) -> T:
    """One transaction on an autocommit connection: BEGIN and the partition settings go in one round trip
    (psycopg would send its own BEGIN first), then ``fn``, then COMMIT; ROLLBACK when anything fails."""
    _psycopg()
    from psycopg import sql

    conn.execute(
        sql.SQL("BEGIN; SELECT set_config('memscribe.tenant', {}, true), set_config('memscribe.user_id', {}, true)")
        .format(sql.Literal(tenant), sql.Literal(user_id))
    )
    try:
        result = on_landed if landed is not None and landed(conn) else fn(conn)
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result  # type: ignore[return-value]


_SESSION: weakref.WeakKeyDictionary[Any, tuple[str, str]] = weakref.WeakKeyDictionary()  # conn -> partition


def _in_session(conn: Any, fn: Callable[[Any], T], tenant: str, user_id: str) -> T:
    """``fn`` on an autocommit connection whose session settings name (tenant, user_id). A transaction of
    ``run`` sets its partition locally on top and leaves the session's value as it found it."""
    if _SESSION.get(conn) != (tenant, user_id):
        _SESSION.pop(conn, None)  # unknown until the settings below are in place
        conn.execute(
            "SELECT set_config('memscribe.tenant', %s, false), set_config('memscribe.user_id', %s, false)",
            (tenant, user_id),
        )
        _SESSION[conn] = (tenant, user_id)
    return fn(conn)


def _configure(conn: Any) -> None:
    # Session settings for every pooled connection: UTC times, and pgvector's iterative index scans so a
    # filtered ANN search keeps walking the graph until enough rows pass the filter.
    conn.execute("SET TIME ZONE 'UTC'")
    with contextlib.suppress(Exception):
        conn.execute("SET hnsw.iterative_scan = relaxed_order")  # pgvector >= 0.8


def _transient(exc: BaseException) -> bool:
    """A failure a fresh connection may not see: the server restarting, shutting down or unreachable."""
    _, psycopg_pool = _psycopg()
    if isinstance(exc, psycopg_pool.PoolTimeout):
        return True
    sqlstate = getattr(exc, "sqlstate", None) or ""
    return sqlstate[:2] in ("", "08", "57") or sqlstate == "53300"  # no state: the connection dropped


def translate(exc: BaseException) -> StoreError | InvalidInput:
    """psycopg errors → the store error family."""
    sqlstate = getattr(exc, "sqlstate", None) or ""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if sqlstate == "23505":
        return StoreError(f"a row with that key exists: {text}")
    if sqlstate in ("22021", "22P05") or "0x00" in text:
        return InvalidInput(f"text PostgreSQL cannot store (a NUL character or invalid UTF-8): {text}")
    if sqlstate == "53100":
        return StoreFull(f"the disk holding the database is full: {text}")
    if sqlstate in ("25006", "42501"):
        return StoreReadOnly(f"the store is not writable: {text}")
    if sqlstate in ("40001", "40P01"):
        return WriteConflict(f"a concurrent write conflicted: {text}")
    if sqlstate[:2] in ("08", "57") or not sqlstate:
        return StoreError(f"the database is unreachable: {text}")
    return StoreError(f"store failure: {text}")
