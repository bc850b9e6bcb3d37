"""The pro writer refuses what the engine would refuse, with reasons: engine-visible violations are forwarded
so the plan journals them as rejected; writer-only ones (unknown alias, bad date) are kept on the result."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe import Memory
from memscribe.core.clock import FrozenClock
from memscribe.core.records import JournalEntry
from memscribe.engine import writing
from memscribe.testing.chat import ScriptedChat
from memscribe.write.llm import ProposedOps, ProWriter
from memscribe.write.ports import WriteContext

T0 = datetime(2023, 6, 1, 10, tzinfo=UTC)
T1 = datetime(2023, 6, 3, 10, tzinfo=UTC)
SEATTLE = {
    "op": "ADD", "reason": "home", "text": "Caroline lives in Seattle.", "subject": "caroline",
    "slot": "caroline/residence", "value": "Seattle",
}  # fmt: skip


@pytest.fixture
def chat() -> ScriptedChat:
    return ScriptedChat({"operations": [SEATTLE]})


@pytest.fixture
def pro(tmp_path: Path, chat: ScriptedChat) -> Iterator[Memory]:
    # No lite fallback here: these tests look at the refusals themselves (tests/test_pro_failures.py covers it).
    writer = ProWriter(chat, fallback=False)
    memory = Memory(tmp_path / "pro.db", writer=writer, embedder="hash", clock=FrozenClock(T1))
    memory.add([{"role": "user", "name": "Caroline", "content": "I live in Seattle."}], user_id="u", timestamp=T0)
    yield memory
    memory.close()


def propose(memory: Memory, text: str) -> tuple[ProposedOps, list[JournalEntry], dict[str, Any]]:
    """Run the writer directly (to see its rejections), then commit through the engine like add() does."""
    core = memory._core
    episode = writing.prepare_episode(core, [{"role": "user", "name": "Caroline", "content": text}], user_id="u",
                                      timestamp=T1)  # fmt: skip
    core.store.put_episode(episode)
    cache, now, candidates = writing.propose_prepare(core, episode)
    ops = core.writer.propose(episode, candidates, WriteContext(), core.clock)
    assert isinstance(ops, ProposedOps)
    result = writing.commit_ops(core, episode, (ops, cache, now))
    return ops, core.store.journal(("default", "u"), episode_id=episode.id), result


def supersede(**fields: Any) -> dict[str, Any]:
    base = {"op": "SUPERSEDE", "target": 1, "reason": "moved", "text": "Caroline lives in Sydney.",
            "subject": "caroline", "owner": "user"}  # fmt: skip
    return {"operations": [{**base, **fields}]}


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"valid_from": "2023-01-01"}, "older statement cannot supersede"),
        ({"subject": "caroline's brother"}, "subject"),
        ({"owner": "agent"}, "owner"),
        ({"valid_from": "2023-06-03", "valid_to": "2023-06-01"}, "valid_to is before valid_from"),
        ({"text": ""}, "needs a memory text"),
    ],
)
def test_engine_visible_violations_are_rejected_and_journaled(
    pro: Memory, chat: ScriptedChat, fields: dict[str, Any], why: str
) -> None:
    chat.push(supersede(**fields))
    ops, journal, result = propose(pro, "I moved to Sydney.")
    assert [r.journaled for r in ops.rejections] == [True] and why in ops.rejections[0].why
    assert result["results"] == []
    assert [(e.accepted, e.kind.value) for e in journal] == [(False, "SUPERSEDE")]
    assert why.split()[0] in journal[0].reason and "moved" in journal[0].reason
    assert [r["memory"] for r in pro.list(user_id="u")["results"]] == ["Caroline lives in Seattle."]


def test_a_target_closed_earlier_in_the_answer_is_rejected(pro: Memory, chat: ScriptedChat) -> None:
    twice = supersede()["operations"] * 2
    chat.push({"operations": twice})
    ops, journal, result = propose(pro, "I moved to Sydney.")
    assert [e["event"] for e in result["results"]] == ["SUPERSEDE"]
    assert "already closed" in ops.rejections[0].why
    assert [e.accepted for e in journal] == [True, False]


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"target": 7}, "unknown memory number 7"),
        ({"valid_from": "last Tuesday"}, "unparseable date"),
        ({"valid_to": "2023-13-45"}, "unparseable date"),
    ],
)
def test_writer_only_rejections_emit_nothing_but_stay_visible(
    pro: Memory, chat: ScriptedChat, fields: dict[str, Any], why: str
) -> None:
    chat.push(supersede(**fields))
    ops, journal, result = propose(pro, "I moved to Sydney.")
    assert list(ops) == [] and result["results"] == []
    [rejection] = ops.rejections
    assert why in rejection.why and rejection.model_reason == "moved" and not rejection.journaled
    assert rejection.operation.kind.value == "SUPERSEDE" and rejection.operation.target is None
    [entry] = journal  # the writer's own refusal reaches the journal as rejected, with its reason
    assert not entry.accepted and entry.reason.startswith("rejected by writer:") and why in entry.reason


def test_good_operations_survive_next_to_rejected_ones(pro: Memory, chat: ScriptedChat) -> None:
    dog = {"op": "ADD", "reason": "pet", "text": "Caroline has a dog named Max.", "subject": "caroline"}
    chat.push({"operations": [*supersede(target=42)["operations"], dog]})
    ops, _, result = propose(pro, "I moved to Sydney and got a dog named Max.")
    assert [r["event"] for r in result["results"]] == ["ADD"]
    assert len(ops.rejections) == 1 and pro._core.writer.stats.rejections == 1  # type: ignore[attr-defined]


def test_secrets_in_model_output_are_redacted(pro: Memory, chat: ScriptedChat) -> None:
    leak = {
        "op": "ADD",
        "reason": "x",
        "text": "Caroline's API key is sk-abcdefghijklmnopqrstuvwx.",
        "subject": "caroline",
    }
    chat.push({"operations": [leak]})
    ops, _, _ = propose(pro, "I got a new key.")
    assert ops[0].draft is not None and "sk-abc" not in ops[0].draft.text
