"""A throwaway PostgreSQL cluster for tests: ``initdb`` in a temporary directory, a free port on 127.0.0.1,
run as an unprivileged user (PostgreSQL refuses to run as root). The store connects as ``memscribe``, a role
that is neither a superuser nor able to bypass row-level security, so the tenancy policies are what the
tests see; the ``vector`` and ``unaccent`` extensions are created by the superuser beforehand, as a DBA would.

Used by the ``postgres`` fixtures (tests/postgres, tests/contract) and runnable on its own for development:
``python tests/postgres/cluster.py`` prints a URL and keeps the cluster up until interrupted.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["Cluster", "binaries", "missing_reason"]

_ROOT = "/usr/lib/postgresql"
_NUMBERS = itertools.count()


def binaries() -> Path | None:
    """The newest installed PostgreSQL bin directory (Debian's layout), or whatever ``initdb`` PATH finds."""
    found = sorted(glob.glob(f"{_ROOT}/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    return Path(which).parent if which else None


def missing_reason() -> str | None:
    """Why a cluster cannot be started here (None when it can)."""
    bindir = binaries()
    if bindir is None:
        return "PostgreSQL server binaries (initdb) are not installed: apt-get install postgresql"
    share = subprocess.run([bindir / "pg_config", "--sharedir"], capture_output=True, text=True).stdout.strip()
    if share and not Path(share, "extension", "vector.control").exists():
        return "the pgvector extension is not installed: .ci/install-pgvector"
    if os.geteuid() == 0 and _runner() is None:
        return "running as root and no unprivileged 'postgres' user to run the server as"
    return None


def _runner() -> str | None:
    if os.geteuid() != 0:
        return None
    with contextlib.suppress(KeyError):
        return pwd.getpwnam("postgres").pw_name
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """One PostgreSQL server with a ``memscribe`` database owned by the unprivileged ``memscribe`` role."""

    def __init__(self, *, durable: bool = False) -> None:
        bindir = binaries()
        assert bindir is not None, missing_reason()
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="memscribe-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.user = _runner()
        if self.user:
            shutil.chown(self.dir, self.user)
        self.url = f"postgresql://memscribe@127.0.0.1:{self.port}/memscribe"
        self.admin_url = f"postgresql://postgres@127.0.0.1:{self.port}/memscribe"
        self.durable = durable  # fsync and synchronous commits on (benchmarks); off for tests, which are faster

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(a) for a in argv]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, check=check, cwd=self.dir)

    def start(self) -> Cluster:
        if not self.data.exists():
            self._run(self.bindir / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                      "--locale=C.UTF-8", "--no-sync")  # fmt: skip
            with (self.data / "postgresql.conf").open("a") as conf:
                conf.write(
                    f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.dir}'\n"
                    + ("" if self.durable else "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
                    + "max_connections = 200\n"
                    "shared_buffers = 256MB\nmaintenance_work_mem = 256MB\n"
                )
            self._start_server()
            self._bootstrap()
        else:
            self._start_server()
        return self

    def _start_server(self) -> None:
        self._run(self.bindir / "pg_ctl", "-D", self.data, "-l", self.dir / "server.log", "-w", "-t", "60", "start")

    def _bootstrap(self) -> None:
        psql = [self.bindir / "psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
        psql += ["-v", "ON_ERROR_STOP=1"]
        self._run(*psql, "-d", "postgres", "-c", "CREATE ROLE memscribe LOGIN NOSUPERUSER NOBYPASSRLS CREATEDB")
        self._run(*psql, "-d", "postgres", "-c", "CREATE DATABASE memscribe OWNER memscribe")
        # What a DBA does once: the extensions, and marking tsvector matching leakproof (it is: it reads no
        # row but the one it is given and raises no data-dependent error) so the GIN index serves keyword
        # searches under row-level security instead of a scan of the partition.
        self._run(*psql, "-d", "memscribe", "-c", "CREATE EXTENSION vector; CREATE EXTENSION unaccent; "
                  "ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF")

    def restart(self, *, down_seconds: float = 0.0) -> None:
        """Stop the server the fast way (connections are cut), wait, and start it again."""
        self._run(self.bindir / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        time.sleep(down_seconds)
        self._start_server()

    def psql(self, sql: str, *, database: str = "memscribe") -> str:
        """Run ``sql`` as the superuser; returns psql's unaligned output."""
        out = self._run(self.bindir / "psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d",
                        database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql)  # fmt: skip
        return out.stdout

    def database_files(self, database: str = "memscribe") -> list[Path]:
        """Every file of the database's tables and indexes (not the WAL): what a byte-level check reads."""
        oid = self.psql(f"SELECT oid FROM pg_database WHERE datname = '{database}'").strip()
        return sorted(p for p in (self.data / "base" / oid).iterdir() if p.is_file())

    def create_database(self) -> str:
        """A fresh, empty database (a copy of ``memscribe``: the extensions, no tables); returns its URL."""
        name = f"t{next(_NUMBERS)}_{os.getpid()}"
        self.psql(f"CREATE DATABASE {name} OWNER memscribe TEMPLATE memscribe", database="postgres")
        return self.url.rsplit("/", 1)[0] + "/" + name

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run(self.bindir / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    reason = missing_reason()
    if reason:
        raise SystemExit(reason)
    cluster = Cluster(durable="--durable" in sys.argv).start()
    print(cluster.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
