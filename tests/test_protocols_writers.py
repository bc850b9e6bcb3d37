"""The mem0-style and Hy-Memory-style protocol adapters: their calls, their mapping onto our operations,
and the invariants and failure handling they share with the pro writer."""

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
from memscribe.core.records import MemoryRecord, Scope
from memscribe.errors import ConfigError, ModelOutputError
from memscribe.testing.chat import ScriptedChat
from memscribe.write.llm import HyMemoryProtocol, Mem0Protocol, ProposedOps, make_llm_writer
from memscribe.write.ports import WriteContext
from memscribe.write.prompts import hy_en, mem0_en

T0 = datetime(2023, 5, 1, 10, tzinfo=UTC)
T1 = datetime(2023, 6, 3, 10, tzinfo=UTC)


def memory(tmp_path: Path, writer: Any) -> Memory:
    return Memory(tmp_path / "p.db", writer=writer, embedder="hash", clock=FrozenClock(T1))


def say(mem: Memory, text: str, when: datetime = T1) -> list[str]:
    result = mem.add([{"role": "user", "content": text}], user_id="u", timestamp=when)
    return [r["event"] for r in result["results"]]


def texts(mem: Memory) -> list[str]:
    return sorted(r["memory"] for r in mem.list(user_id="u")["results"])


@pytest.fixture
def mem0_chat() -> ScriptedChat:
    return ScriptedChat(
        {"facts": ["Lives in Seattle"]}, {"memory": [{"id": None, "text": "Lives in Seattle", "event": "ADD"}]}
    )


@pytest.fixture
def mem0(tmp_path: Path, mem0_chat: ScriptedChat) -> Iterator[Memory]:
    m = memory(tmp_path, Mem0Protocol(mem0_chat))
    say(m, "I live in Seattle.", T0)
    yield m
    m.close()


def test_mem0_two_calls_and_update_overwrites_the_fact(mem0: Memory, mem0_chat: ScriptedChat) -> None:
    mem0_chat.push(
        {"facts": ["Moved to Sydney"]}, {"memory": [{"id": 1, "text": "Lives in Sydney", "event": "UPDATE"}]}
    )
    assert say(mem0, "I moved to Sydney.") == ["UPDATE"]
    assert texts(mem0) == ["Lives in Sydney"]
    assert len(mem0_chat.calls) == 4
    assert '"id": 1' in mem0_chat.calls[3].last_user and "Lives in Seattle" in mem0_chat.calls[3].last_user


def test_mem0_none_delete_and_unknown_ids(mem0: Memory, mem0_chat: ScriptedChat) -> None:
    mem0_chat.push(
        {"facts": ["Lives in Seattle"]}, {"memory": [{"id": 1, "event": "NONE"}, {"id": 9, "event": "DELETE"}]}
    )
    writer = mem0._core.writer
    assert say(mem0, "I live in Seattle.") == ["NOOP"]
    assert writer.stats.rejections == 1  # type: ignore[attr-defined]
    mem0_chat.push({"facts": ["Wants Seattle forgotten"]}, {"memory": [{"id": 1, "event": "DELETE"}]})
    assert say(mem0, "Forget where I live.") == ["DELETE"] and texts(mem0) == []


def test_mem0_nothing_extracted_is_one_call(tmp_path: Path) -> None:
    chat = ScriptedChat({"facts": []})
    with memory(tmp_path, Mem0Protocol(chat)) as m:
        assert say(m, "Hi there!") == []
    assert len(chat.calls) == 1 and chat.calls[0].last_user.startswith(mem0_en.EXTRACT[:20])


def hy_memory(content: str, subject: str = "user") -> dict[str, Any]:
    return {"content": content, "subject": subject, "owner": "user", "tags": ["home"]}


def test_hy_skips_reconcile_without_candidates_then_supersedes(tmp_path: Path) -> None:
    chat = ScriptedChat({"memory": [hy_memory("The user lives in Seattle.")]})
    with memory(tmp_path, HyMemoryProtocol(chat)) as m:
        assert say(m, "I live in Seattle.", T0) == ["ADD"]
        assert len(chat.calls) == 1
        change = {"op": "SUPERSEDE", "memory_id": 1, "content": "The user lives in Sydney.", "subject": "user",
                  "owner": "user", "supersede_reason": "moved"}  # fmt: skip
        chat.push({"memory": [hy_memory("The user moved to Sydney.")]}, {"operations": [change]})
        assert say(m, "I moved to Sydney.") == ["SUPERSEDE"]
        assert texts(m) == ["The user lives in Sydney."]
        entries = m._core.store.journal(("default", "u"))
    assert len(chat.calls) == 3 and '"memory_id": 1' in chat.calls[2].last_user
    assert {e.usage.prompt_version for e in entries} == {hy_en.PROMPT_VERSION}
    assert any(e.reason == "moved" for e in entries)


def test_hy_cross_subject_supersede_is_rejected_and_journaled(tmp_path: Path) -> None:
    chat = ScriptedChat({"memory": [hy_memory("The user lives in Seattle.")]})
    with memory(tmp_path, HyMemoryProtocol(chat)) as m:
        say(m, "I live in Seattle.", T0)
        wrong = {"op": "SUPERSEDE", "memory_id": 1, "content": "The user's brother lives in Denver.",
                 "subject": "user's brother", "reason": "new city"}  # fmt: skip
        chat.push(
            {"memory": [hy_memory("The user's brother lives in Denver.", "user's brother")]}, {"operations": [wrong]}
        )
        assert say(m, "My brother lives in Denver.") == []
        rejected = [e for e in m._core.store.journal(("default", "u")) if not e.accepted]
        assert texts(m) == ["The user lives in Seattle."]
    assert len(rejected) == 1 and "subject" in rejected[0].reason


def test_protocols_repair_once_then_fail_and_run_async(tmp_path: Path) -> None:
    chat = ScriptedChat("not json", "still not json")
    writer = make_llm_writer("hy-protocol", chat)
    with memory(tmp_path, writer) as m, pytest.raises(ModelOutputError):
        say(m, "I live in Seattle.")
    assert len(chat.calls) == 2
    episode_chat = ScriptedChat({"facts": []})
    ops = asyncio.run(_apropose(Mem0Protocol(episode_chat)))
    assert isinstance(ops, ProposedOps) and list(ops) == [] and len(episode_chat.calls) == 1


class Empty:
    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        return []

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        return []

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return []


async def _apropose(writer: Mem0Protocol) -> ProposedOps:
    episode = build_episode(parse_messages("Hello"), Scope("u"), timestamp=T1, source="api", metadata={},
                            idempotency_key=None)  # fmt: skip
    return await writer.apropose(episode, Empty(), WriteContext(), FrozenClock(T1))


def test_unknown_llm_writer_name() -> None:
    with pytest.raises(ConfigError, match="known: hy-protocol, hybrid, mem0-protocol, pro"):
        make_llm_writer("letta", ScriptedChat())
