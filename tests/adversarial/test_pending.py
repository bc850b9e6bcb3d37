"""Pending episodes keep the writer they were submitted with, every one is recovered, and retries back off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memscribe import Memory
from memscribe.core.clock import FrozenClock
from memscribe.core.messages import build_episode, parse_messages, parse_scope
from memscribe.stores.ports import MAX_EPISODE_ATTEMPTS
from memscribe.stores.sqlite import SQLiteStore

T0 = datetime(2024, 6, 1, 12, tzinfo=UTC)
FILLER = "ok thanks, sounds good"  # lite stores nothing for it; raw stores it verbatim


def test_another_writers_recovery_writes_with_the_episodes_own_writer(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    raw = Memory(path, writer="raw", embedder="hash", clock=FrozenClock(T0))
    acked = raw.add(FILLER, user_id="u", wait=False)
    raw._background.closing = True  # simulate a process gone before its background writer ran
    raw._background.join()
    raw._core.store.close()
    with Memory(path, writer="lite", embedder="hash", clock=FrozenClock(T0)) as lite:
        assert lite.process_pending() == 1
        found = lite.list(user_id="u")["results"]
    assert [m["memory"] for m in found] == [FILLER]
    assert found[0]["writer"] == "raw"
    assert acked["status"] == "pending"


def test_an_llm_writers_episode_waits_for_a_process_with_that_model(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    scope = parse_scope("u", tenant="default")
    episode = build_episode(parse_messages("I moved to Lyon."), scope, timestamp=T0, source="api", metadata=None,
                            idempotency_key=None)  # fmt: skip
    store.put_episode(episode, writer="pro", model="openai-compatible:some-model")
    store.close()
    with Memory(path, writer="lite", embedder="hash", clock=FrozenClock(T0)) as lite:
        assert lite.process_pending() == 0  # not this process's to write with another writer
        [row] = lite.pending()
        assert (row["writer"], row["model"], row["attempts"]) == ("pro", "openai-compatible:some-model", 0)
        assert lite.stats()["pending_episodes"] == 1
        switched = lite.retry_pending(writer="lite")  # the explicit switch
        assert switched["reset"] == 1 and switched["written"] == 1
        assert lite.pending() == []


def test_recovery_reaches_every_pending_episode(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    scope = parse_scope("u", tenant="default")
    for i in range(1_250):
        episode = build_episode(parse_messages(f"note number {i}"), scope, timestamp=T0, source="api",
                                metadata=None, idempotency_key=None)  # fmt: skip
        store.put_episode(episode, writer="raw")
    store.close()
    with Memory(path, writer="raw", embedder="hash", clock=FrozenClock(T0)) as m:
        m._recover()
        m._background.join()
        assert m.stats()["pending_episodes"] == 0
        assert m.stats()["current"] == 1_250


class _Broken:
    name, version = "raw", "broken"

    def propose(self, *args: object) -> list[object]:
        raise RuntimeError("endpoint down")


def test_failures_back_off_and_give_up_visibly(tmp_path: Path) -> None:
    clock = FrozenClock(T0)
    with Memory(tmp_path / "s.db", writer=_Broken(), embedder="hash", clock=clock) as m:  # type: ignore[arg-type]
        m.add("I live in Lyon", user_id="u", wait=False)
        m._background.join()
        [row] = m.pending()
        assert row["attempts"] == 1 and "endpoint down" in row["error"]
        first_retry = datetime.fromisoformat(row["retry_at"])
        assert first_retry > T0
        assert m._pending.run(due_only=True) == 0 and m.pending()[0]["attempts"] == 1  # not due yet: untouched
        for _ in range(MAX_EPISODE_ATTEMPTS):
            clock.advance(hours=1)
            m._pending.run(due_only=True)
        [row] = m.pending()
        assert row["attempts"] == MAX_EPISODE_ATTEMPTS and row["given_up"]
        assert datetime.fromisoformat(row["retry_at"]) - first_retry > timedelta(seconds=10)  # it backed off
