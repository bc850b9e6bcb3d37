"""Failure handling: one repair round for unusable output, then the lite rules write the chunk (the episode is
done, the reason comes back in the add result); provider failures propagate and keep the episode pending
with its error until the model answers again."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe import AsyncMemory, Memory
from memscribe.core.clock import FrozenClock
from memscribe.errors import ProviderError, ProviderTimeout, RateLimited
from memscribe.providers.openai_compat import OpenAICompatChat, RetryPolicy
from memscribe.testing.chat import ScriptedChat
from memscribe.testing.fake_openai import Behaviour, FakeOpenAIServer
from memscribe.write.llm import ProWriter

T1 = datetime(2023, 6, 3, 10, tzinfo=UTC)
GOOD = {"operations": [{"op": "ADD", "reason": "home", "text": "The user lives in Lyon.", "subject": "user"}]}
NO_WAIT = RetryPolicy(max_retries=1, base_delay=0.0, sleep=lambda s: None)


def store(tmp_path: Path, chat: Any) -> Memory:
    return Memory(tmp_path / "pro.db", writer=ProWriter(chat, always_ask=True), embedder="hash", clock=FrozenClock(T1))


def add(memory: Memory) -> dict[str, Any]:
    return memory.add([{"role": "user", "content": "I live in Lyon."}], user_id="u", timestamp=T1)


def pending(memory: Memory) -> int:
    return len(memory._core.store.pending_episodes(limit=10))


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def test_malformed_output_is_repaired_once(tmp_path: Path) -> None:
    chat = ScriptedChat("I think the user lives in Lyon!", GOOD)
    with store(tmp_path, chat) as memory:
        assert [r["event"] for r in add(memory)["results"]] == ["ADD"]
    repair = chat.calls[1].messages
    assert repair[-2] == {"role": "assistant", "content": "I think the user lives in Lyon!"}
    assert "no readable JSON" in repair[-1]["content"]


def test_fenced_output_parses_without_a_repair(tmp_path: Path) -> None:
    chat = ScriptedChat(
        'Sure:\n```json\n{"operations": [{"op": "ADD", "reason": "r", "text": "The user lives in Lyon."}]}\n```'
    )
    with store(tmp_path, chat) as memory:
        assert [r["event"] for r in add(memory)["results"]] == ["ADD"]
    assert len(chat.calls) == 1


def test_output_unusable_twice_falls_back_to_the_rules_and_says_why(tmp_path: Path) -> None:
    chat = ScriptedChat({"operations": [{"op": "MERGE", "reason": "?"}]}, "still not json")
    with store(tmp_path, chat) as memory:
        result = add(memory)
        assert pending(memory) == 0  # bad output is not a reason to keep the episode pending
        assert [r["event"] for r in result["results"]] == ["ADD"]
        assert any("unusable" in r["reason"] for r in result["rejected"])
        assert "Lyon" in memory.search("where does the user live", user_id="u")["results"][0]["memory"]
    assert len(chat.calls) == 2  # the first answer and one repair, no more


def test_every_operation_refused_still_keeps_what_was_said(tmp_path: Path) -> None:
    invented = {"operations": [{"op": "UPDATE", "target": 7, "reason": "guess", "text": "The user lives in Lyon."}]}
    with store(tmp_path, ScriptedChat(invented)) as memory:
        result = add(memory)
        assert [r["event"] for r in result["results"]] == ["ADD"]
        assert any("unknown memory number" in r["reason"] for r in result["rejected"])
        assert "Lyon" in memory.list(user_id="u")["results"][0]["memory"]


def test_an_empty_answer_comes_back_with_a_reason_and_the_rules_new_facts(tmp_path: Path) -> None:
    empty = {"operations": []}
    with store(tmp_path, ScriptedChat(empty, empty)) as memory:
        result = add(memory)
        assert "proposed no operations" in result["rejected"][0]["reason"]
        assert [r["event"] for r in result["results"]] == ["ADD"] and "Lyon" in result["results"][0]["memory"]
        small_talk = memory.add("thanks, that was helpful!", user_id="u", timestamp=T1)
        assert small_talk["results"] == [] and "proposed no operations" in small_talk["rejected"][0]["reason"]


def test_repair_is_bounded_in_tokens_and_time(tmp_path: Path, server: FakeOpenAIServer) -> None:
    from memscribe.write.llm.driver import RepairBudget

    server.push(Behaviour.truncated(GOOD), Behaviour.truncated(GOOD))
    chat = OpenAICompatChat("m", base_url=server.base_url, retry=NO_WAIT)
    writer = ProWriter(chat, max_tokens=800, repair=RepairBudget(max_tokens=1000), always_ask=True)
    with Memory(tmp_path / "b.db", writer=writer, embedder="hash", clock=FrozenClock(T1)) as memory:
        add(memory)
    assert [r["max_tokens"] for r in server.chat_requests] == [800, 1000]  # doubled, then capped
    slow = ScriptedChat("not json", GOOD)
    timed = ProWriter(
        slow, repair=RepairBudget(after_ms=0.0), always_ask=True
    )  # any first call is "too slow" to repair
    with Memory(tmp_path / "c.db", writer=timed, embedder="hash", clock=FrozenClock(T1)) as memory:
        assert "too long to ask again" in add(memory)["rejected"][0]["reason"]
    assert len(slow.calls) == 1


def test_model_down_then_up(tmp_path: Path) -> None:
    chat = ScriptedChat(ProviderError("connection refused"), RateLimited("slow down"), GOOD)
    with store(tmp_path, chat) as memory:
        with pytest.raises(ProviderError):
            add(memory)
        assert memory.process_pending() == 0 and pending(memory) == 1  # still down: kept, error recorded
        assert memory.process_pending() == 1 and pending(memory) == 0


def test_truncated_output_is_retried_with_more_room(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push(Behaviour.truncated(GOOD), Behaviour.json(GOOD))
    chat = OpenAICompatChat("m", base_url=server.base_url, retry=NO_WAIT)
    with store(tmp_path, chat) as memory:
        assert [r["event"] for r in add(memory)["results"]] == ["ADD"]
    first, second = server.chat_requests
    assert second["max_tokens"] == 2 * first["max_tokens"]


@pytest.mark.parametrize("status", [429, 500])
def test_http_errors_exhausted_then_recovered(tmp_path: Path, server: FakeOpenAIServer, status: int) -> None:
    server.push(Behaviour.error(status, retry_after=0), Behaviour.error(status, retry_after=0))
    chat = OpenAICompatChat("m", base_url=server.base_url, retry=NO_WAIT)
    with store(tmp_path, chat) as memory:
        with pytest.raises(RateLimited if status == 429 else ProviderError):
            add(memory)
        assert pending(memory) == 1
        server.push(Behaviour.json(GOOD))
        assert memory.process_pending() == 1
        assert [r["memory"] for r in memory.list(user_id="u")["results"]] == ["I live in Lyon."]


def test_timeout_keeps_the_episode_pending(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push(Behaviour.slow(3.0))
    chat = OpenAICompatChat("m", base_url=server.base_url, timeout=0.3, retry=NO_WAIT)
    with store(tmp_path, chat) as memory:
        with pytest.raises(ProviderTimeout):
            add(memory)
        assert pending(memory) == 1


def test_async_add_shares_the_failure_handling(tmp_path: Path) -> None:
    chat = ScriptedChat("nope", "still nope")

    async def run() -> tuple[dict[str, Any], list[str]]:
        memory = AsyncMemory(
            tmp_path / "a.db", writer=ProWriter(chat, always_ask=True), embedder="hash", clock=FrozenClock(T1)
        )
        try:
            result = await memory.add([{"role": "user", "content": "I live in Lyon."}], user_id="u", timestamp=T1)
            return result, [r["memory"] for r in (await memory.list(user_id="u"))["results"]]
        finally:
            await memory.close()

    result, memories = asyncio.run(run())
    assert any("unusable" in r["reason"] for r in result["rejected"])
    assert len(memories) == 1 and "Lyon" in memories[0]


def test_a_delete_nobody_asked_for_is_refused(tmp_path: Path) -> None:
    delete = {"operations": [{"op": "DELETE", "target": 1, "reason": "outdated"}]}
    chat = ScriptedChat(GOOD, delete, delete)
    with store(tmp_path, chat) as memory:
        add(memory)
        said = memory.add("I really like Lyon in spring.", user_id="u", timestamp=T1)
        assert any("no forget request" in r["reason"] for r in said["rejected"])
        assert len(memory.list(user_id="u")["results"]) >= 1
        asked = memory.add("Please forget where I live.", user_id="u", timestamp=T1)
        assert "DELETE" in [r["event"] for r in asked["results"]]
