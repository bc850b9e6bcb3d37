"""The pro writer with a scripted model: every operation kind, related changes, chunking, usage accounting,
language choice and sync/async parity."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe import Memory
from memscribe.core.clock import FrozenClock
from memscribe.core.messages import build_episode, parse_messages
from memscribe.core.records import MemoryRecord, OpKind, Scope
from memscribe.core.text import estimate_tokens
from memscribe.providers.chat import validate_reply
from memscribe.testing.chat import ScriptedChat
from memscribe.write.llm import ProWriter, make_llm_writer, make_pro_writer
from memscribe.write.llm.chunks import cjk_ratio, language_of
from memscribe.write.llm.render import fixed_prompt
from memscribe.write.ports import WriteContext, Writer
from memscribe.write.prompts import pro_en, pro_zh
from memscribe.write.prompts.pro_schema import PRO_SCHEMA

T0 = datetime(2023, 5, 1, 10, tzinfo=UTC)
T1 = datetime(2023, 6, 3, 10, tzinfo=UTC)


def op(kind: str, **fields: Any) -> dict[str, Any]:
    return {"op": kind, "reason": fields.pop("reason", f"because {kind.lower()}"), **fields}


def answer(*ops: dict[str, Any]) -> dict[str, Any]:
    return {"operations": list(ops)}


SEATTLE = op("ADD", text="Caroline lives in Seattle.", subject="caroline", slot="caroline/residence", value="Seattle")
COMMUTE = op("ADD", text="Caroline commutes to the Seattle office.", subject="caroline")


@pytest.fixture
def chat() -> ScriptedChat:
    return ScriptedChat()


@pytest.fixture
def pro(tmp_path: Path, chat: ScriptedChat) -> Iterator[Memory]:
    memory = Memory(tmp_path / "pro.db", writer=ProWriter(chat, lossless=False), embedder="hash", clock=FrozenClock(T1))
    yield memory
    memory.close()


def say(memory: Memory, text: str, when: datetime = T1) -> dict[str, Any]:
    return memory.add([{"role": "user", "name": "Caroline", "content": text}], user_id="u", timestamp=when)


def events(result: dict[str, Any]) -> list[str]:
    return [r["event"] for r in result["results"]]


def current(memory: Memory) -> list[str]:
    return sorted(r["memory"] for r in memory.list(user_id="u")["results"])


def test_add_stores_third_person_memory_with_provenance(pro: Memory, chat: ScriptedChat) -> None:
    chat.push(answer({**SEATTLE, "msgs": [0]}))
    result = say(pro, "I live in Seattle.", T0)
    assert events(result) == ["ADD"]
    row = pro.get(result["results"][0]["id"])
    assert row["memory"] == "Caroline lives in Seattle."
    assert len(chat.calls) == 1


def test_supersede_closes_old_and_related_change_closes_the_commute(pro: Memory, chat: ScriptedChat) -> None:
    chat.push(answer(SEATTLE, COMMUTE))
    say(pro, "I live in Seattle and commute to the office there.", T0)
    related = [op("DELETE", target=2, reason="no longer commutes to Seattle")]
    moved = op(
        "SUPERSEDE", target=1, text="Caroline moved to Sydney on 2 June 2023.", subject="caroline",
        slot="caroline/residence", value="Sydney", valid_from="2023-06-02", related=related,
    )  # fmt: skip
    chat.push(answer(moved))
    result = say(pro, "I moved to Sydney yesterday.")
    assert events(result) == ["SUPERSEDE", "DELETE"]
    assert current(pro) == ["Caroline moved to Sydney on 2 June 2023."]
    prompt = chat.calls[-1].last_user
    assert '"n": 1' in prompt and '"n": 2' in prompt and '"yesterday": "2023-06-02"' in prompt
    history = pro.history(result["results"][0]["supersedes"])
    assert history[-1]["valid_to"].startswith("2023-06-02")


def test_update_refines_the_same_memory(pro: Memory, chat: ScriptedChat) -> None:
    chat.push(answer(op("ADD", text="Caroline graduated in 2018.", subject="caroline")))
    first = say(pro, "I graduated in 2018.", T0)["results"][0]["id"]
    chat.push(answer(op("UPDATE", target=1, text="Caroline graduated in 2017.", reason="corrected year")))
    result = say(pro, "Sorry, I meant 2017, not 2018.")
    assert events(result) == ["UPDATE"] and result["results"][0]["id"] == first
    assert current(pro) == ["Caroline graduated in 2017."]
    assert len(pro.history(first)) == 2  # the old version is kept, not overwritten


def test_delete_and_noop(pro: Memory, chat: ScriptedChat) -> None:
    chat.push(answer(op("ADD", text="Caroline's phone number is 555-0101.", subject="caroline")))
    say(pro, "My phone number is 555-0101.", T0)
    chat.push(answer(op("NOOP", target=1)))
    assert events(say(pro, "My number is 555-0101.")) == ["NOOP"]
    chat.push(answer(op("DELETE", target=1, reason="asked to forget")))
    assert events(say(pro, "Please forget my phone number.")) == ["DELETE"]
    assert current(pro) == []


def test_history_add_with_target(pro: Memory, chat: ScriptedChat) -> None:
    chat.push(answer(op("ADD", text="Caroline lives in Sydney.", subject="caroline")))
    say(pro, "I live in Sydney.")
    older = op("ADD", target=1, text="Caroline lived in Seattle.", subject="caroline", valid_from="2020-01-01",
               valid_to="2023-05-01")  # fmt: skip
    chat.push(answer(older))
    assert events(say(pro, "Back in 2020 I lived in Seattle.")) == ["ADD"]
    assert current(pro) == ["Caroline lives in Sydney."]


def test_every_operation_records_prompt_version_model_and_true_token_sums(pro: Memory, chat: ScriptedChat) -> None:
    chat.push(answer(SEATTLE, COMMUTE, op("ADD", text="Caroline has a dog named Max.", subject="caroline")))
    result = say(pro, "I live in Seattle, commute to the office, and have a dog named Max.", T0)
    entries = pro._core.store.journal(("default", "u"), episode_id=result["episode_id"])
    assert len(entries) == 3
    assert {e.usage.prompt_version for e in entries} == {pro_en.PROMPT_VERSION}
    assert {e.usage.model for e in entries} == {"scripted"}
    assert sum(e.usage.calls for e in entries) == 1
    call = chat.calls[0]
    words = sum(len(str(m["content"]).split()) for m in call.messages)
    assert sum(e.usage.tokens_in for e in entries) == words  # ScriptedChat counts words
    assert all(e.reason for e in entries)


class Empty:
    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        return []

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        return []

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return []


def episode(*texts: str, when: datetime = T1) -> Any:
    messages = parse_messages([{"role": "user", "content": t} for t in texts])
    return build_episode(messages, Scope("u"), timestamp=when, source="api", metadata={}, idempotency_key=None)


def test_long_episodes_are_chunked_one_call_each() -> None:
    chat = ScriptedChat(answer(), answer(), answer())
    writer = ProWriter(chat, max_messages=20, always_ask=True)
    writer.propose(
        episode(*[f"Message number {i} about my day." for i in range(45)]), Empty(), WriteContext(), FrozenClock(T1)
    )
    assert len(chat.calls) == 3
    shown = [call.last_user.count('"i": ') for call in chat.calls]
    assert shown == [20, 20, 5]
    assert '"i": 44' in chat.calls[2].last_user


def test_a_later_chunk_supersedes_a_draft_of_an_earlier_chunk() -> None:
    moved = op("SUPERSEDE", target=1, text="The user lives in Sydney.", subject="user", valid_from="2023-06-03")
    chat = ScriptedChat(answer(op("ADD", text="The user lives in Seattle.", subject="user", valid_from="2023-05-01")),
                        answer(moved))  # fmt: skip
    writer = ProWriter(chat, max_messages=1, lossless=False)
    ops = writer.propose(
        episode("I lived in Seattle.", "Now I live in Sydney."), Empty(), WriteContext(), FrozenClock(T1)
    )
    assert [o.kind for o in ops] == [OpKind.ADD, OpKind.ADD]
    assert ops[0].draft is not None and ops[0].draft.valid_to == T1  # closed when the new one began
    assert ops[1].draft is not None and ops[1].draft.text == "The user lives in Sydney."
    assert '"text": "The user lives in Seattle."' in chat.calls[1].last_user


def test_language_is_chosen_by_cjk_ratio_and_recorded() -> None:
    assert language_of("I moved to Sydney") == "en"
    assert language_of("我上个月搬到了上海,在腾讯工作") == "zh"
    assert cjk_ratio("我在 Google 工作") > 0.2
    chat = ScriptedChat(answer(op("ADD", text="用户住在上海。")), answer(op("ADD", text="The user lives in Lyon.")))
    writer = ProWriter(chat, always_ask=True)
    zh = writer.propose(episode("我上个月搬到了上海。"), Empty(), WriteContext(), FrozenClock(T1))
    en = writer.propose(episode("I live in Lyon."), Empty(), WriteContext(), FrozenClock(T1))
    assert chat.calls[0].messages[0]["content"] == pro_zh.SYSTEM
    assert chat.calls[1].messages[0]["content"] == pro_en.SYSTEM
    assert zh[0].usage.prompt_version == "pro-zh-1" and en[0].usage.prompt_version == "pro-en-1"
    pinned = ProWriter(ScriptedChat(answer()), language="en", always_ask=True)
    pinned.propose(episode("我住在上海。"), Empty(), WriteContext(), FrozenClock(T1))
    assert pinned.stats.calls == 1


def test_sync_and_async_propose_agree() -> None:
    reply = answer(SEATTLE, op("ADD", text="Caroline has a dog.", subject="caroline", msgs=[0]))
    sync_chat, async_chat = ScriptedChat(reply), ScriptedChat(reply)
    ep = episode("I live in Seattle and have a dog.")
    sync_ops = ProWriter(sync_chat, always_ask=True).propose(ep, Empty(), WriteContext(), FrozenClock(T1))
    async_ops = asyncio.run(
        ProWriter(async_chat, always_ask=True).apropose(ep, Empty(), WriteContext(), FrozenClock(T1))
    )

    def shape(ops: list[Any]) -> list[Any]:
        return [(o.kind, o.target, o.draft, o.reason, o.usage.prompt_version, o.usage.tokens_in) for o in ops]

    assert shape(sync_ops) == shape(async_ops)
    assert sync_chat.calls[0].messages == async_chat.calls[0].messages


def test_fixed_prompt_is_small_and_schema_accepts_every_kind() -> None:
    assert estimate_tokens(fixed_prompt("en")) < 800
    assert len(fixed_prompt("zh")) < 1500  # characters; about one token each
    every = answer(*(op(k, target=1, text="x") for k in ("ADD", "UPDATE", "SUPERSEDE", "DELETE", "NOOP")))
    assert validate_reply(every, PRO_SCHEMA) == every


def test_registry_hook_builds_the_writers() -> None:
    chat = ScriptedChat()
    assert make_pro_writer(chat, max_messages=5).max_messages == 5
    for name in ("pro", "mem0-protocol", "hy-protocol"):
        writer = make_llm_writer(name, chat)
        assert isinstance(writer, Writer) and writer.name == name
