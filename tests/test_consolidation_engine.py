"""Consolidation as the engine runs it: on demand, and scheduled in the background after N new facts."""

from __future__ import annotations

import time
from pathlib import Path

from memscribe import Memory, MemoryConfig
from memscribe.core.clock import FrozenClock


def _texts(m: Memory, user: str) -> list[str]:
    return sorted(r["memory"] for r in m.list(user_id=user)["results"])


def test_consolidate_on_demand_merges_duplicates_and_journals_it(tmp_path: Path, clock: FrozenClock) -> None:
    m = Memory(tmp_path / "c.db", writer="raw", embedder="hash", clock=clock)
    m.add("I really love hiking in the Alps every summer", user_id="u")
    clock.advance(days=1)
    m.add("I really love hiking in the Alps every summer!", user_id="u")  # near-identical: raw keeps both
    assert len(_texts(m, "u")) == 2
    result = m.consolidate(user_id="u")
    assert [r["event"] for r in result["results"]].count("DELETE") == 1
    assert len(_texts(m, "u")) == 1
    gone = next(r for r in m.list(user_id="u", include_history=True)["results"] if r["status"] == "deleted")
    ops = m.why(gone["id"])["operations"]
    assert ops[-1]["kind"] == "DELETE" and ops[-1]["writer"] == "consolidate" and ops[-1]["reason"]
    m.close()


def test_background_consolidation_runs_after_n_facts_without_blocking_add(tmp_path: Path) -> None:
    config = MemoryConfig(writer="raw", embedder="hash", consolidation=True, consolidate_every=2)
    m = Memory(tmp_path / "b.db", config=config)
    m.add("My favourite band is Radiohead and I see them live", user_id="u")
    m.add("My favourite band is Radiohead and I see them live.", user_id="u")  # the second new fact: due
    deadline = time.monotonic() + 20
    while len(_texts(m, "u")) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    m.close()  # joins the background run
    assert len(_texts(Memory(tmp_path / "b.db", writer="raw", embedder="hash"), "u")) == 1


def test_profile_reads_current_slot_memories(tmp_path: Path, clock: FrozenClock) -> None:
    m = Memory(tmp_path / "p.db", writer="lite", embedder="hash", clock=clock)
    m.add("I live in Seattle.", user_id="u", timestamp="2023-01-10T10:00:00Z")
    m.add("I moved to Sydney last month.", user_id="u", timestamp="2023-06-02T10:00:00Z")
    profile = m.profile(user_id="u")
    residence = profile["user"]["residence"][0]
    assert residence["value"].lower() == "sydney"
    then = m.profile(user_id="u", as_of="2023-03-01T00:00:00Z")
    assert then["user"]["residence"][0]["value"].lower() == "seattle"
    m.close()
