"""The hybrid writer: the rules write, the model only labels the pairs the rules leave open, code maps labels."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe import AsyncMemory, Memory
from memscribe.core.clock import Clock, FrozenClock
from memscribe.core.records import Episode, MemoryDraft, Operation, OpKind
from memscribe.errors import ProviderTimeout
from memscribe.testing.chat import ScriptedChat
from memscribe.write.llm import HybridWriter
from memscribe.write.ports import CandidateSource, WriteContext

T0 = datetime(2023, 1, 10, 9, tzinfo=UTC)
T1 = datetime(2023, 4, 18, 12, tzinfo=UTC)
SHOPIFY = MemoryDraft("Omar works at Shopify.", subject="omar", slot="omar/employer", value="Shopify")
STRIPE = MemoryDraft("Omar's new manager at Stripe is great.", subject="omar")
SISTER = MemoryDraft("Omar's sister lives in Lyon.", subject="omar's sister")


class FixedRules:
    """Stands in for the lite rules: hands out the operations queued for each episode, in order."""

    name, version = "fixed", "1"

    def __init__(self, *batches: list[Operation]) -> None:
        self.batches = deque(batches)

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        return list(self.batches.popleft())


def add(draft: MemoryDraft) -> list[Operation]:
    return [Operation(OpKind.ADD, "rules", draft)]


@pytest.fixture
def memory_with(tmp_path: Path) -> Iterator[Any]:
    opened: list[Memory] = []

    def make(chat: ScriptedChat, *batches: list[Operation]) -> Memory:
        writer = HybridWriter(chat, lite=FixedRules(add(SHOPIFY), *batches))
        memory = Memory(tmp_path / "h.db", writer=writer, embedder="hash", clock=FrozenClock(T1))
        memory.add("I work at Shopify.", user_id="omar", timestamp=T0)
        opened.append(memory)
        return memory

    yield make
    for memory in opened:
        memory.close()


def current(memory: Memory) -> list[str]:
    return sorted(r["memory"] for r in memory.list(user_id="omar")["results"])


@pytest.mark.parametrize(
    ("label", "event", "kept"),
    [
        ("update", "SUPERSEDE", ["Omar's new manager at Stripe is great."]),
        ("correction", "UPDATE", ["Omar's new manager at Stripe is great."]),
        ("unrelated", "ADD", ["Omar works at Shopify.", "Omar's new manager at Stripe is great."]),
        # "same" for a statement with words the memory lacks does not check out: lite's ADD stands.
        ("same", "ADD", ["Omar works at Shopify.", "Omar's new manager at Stripe is great."]),
    ],
)
def test_each_label_becomes_its_operation(memory_with: Any, label: str, event: str, kept: list[str]) -> None:
    chat = ScriptedChat({"labels": [{"n": 1, "label": label, "value": "Stripe"}]})
    memory = memory_with(chat, add(STRIPE))
    result = memory.add("my new manger at Stripe is great", user_id="omar", timestamp=T1)
    assert [r["event"] for r in result["results"]] == [event]
    assert current(memory) == sorted(kept)
    [call] = chat.calls  # the first add had nothing to ask: no call at all
    assert '1. NEW: "Omar\'s new manager at Stripe is great." | OLD: "Omar works at Shopify."' in call.last_user


@pytest.mark.parametrize("value", [None, "Google", "Shopify"])
def test_a_change_whose_value_does_not_check_out_keeps_the_rules_add(memory_with: Any, value: str | None) -> None:
    chat = ScriptedChat({"labels": [{"n": 1, "label": "update", "value": value}]})
    memory = memory_with(chat, add(STRIPE))
    result = memory.add("my new manger at Stripe is great", user_id="omar", timestamp=T1)
    assert [r["event"] for r in result["results"]] == ["ADD"]
    assert current(memory) == sorted(["Omar works at Shopify.", "Omar's new manager at Stripe is great."])


def test_same_is_taken_only_for_a_statement_that_says_nothing_new(memory_with: Any) -> None:
    chat = ScriptedChat({"labels": [{"n": 1, "label": "same"}]})
    memory = memory_with(chat, add(MemoryDraft("Omar works at Shopify.", subject="omar")))
    result = memory.add("Omar works at Shopify.", user_id="omar", timestamp=T1)
    assert [r["event"] for r in result["results"]] == ["NOOP"]
    assert current(memory) == ["Omar works at Shopify."]


def test_the_model_is_never_asked_about_another_persons_memory(memory_with: Any) -> None:
    chat = ScriptedChat()  # any call would exhaust the script and fail
    memory = memory_with(chat, add(SISTER))
    assert [r["event"] for r in memory.add("my sister lives in Lyon", user_id="omar")["results"]] == ["ADD"]
    assert chat.calls == []


def test_the_schema_only_allows_the_numbers_shown(memory_with: Any) -> None:
    chat = ScriptedChat({"labels": [{"n": 1, "label": "update"}]})
    memory = memory_with(chat, add(STRIPE))
    memory.add("my new manger at Stripe is great", user_id="omar", timestamp=T1)
    items = chat.calls[0].schema["properties"]["labels"]["items"]["properties"]
    assert items["n"]["enum"] == [1] and set(items["label"]["enum"]) == {"same", "update", "correction", "unrelated"}


@pytest.mark.parametrize("bad", ["not json at all", {"labels": [{"n": 9, "label": "update"}]}])
def test_unusable_labels_keep_the_rules_decision_and_say_why(memory_with: Any, bad: Any) -> None:
    chat = ScriptedChat(bad, bad)
    memory = memory_with(chat, add(STRIPE))
    result = memory.add("my new manger at Stripe is great", user_id="omar", timestamp=T1)
    assert [r["event"] for r in result["results"]] == ["ADD"]
    assert "labels were unusable" in result["rejected"][0]["reason"]
    assert len(chat.calls) == 2


def test_a_provider_error_keeps_the_episode_pending(memory_with: Any) -> None:
    chat = ScriptedChat(ProviderTimeout("down"))
    memory = memory_with(chat, add(STRIPE), add(STRIPE))
    with pytest.raises(ProviderTimeout):
        memory.add("my new manger at Stripe is great", user_id="omar", timestamp=T1)
    chat.push({"labels": [{"n": 1, "label": "update", "value": "Stripe"}]})
    assert memory.process_pending() == 1
    assert current(memory) == ["Omar's new manager at Stripe is great."]


def test_async_labels_the_same_way(tmp_path: Path) -> None:
    chat = ScriptedChat({"labels": [{"n": 1, "label": "update", "value": "Stripe"}]})

    async def run() -> list[str]:
        writer = HybridWriter(chat, lite=FixedRules(add(SHOPIFY), add(STRIPE)))
        memory = AsyncMemory(tmp_path / "a.db", writer=writer, embedder="hash", clock=FrozenClock(T1))
        try:
            await memory.add("I work at Shopify.", user_id="omar", timestamp=T0)
            await memory.add("my new manger at Stripe is great", user_id="omar", timestamp=T1)
            return [r["memory"] for r in (await memory.list(user_id="omar"))["results"]]
        finally:
            await memory.close()

    assert asyncio.run(run()) == ["Omar's new manager at Stripe is great."]


def test_with_the_real_rules_a_call_is_made_only_when_something_is_open(tmp_path: Path) -> None:
    chat = ScriptedChat(*([{"labels": []}] * 10))
    writer = HybridWriter(chat)
    with Memory(tmp_path / "r.db", writer=writer, embedder="hash", clock=FrozenClock(T1)) as memory:
        first = memory.add("I live in Seattle and I work at Microsoft.", user_id="u", timestamp=T0)
        assert first["results"] and chat.calls == []  # nothing stored yet: nothing to ask
        memory.add("thanks, that was helpful!", user_id="u", timestamp=T1)
        assert len(chat.calls) <= 1
    assert writer.stats.calls == len(chat.calls)
