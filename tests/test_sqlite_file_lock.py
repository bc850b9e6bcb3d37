"""The SQLite store's cross-process writer lock: held on one descriptor, re-entrant, exclusive across
processes, released for others when the holder lets go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memscribe.stores.sqlite.db import HeldFileLock

fcntl = pytest.importorskip("fcntl")

PROBE = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("free")
except BlockingIOError:
    print("held")
"""


def _other_process_sees(path: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True).stdout.strip()


def test_the_lock_is_reentrant_and_excludes_other_processes(tmp_path: Path) -> None:
    path = tmp_path / "s.db.lock"
    lock = HeldFileLock(path, timeout=5)
    lock.acquire()
    lock.acquire()  # a write inside a migration's lock: the same thread takes it again
    assert _other_process_sees(path) == "held"
    lock.release()
    assert _other_process_sees(path) == "held"  # still held by the outer acquire
    lock.release()
    assert _other_process_sees(path) == "free"
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    lock.close()
