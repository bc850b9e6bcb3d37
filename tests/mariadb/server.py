"""A throwaway MariaDB (or MySQL) server for tests: ``mariadb-install-db`` in a temporary directory, a free
port on 127.0.0.1, a ``memscribe`` user with rights on ``memscribe%`` databases only. Runs as root with
``--user=root`` where the tests run as root (CI), else as the calling user.

Used by the ``mysql`` fixture (tests/contract) and runnable on its own for development:
``python tests/mariadb/server.py`` prints a URL and keeps the server up until interrupted.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["MariaDB", "missing_reason", "mysql_server"]

_NUMBERS = itertools.count()
PASSWORD = "memscribe-test"


def _binary(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}",) if Path(p).exists()), None)
        if found:
            return found
    return None


def missing_reason() -> str | None:
    if importlib.util.find_spec("pymysql") is None:
        return "the mysql extra is not installed: pip install -e '.[mysql]'"
    if _binary("mariadbd", "mysqld") is None or _binary("mariadb-install-db", "mysql_install_db") is None:
        return "MariaDB's server is not installed: apt-get install mariadb-server"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MariaDB:
    """One server; :meth:`create_database` hands each store a fresh database."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="memscribe-mysql-"))
        self.data = self.dir / "data"
        self.socket = self.dir / "sock"
        self.port = _free_port()
        self.user = ["--user=root"] if os.geteuid() == 0 else []
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> MariaDB:
        install = _binary("mariadb-install-db", "mysql_install_db")
        subprocess.run([install, "--no-defaults", f"--datadir={self.data}", *self.user, "--skip-test-db",
                        "--auth-root-authentication-method=normal", "--innodb-flush-log-at-trx-commit=0"],
                       check=True, capture_output=True)  # fmt: skip
        server = _binary("mariadbd", "mysqld")
        self.process = subprocess.Popen(
            [server, "--no-defaults", f"--datadir={self.data}", *self.user, f"--port={self.port}",
             "--bind-address=127.0.0.1", f"--socket={self.socket}", "--skip-name-resolve",
             "--innodb-flush-log-at-trx-commit=0", "--innodb-buffer-pool-size=32M",
             f"--log-error={self.dir / 'server.log'}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while self.sql("SELECT 1", check=False).returncode != 0:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"MariaDB did not start: {(self.dir / 'server.log').read_text()[-2000:]}")
            time.sleep(0.5)
        self.sql(f"CREATE USER memscribe@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'; "
                 "GRANT ALL ON `memscribe%`.* TO memscribe@'127.0.0.1'")  # fmt: skip
        return self

    def sql(self, statement: str, *, check: bool = True) -> subprocess.CompletedProcess[str]:
        client = _binary("mariadb", "mysql") or "mariadb"
        return subprocess.run([client, f"--socket={self.socket}", "-uroot", "-N", "-e", statement],
                              capture_output=True, text=True, check=check)  # fmt: skip

    def create_database(self) -> str:
        name = f"memscribe_t{next(_NUMBERS)}_{os.getpid()}"
        self.sql(f"CREATE DATABASE {name}")
        return f"mysql://memscribe:{PASSWORD}@127.0.0.1:{self.port}/{name}"

    def database_files(self, url: str) -> list[Path]:
        """The files of one database's tables (not the server's redo and undo logs), their dirty pages first
        written out (``FOR EXPORT`` flushes InnoDB's buffer pool pages of the table to its file)."""
        name = url.rsplit("/", 1)[1]
        self.sql(f"FLUSH TABLES {name}.journal FOR EXPORT; UNLOCK TABLES")
        return sorted(p for p in (self.data / name).iterdir() if p.is_file())

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=60)
            if self.process.poll() is None:
                self.process.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def mysql_server() -> Iterator[MariaDB]:
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    server = MariaDB().start()
    try:
        yield server
    finally:
        server.stop()


if __name__ == "__main__":
    reason = missing_reason()
    if reason:
        raise SystemExit(reason)
    running = MariaDB().start()
    print(running.create_database(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
        sys.exit(0)
