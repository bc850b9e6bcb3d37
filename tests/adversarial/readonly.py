"""Run a check against a store directory that is really read-only, root included. As another user the
directory and files are made 0500/0400 (``chmod``); root writes through any mode, so as root they are made
immutable (``chattr``: +i, needs CAP_LINUX_IMMUTABLE) or the check runs as ``nobody`` (``setpriv``). The
check is a subprocess either way, and it first proves it cannot create a file there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["methods", "read_only_home", "run_read_only"]

NOBODY = 65534
PROBE = """import os, sys
try:
    open(os.path.join(os.path.dirname(sys.argv[1]), "probe"), "w")
    print("writable: yes")
except OSError:
    print("writable: no")
"""


def _chattr(home: Path, flag: str) -> bool:
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", "-R", flag, str(home)], capture_output=True, check=False).returncode == 0


def methods() -> list[str]:
    """The ways this machine can make a directory read-only to a process of ours (none: the test skips)."""
    if os.geteuid() != 0:
        return ["chmod"]
    found = []
    with read_only_home() as home:
        if _chattr(home, "+i"):
            _chattr(home, "-i")
            found.append("chattr")
    if shutil.which("setpriv") is not None:
        found.append("setpriv")
    return found


@contextmanager
def read_only_home() -> Iterator[Path]:
    """A fresh store directory that ``nobody`` can reach (its parent is 0711; pytest's tmp_path is 0700)."""
    base = Path(tempfile.mkdtemp(prefix="memscribe-ro-"))
    base.chmod(0o711)
    try:
        (base / "home").mkdir(mode=0o700)
        yield base / "home"
    finally:
        _chattr(base, "-i") if os.geteuid() == 0 else None
        shutil.rmtree(base, ignore_errors=True)


def _modes(home: Path, owner: int | None, locked: bool) -> None:
    paths = [home, *home.rglob("*")]
    for p in reversed(paths) if locked else paths:
        if owner is not None:
            os.chown(p, owner, owner)
        p.chmod((0o500 if p.is_dir() else 0o400) if locked else (0o700 if p.is_dir() else 0o600))


@contextmanager
def _locked(home: Path, method: str) -> Iterator[list[str]]:
    """Yields the command prefix the check runs under."""
    if method == "chattr":
        assert _chattr(home, "+i")
        try:
            yield []
        finally:
            _chattr(home, "-i")
        return
    setpriv = method == "setpriv"
    _modes(home, NOBODY if setpriv else None, locked=True)
    try:
        yield ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if setpriv else []
    finally:
        _modes(home, os.geteuid() if setpriv else None, locked=False)


def run_read_only(home: Path, method: str, script: str, store: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``sys.argv[1] == store`` while ``home`` is read-only to it, after the probe."""
    env = {**os.environ, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    with _locked(home, method) as prefix:
        cmd = [*prefix, sys.executable, "-c", PROBE + script, str(store)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=False)
