from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import settings

from memscribe import Memory
from memscribe.core.clock import FrozenClock

# The suite runs the same generated cases every time (and keeps no example database), so a red run is
# reproducible; `HYPOTHESIS_PROFILE=explore` searches afresh.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime(2024, 6, 1, 12, 0, tzinfo=UTC))


@pytest.fixture
def mem(tmp_path: Path, clock: FrozenClock) -> Iterator[Memory]:
    m = Memory(tmp_path / "store.db", writer="raw", embedder="hash", clock=clock)
    yield m
    m.close()


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSCRIBE_HOME", str(tmp_path / "home"))


from mariadb.server import mysql_server  # noqa: E402, F401  (the throwaway MariaDB server, tests/mariadb)
from postgres.fixtures import pg_cluster  # noqa: E402, F401  (the throwaway PostgreSQL server, tests/postgres)
