"""Connections, transactions and the writer lock.

SQLite allows one writer at a time. Writers in this process queue on a thread lock; writers in other
processes queue on a file lock beside the database; ``BEGIN IMMEDIATE`` with a busy timeout and a bounded
retry covers checkpoints and foreign writers. Callers never see "database is locked": they wait, or after
``lock_timeout`` seconds get :class:`StoreLocked`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

from filelock import FileLock, Timeout

try:
    import fcntl
except ImportError:  # Windows: filelock's own lock
    fcntl = None  # type: ignore[assignment]

from memscribe.errors import InvalidInput, StoreError, StoreFull, StoreLocked, StoreReadOnly

__all__ = ["Database", "private_dir", "private_file", "translate"]

T = TypeVar("T")


class Database:
    """A SQLite file in WAL mode with one connection per thread and serialised write transactions."""

    def __init__(self, path: Path, *, lock_timeout: float = 60.0) -> None:
        self.path = path
        self.lock_timeout = lock_timeout
        self._local = threading.local()
        self._connections: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._registry_lock = threading.Lock()
        self._thread_lock = threading.RLock()
        self._file_lock: FileLock | HeldFileLock = (
            HeldFileLock(Path(str(path) + ".lock"), timeout=lock_timeout)
            if fcntl is not None
            else FileLock(str(path) + ".lock", timeout=lock_timeout, mode=0o600)
        )
        self.read_only = False  # set when the file could only be opened read-only (a read-only directory)

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            with self._registry_lock:
                self._reap()
                self._connections.append((threading.current_thread(), conn))
        return conn

    def _reap(self) -> None:
        """Close the connections of threads that have ended: a background writer thread started per burst of
        adds would otherwise leave one open connection (and its three file descriptors) behind each time."""
        alive = []
        for thread, conn in self._connections:
            if thread.is_alive():
                alive.append((thread, conn))
            else:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
        self._connections = alive

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
            self._in_wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA secure_delete=ON")  # freed pages are zeroed: purge leaves no bytes
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            if not self.path.exists() or not isinstance(translate(exc), StoreReadOnly):
                raise translate(exc) from exc
            return self._open_read_only(exc)
        return conn

    def _in_wal(self, conn: sqlite3.Connection) -> None:
        """Put the store in WAL mode, if another connection has not yet. Changing the mode takes a lock that does
        not wait for a busy connection: two threads opening a new store at once would see "database is locked",
        so the change is retried, and asked first, until ``lock_timeout``."""
        deadline = time.monotonic() + self.lock_timeout
        while str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            try:
                conn.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _open_read_only(self, cause: sqlite3.Error) -> sqlite3.Connection:
        """A store in a directory this process cannot write: WAL mode needs its -shm file, so read the
        file as immutable (nobody can write it either: a writer needs the same directory)."""
        try:
            uri = f"file:{quote(str(self.path.resolve()))}?mode=ro&immutable=1"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            raise translate(cause) from exc
        self.read_only = True
        return conn

    @contextmanager
    def file_lock(self) -> Iterator[None]:
        """The cross-process writer lock alone (migrations, checkpoints); a missing or read-only lock file's
        directory is a read-only store."""
        try:
            self._file_lock.acquire()
        except Timeout as exc:
            raise StoreLocked(f"{self.path} stayed locked for {self.lock_timeout:.0f}s") from exc
        except OSError as exc:
            raise translate(exc) from exc
        try:
            yield
        finally:
            self._file_lock.release()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, serialised across threads and processes; rolled back on any error."""
        with self._thread_lock, self.file_lock():
            try:
                conn = self.connection()
                self._begin(conn)
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise translate(exc) from exc
            except UnicodeEncodeError as exc:  # SQLite stores UTF-8: a lone surrogate cannot be written
                raise _not_unicode(exc) from exc

    def _begin(self, conn: sqlite3.Connection) -> None:
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.005
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.2)

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read on this thread's connection, retrying briefly if a checkpoint holds the file."""
        deadline = time.monotonic() + self.lock_timeout
        while True:
            try:
                return fn(self.connection())
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() > deadline:
                    raise translate(exc) from exc
                time.sleep(0.01)
            except sqlite3.Error as exc:
                raise translate(exc) from exc
            except UnicodeEncodeError as exc:
                raise _not_unicode(exc) from exc

    def close(self) -> None:
        with self._registry_lock:
            for _, conn in self._connections:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._connections.clear()
        self._local = threading.local()
        if isinstance(self._file_lock, HeldFileLock):
            self._file_lock.close()


class HeldFileLock:
    """The cross-process writer lock as ``flock`` on a descriptor kept open, re-entrant within a thread.

    ``filelock.FileLock`` opens, resolves and closes the lock file on every acquire (about 0.5 ms of an add's
    two write transactions); this keeps one descriptor per process, reopened after a fork so that a child never
    shares its parent's lock."""

    def __init__(self, path: Path, *, timeout: float) -> None:
        self.path, self.timeout = path, timeout
        self._fd: int | None = None
        self._pid = 0
        self._depth = 0
        self._lock = threading.RLock()  # threads of this process queue here; other processes on the flock

    def _descriptor(self) -> int:
        if self._fd is None or self._pid != os.getpid():
            self._fd, self._pid = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600), os.getpid()
        return self._fd

    def acquire(self) -> None:
        if not self._lock.acquire(timeout=self.timeout if self.timeout >= 0 else -1):
            raise Timeout(str(self.path))
        if self._depth:
            self._depth += 1
            return
        try:
            self._flock(self._descriptor())
        except BaseException:
            self._lock.release()
            raise
        self._depth = 1

    def _flock(self, fd: int) -> None:
        assert fcntl is not None
        deadline, delay = time.monotonic() + self.timeout, 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise Timeout(str(self.path)) from None
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.05)

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            assert fcntl is not None
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._lock.release()

    def close(self) -> None:
        with self._lock:
            if self._fd is not None and self._depth == 0:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None


def private_dir(path: Path) -> None:
    """Create ``path`` (and missing parents) readable by this user only; an existing directory is kept."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def private_file(path: Path) -> None:
    """Create the database file 0600 in a 0700 directory before SQLite does (its WAL and -shm files take the
    database file's mode), so no other local user can read a memory."""
    if not path.parent.exists():
        private_dir(path.parent)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


def _not_unicode(exc: UnicodeEncodeError) -> InvalidInput:
    return InvalidInput(f"text is not valid Unicode (a lone surrogate at character {exc.start})")


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def translate(exc: BaseException) -> StoreError:
    """Map sqlite3 / OS errors to the store error family."""
    text = str(exc).lower()
    if (isinstance(exc, OSError) and exc.errno == errno.ENOSPC) or "full" in text:
        return StoreFull(f"the disk holding the store is full: {exc}")
    if (isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)) or "readonly" in text:
        return StoreReadOnly(f"the store is not writable: {exc}")
    if "read-only" in text or "unable to open" in text:
        return StoreReadOnly(f"the store cannot be opened for writing: {exc}")
    if _is_busy(exc) if isinstance(exc, sqlite3.OperationalError) else False:
        return StoreLocked(f"the store stayed locked: {exc}")
    if "disk i/o" in text:
        return StoreError(f"store failure: {exc} (the disk may be full, read-only or failing)")
    return StoreError(f"store failure: {exc}")
