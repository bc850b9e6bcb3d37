"""mem0 2.x call shapes on the SDK, and a relevance score that threshold code can use."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memscribe import AsyncMemory, InvalidInput, Memory, ScopeError
from memscribe.engine.reading import relevance, term_coverage


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    m = Memory(tmp_path / "m.db", writer="raw", embedder="hash")
    m.add("I live in Lisbon with my partner.", user_id="ana", run_id="chat-1")
    m.add("I play the violin on weekends.", user_id="ana", agent_id="tutor")
    m.add("I live in Oslo.", user_id="ben")
    return m


def test_filters_top_k_and_threshold(memory: Memory) -> None:
    hits = memory.search(query="where do I live", filters={"user_id": "ana"}, top_k=1)["results"]
    assert [h["memory"] for h in hits] == ["I live in Lisbon with my partner."]
    assert memory.search("violin", filters={"AND": [{"user_id": "ana"}, {"agent_id": "tutor"}]})["results"]
    assert memory.search("Lisbon", filters={"user_id": "ana", "run_id": "chat-1"})["results"]
    assert memory.search("Lisbon", filters={"user_id": "ana", "run_id": "other"})["results"] == []
    everything = memory.search("where do I live", user_id="ana")["results"]
    assert all(0.0 <= h["score"] <= 1.0 and h["rank_score"] > 0 for h in everything)
    strict = memory.search("where do I live", user_id="ana", threshold=0.2)["results"]
    assert [h["memory"] for h in strict] == ["I live in Lisbon with my partner."]
    with pytest.raises(InvalidInput, match="disagree"):
        memory.search("x", user_id="ana", filters={"user_id": "ben"})
    with pytest.raises(InvalidInput, match="disagree"):
        memory.search("x", user_id="ana", limit=3, top_k=4)
    with pytest.raises(InvalidInput, match="OR"):
        memory.search("x", filters={"OR": [{"user_id": "ana"}]})
    with pytest.raises(ScopeError, match="filters="):
        memory.search("x")


def test_get_all_history_infer_and_delete_all(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", writer="lite", embedder="hash") as memory:
        stored = memory.add("hi", user_id="cy", infer=False)["results"]
        assert [r["memory"] for r in stored] == ["hi"]  # infer=False keeps the message as it is
        listed = memory.get_all(filters={"user_id": "cy"}, top_k=5)["results"]
        assert [r["id"] for r in listed] == [stored[0]["id"]]
        memory.update(stored[0]["id"], "Cy says hello.")
        history = memory.history(stored[0]["id"])
        assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history] == [
            ("ADD", None, "hi"),
            ("UPDATE", "hi", "Cy says hello."),
        ]
        assert all(h["memory_id"] == stored[0]["id"] and h["is_deleted"] is False for h in history)
        assert memory.delete_all(user_id="cy")["verified"] is True
        assert memory.get_all(filters={"user_id": "cy"})["results"] == []


def test_async_memory_takes_the_same_shapes(tmp_path: Path) -> None:
    async def run() -> list[str]:
        async with AsyncMemory(tmp_path / "a.db", writer="raw", embedder="hash") as memory:
            await memory.add("I collect stamps.", user_id="dee", run_id="r1")
            found = await memory.search(query="stamps", filters={"user_id": "dee"}, top_k=2, threshold=0.1)
            return [h["memory"] for h in found["results"]]

    assert asyncio.run(run()) == ["I collect stamps."]


def test_relevance_is_bounded_and_monotone() -> None:
    assert relevance(None, 0.0) == 0.0 and relevance(1.0, 1.0) == 1.0
    assert relevance(-0.4, 0.0) == 0.0 and relevance(0.3, 0.0) == 0.3
    assert relevance(0.3, 1.0) > relevance(0.3, 0.5) > relevance(0.3, 0.0)
    assert relevance(None, 1.0) == 0.5  # words alone never look like a perfect match
    assert term_coverage("Where does Ana live?", "Ana lives in Lisbon") == 1.0
    assert term_coverage("quantum physics", "Ana lives in Lisbon") == 0.0
