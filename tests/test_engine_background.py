"""Adds acknowledged with ``wait=False``: written in the background in batches, and every read through the
same Memory waits for them (read-your-writes)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memscribe import Memory
from memscribe.core.clock import FrozenClock
from memscribe.testing import HashEmbedder

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

T0 = datetime(2024, 1, 1, tzinfo=UTC)


class GatedEmbedder(HashEmbedder):
    """Counts its calls and texts; holds every call until ``gate`` is set, so adds pile up meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []
        self.gate = threading.Event()

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.gate.wait(timeout=10)
        self.calls.append(len(texts))
        return super().embed(texts)


def test_a_search_right_after_wait_false_adds_sees_every_one(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    texts = [f"I keep bee hive number {i} on the roof" for i in range(12)]
    with Memory(tmp_path / "s.db", writer="raw", embedder=embedder, clock=FrozenClock(T0)) as m:
        acked = [m.add(t, user_id="u", wait=False) for t in texts]
        assert {a["status"] for a in acked} == {"pending"}
        embedder.gate.set()
        found = {h["memory"] for h in m.search("bee hive", user_id="u", limit=20)["results"]}
        assert found == set(texts)
        assert m.stats(user_id="u")["pending_episodes"] == 0
    # Written in batches: fewer model calls than episodes (one per background pass, plus the query's).
    assert len(embedder.calls) < len(texts)
    assert sum(embedder.calls) >= len(texts)


def test_a_wait_true_add_and_a_purge_come_after_earlier_wait_false_ones(tmp_path: Path) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder="hash", clock=FrozenClock(T0)) as m:
        m.add("My locker code is on a sticky note", user_id="u", timestamp="2024-01-01T10:00:00Z", wait=False)
        out = m.add("My locker code is on a sticky note", user_id="u", timestamp="2024-01-02T10:00:00Z")
        assert [r["event"] for r in out["results"]] == ["NOOP"]  # the earlier one was written first
        m.add("I parked on level four", user_id="u", wait=False)
        report = m.purge("u")
        assert report["verified"] and m.list(user_id="u")["results"] == []


def test_wait_false_episodes_left_at_close_are_written_by_close(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    m = Memory(path, writer="raw", embedder="hash", clock=FrozenClock(T0))
    for i in range(5):
        m.add(f"note {i} about the garden shed", user_id="u", wait=False)
    m.close()
    with Memory(path, writer="raw", embedder="hash", clock=FrozenClock(T0)) as again:
        assert len(again.list(user_id="u")["results"]) == 5
        assert again.pending() == []


def test_a_read_waits_for_its_own_acknowledged_adds_not_for_a_stream_of_later_ones(tmp_path: Path) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder="hash", clock=FrozenClock(T0)) as m:
        stop = threading.Event()

        def stream() -> None:
            i = 0
            while not stop.is_set() and i < 2_000:
                m.add(f"background note {i}", user_id="other", timestamp=f"2024-01-01T00:00:{i % 60:02d}Z", wait=False)
                i += 1

        writer = threading.Thread(target=stream)
        writer.start()
        try:
            m.add("The spare key is under the blue flowerpot", user_id="u", wait=False)
            hits = m.search("spare key flowerpot", user_id="u")["results"]
        finally:
            stop.set()
            writer.join()
        assert hits and hits[0]["memory"] == "The spare key is under the blue flowerpot"


class DownEmbedder(HashEmbedder):
    def embed(self, texts: Sequence[str]) -> Vectors:
        from memscribe.errors import ProviderError

        raise ProviderError("embedding endpoint down")


def test_a_failing_model_in_the_background_fails_the_episode_visibly_and_never_hangs_a_read(tmp_path: Path) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder=DownEmbedder(), clock=FrozenClock(T0)) as m:
        for i in range(3):
            m.add(f"note {i} that cannot be embedded", user_id="u", wait=False)
        assert m.list(user_id="u")["results"] == []  # returns: the episodes failed, recorded on them
        rows = m.pending()
        assert len(rows) == 3 and all(r["attempts"] == 1 and "endpoint down" in r["error"] for r in rows)
