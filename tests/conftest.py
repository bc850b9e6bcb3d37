from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.core.clock import FrozenClock


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
