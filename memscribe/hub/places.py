"""Projects and read-only database access.

A session's project is the canonical git root of the cwd its records name (not the tool's lossy directory
slug). Tools' SQLite databases are live and in WAL mode: they are opened read-only, never checkpointed, and
copied (database, -wal and -shm together) to a private temporary directory when a read-only open fails.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

__all__ = ["git_root", "open_readonly", "project_of"]


@lru_cache(maxsize=4096)
def git_root(cwd: str) -> str | None:
    """The top of the git work tree holding ``cwd`` (a ``.git`` directory or file), resolved; else None."""
    try:
        path = Path(cwd).expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return str(candidate)
    return None


def project_of(cwd: str | None) -> str | None:
    """The scope ``project`` for a recorded cwd: its git root, else the cwd itself as recorded."""
    if not cwd:
        return None
    root = git_root(cwd) or cwd.rstrip("/\\") or cwd
    return root[:256]  # the engine's limit for scope parts


def _connect(path: Path, retries: int) -> sqlite3.Connection | None:
    for attempt in range(retries):
        conn = None
        try:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)
            conn.execute("PRAGMA query_only = 1")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error:  # "disk I/O error" during a writer's checkpoint, or no -shm yet: retry
            if conn is not None:
                conn.close()
            time.sleep(0.05 * (attempt + 1))
    return None


@contextmanager
def open_readonly(path: Path, *, retries: int = 3) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a tool's database that never takes a write lock on it.

    ``mode=ro`` first; if that fails (no -shm, read-only directory, a checkpoint in progress) the three files
    are copied to a private temporary directory and the copy is opened instead.
    """
    conn = _connect(path, retries)
    if conn is not None:
        try:
            yield conn
        finally:
            conn.close()
        return
    with tempfile.TemporaryDirectory(prefix="memscribe-hub-") as tmp:
        os.chmod(tmp, 0o700)
        copy = Path(tmp) / path.name
        for suffix in ("", "-wal", "-shm"):
            src = Path(f"{path}{suffix}")
            if src.exists():
                shutil.copyfile(src, f"{copy}{suffix}")
        conn = sqlite3.connect(str(copy), timeout=2.0)
        try:
            yield conn
        finally:
            conn.close()
