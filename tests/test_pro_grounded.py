"""The pro writer on the lossless base: the rules' memories stay, a model operation counts only when it checks out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe import Memory
from memscribe.core.clock import FrozenClock
from memscribe.testing.chat import ScriptedChat
from memscribe.write.llm import ProWriter
from memscribe.write.llm.grounded import grounded_in, replaceable, same_topic

T0 = datetime(2023, 5, 1, 10, tzinfo=UTC)
T1 = datetime(2023, 6, 3, 10, tzinfo=UTC)
NOTHING: dict[str, Any] = {"operations": []}


def op(kind: str, **fields: Any) -> dict[str, Any]:
    return {"op": kind, "reason": f"because {kind.lower()}", **fields}


@pytest.fixture
def chat() -> ScriptedChat:
    return ScriptedChat()


@pytest.fixture
def memory(tmp_path: Path, chat: ScriptedChat) -> Iterator[Memory]:
    with Memory(tmp_path / "g.db", writer=ProWriter(chat), embedder="hash", clock=FrozenClock(T1)) as opened:
        yield opened


def current(memory: Memory) -> list[str]:
    return sorted(r["memory"] for r in memory.list(user_id="u")["results"])


def stored_job(memory: Memory, chat: ScriptedChat) -> None:
    memory.add("I work at Shopify.", user_id="u", timestamp=T0)
    assert current(memory) == ["I work at Shopify."]
    assert chat.calls == []  # nothing stored a model could change, and the rules kept the message: no call


def test_a_checked_supersede_retires_the_old_fact_for_the_speakers_words(memory: Memory, chat: ScriptedChat) -> None:
    memory.add("I live in Seattle.", user_id="u", timestamp=T0)
    chat.push({"operations": [op("SUPERSEDE", target=1, text="The user lives in Sydney.", value="Sydney")]})
    result = memory.add("Sydney has been home since June.", user_id="u", timestamp=T1)
    assert [r["event"] for r in result["results"]] == ["SUPERSEDE"]
    assert "model: supersede" in result["results"][0]["reason"]
    assert current(memory) == ["Sydney has been home since June 2023."]  # the speaker's words, the date resolved


def test_a_checked_change_about_someone_the_rules_read_as_another_subject_adds_the_models_fact(
    memory: Memory, chat: ScriptedChat
) -> None:
    stored_job(memory, chat)  # the rules read "my new manager ..." as a fact about the manager
    chat.push({"operations": [op("SUPERSEDE", target=1, text="The user works at Stripe.", value="Stripe")]})
    result = memory.add("My new manager at Stripe is great.", user_id="u", timestamp=T1)
    assert [r["event"] for r in result["results"]] == ["ADD", "SUPERSEDE"]
    assert current(memory) == ["My new manager at Stripe is great.", "The user works at Stripe."]


@pytest.mark.parametrize(
    ("proposal", "why"),
    [
        (op("SUPERSEDE", target=1, text="The user works at Google.", value="Google"), "not in the messages"),
        (op("SUPERSEDE", target=1, text="The user works at Stripe."), "not in the messages"),
        (op("SUPERSEDE", target=1, text="x", slot="u/residence", value="Stripe"), "is not the target's"),
        (op("DELETE", target=1), "no forget request"),
        (op("ADD", text="The user has a yacht.", value="yacht"), "not in the messages"),
    ],
)
def test_an_operation_that_does_not_check_out_leaves_the_rules_memories(
    memory: Memory, chat: ScriptedChat, proposal: dict[str, Any], why: str
) -> None:
    stored_job(memory, chat)
    chat.push({"operations": [proposal]})
    result = memory.add("My new manager at Stripe is great.", user_id="u", timestamp=T1)
    assert [r["event"] for r in result["results"]] == ["ADD"]
    assert any(why in r["reason"] for r in result["rejected"]), result["rejected"]
    assert current(memory) == ["I work at Shopify.", "My new manager at Stripe is great."]


def test_a_memory_without_a_single_valued_fact_is_never_replaced(memory: Memory, chat: ScriptedChat) -> None:
    memory.add("We had a lovely weekend hiking near Tahoe.", user_id="u", timestamp=T0)
    result = memory.add("Went hiking near Denver this weekend.", user_id="u", timestamp=T1)
    assert "ADD" in [r["event"] for r in result["results"]]
    assert chat.calls == []  # not even shown to the model: no checked operation could replace it
    assert len(current(memory)) == 2


def test_a_many_valued_fact_gains_values_and_loses_none(memory: Memory, chat: ScriptedChat) -> None:
    memory.add("I play the piano.", user_id="u", timestamp=T0)
    chat.push({"operations": [op("SUPERSEDE", target=1, text="The user plays the cello.", value="cello")]})
    memory.add("Started cello lessons, and my teacher is great.", user_id="u", timestamp=T1)
    assert any("piano" in text for text in current(memory))
    assert replaceable("u/employer") and not replaceable("u/hobbies") and not replaceable(None)


def test_nothing_kept_and_nothing_proposed_still_says_why(memory: Memory, chat: ScriptedChat) -> None:
    chat.push(NOTHING)
    result = memory.add("lol ok", user_id="u", timestamp=T0)
    assert result["results"] == []
    assert result["rejected"] and all(r["reason"] for r in result["rejected"])


def test_the_checks() -> None:
    assert grounded_in("New  York", "I live in new york now.")
    assert not grounded_in("NYC", "I live in New York.")
    assert not grounded_in("", "anything") and not grounded_in(None, "anything")
    assert same_topic("My new manager at Stripe is great.", "I work at Shopify.")
    assert not same_topic("I adopted a cat.", "I work at Shopify.")


def test_a_model_add_never_sets_a_second_value_beside_a_stored_single_valued_fact(
    memory: Memory, chat: ScriptedChat
) -> None:
    memory.add("I moved to Raleigh last week!", user_id="u", timestamp=T1)
    # A model that reads "lives in Austin" into a question must not add a second home beside the stored one.
    chat.push({"operations": [op("ADD", text="The user lives in Austin.", value="Austin", slot="user/residence")]})
    result = memory.add("Should I visit Austin in November?", user_id="u", timestamp=T1)
    assert any("another value" in r["reason"] for r in result.get("rejected", [])), result
    assert not any("lives in Austin" in text for text in current(memory))
