"""Work the write path skips or batches: one model call for a multi-message add, no embedding of messages a
writer never asks for, no hybrid search for the raw writer's repeat check."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from memscribe import Memory
from memscribe.providers.hashing import HashEmbedder
from memscribe.stores.sqlite import SQLiteStore


class CountingEmbedder(HashEmbedder):
    """The hash embedder, recording the texts of every call."""

    def __init__(self) -> None:
        super().__init__(64)
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls.append(list(texts))
        return super().embed(texts)


MESSAGES = [
    {"role": "user", "content": "Our team ships the billing service every Thursday."},
    {"role": "assistant", "content": "Noted, Thursday releases for billing."},
    {"role": "user", "content": "The staging database lives on host db-7."},
]


def test_a_raw_add_of_several_messages_embeds_them_in_one_call(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    with Memory(tmp_path / "s.db", writer="raw", embedder=embedder) as m:
        added = m.add(MESSAGES, user_id="u")["results"]
    assert [r["event"] for r in added] == ["ADD", "ADD", "ADD"]
    assert len(embedder.calls) == 1 and sorted(embedder.calls[0]) == sorted(x["content"] for x in MESSAGES)


def test_a_repeated_message_is_confirmed_without_a_keyword_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    with Memory(store=store, writer="raw", embedder="hash") as m:
        first = m.add("The staging database lives on host db-7.", user_id="u")["results"]

        def no_keyword_search(*args: object, **kwargs: object) -> list[tuple[str, float]]:
            raise AssertionError("the raw writer's repeat check ran a keyword search")

        monkeypatch.setattr(store, "keyword_search", no_keyword_search)
        again = m.add("the staging  database lives on host db-7.", user_id="u")["results"]
        other = m.add("The production database lives on host db-9.", user_id="u")["results"]
    assert [(r["id"], r["event"]) for r in again] == [(first[0]["id"], "NOOP")]
    assert other[0]["event"] == "ADD"


def test_messages_a_writer_never_asks_for_are_not_embedded(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    text = "Quick update: I moved to Lisbon in March and I work at a bakery now."
    with Memory(tmp_path / "s.db", writer="lite", embedder=embedder) as m:
        stored = [r["memory"] for r in m.add(text, user_id="u")["results"]]
    embedded = [t for call in embedder.calls for t in call]
    assert stored and all(s in embedded for s in stored)  # what is stored is embedded, once
    if text not in stored:
        assert text not in embedded  # the raw message only when the writer uses it
    assert len(embedded) == len(set(embedded))


def test_a_tool_episode_routed_by_rules_embeds_none_of_its_messages(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    messages = [
        {"role": "user", "content": "Fix the failing test in tests/test_cart.py please."},
        {
            "role": "assistant",
            "content": "Running the tests first.",
            "tool_calls": [{"name": "Bash", "arguments": {"command": "pytest tests/test_cart.py"}}],
        },
        {"role": "tool", "name": "Bash", "content": "FAILED tests/test_cart.py::test_empty - IndexError"},
        {"role": "assistant", "content": "The cart indexed rows[0] without a check; I added a guard."},
    ]
    with Memory(tmp_path / "s.db", writer="lite", embedder=embedder) as m:
        m.add(messages, user_id="u")
        m.add(MESSAGES, user_id="u")  # a chat episode still embeds its messages in one batch
    embedded = [t for call in embedder.calls for t in call]
    assert "FAILED tests/test_cart.py::test_empty - IndexError" not in embedded  # a tool result, never
    assert "Running the tests first." not in embedded
    assert any(len(call) > 1 for call in embedder.calls)


def test_the_lite_writer_embeds_no_assistant_turn_it_does_not_keep(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    messages = [
        {"role": "user", "content": "I just started a new job at a bakery in Porto."},
        {"role": "assistant", "content": "Congratulations! Porto has wonderful pastry shops to learn from."},
        {"role": "user", "content": "Thanks, my first shift is on Monday."},
    ]
    with Memory(tmp_path / "s.db", writer="lite", embedder=embedder) as m:
        stored = [r["memory"] for r in m.add(messages, user_id="u")["results"]]
    embedded = [t for call in embedder.calls for t in call]
    assert stored and all(s in embedded for s in stored)
    assert not any("Congratulations" in t for t in embedded)


def test_warm_up_pays_the_one_time_costs_before_the_first_add(tmp_path: Path) -> None:
    from memscribe.write.lite import lazy

    embedder = CountingEmbedder()
    with Memory(tmp_path / "s.db", writer="lite", embedder=embedder) as m:
        m.warm_up()
        assert len(embedder.calls) == 1  # the model is loaded and run once
        compiled = {id(p) for p in lazy._DECLARED if p._compiled is not None}
        assert len(compiled) == len(lazy._DECLARED)  # every rule of the writer is compiled
        m.add("Quick update: I moved to Lisbon in March. My sister Ana visits next week!", user_id="u")
        assert {id(p) for p in lazy._DECLARED if p._compiled is not None} == compiled  # the add compiled none


def test_warm_up_of_a_writer_with_nothing_to_prepare(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    with Memory(tmp_path / "s.db", writer="raw", embedder=embedder) as m:
        m.warm_up()
        assert m.add("The staging database lives on host db-7.", user_id="u")["results"][0]["event"] == "ADD"
    assert len(embedder.calls) == 2  # the warm-up's call, then the add's


class _CountingSource:
    """A candidate source that finds nothing and records each similarity search asked of it."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    def similar(self, text: str, limit: int = 8) -> list[Any]:
        self.asked.append((text, limit))
        return []

    def by_slot(self, slot: str) -> list[Any]:
        return []

    def by_subject(self, subject: str, limit: int = 50) -> list[Any]:
        return []


def test_the_lite_rules_search_a_statement_once_whatever_depth_they_ask() -> None:
    from memscribe.core.records import Owner
    from memscribe.write.lite.ledger import Ledger

    source = _CountingSource()
    ledger = Ledger(source)
    for limit in (8, 12, 8):
        assert ledger.stored_similar("I moved to Lisbon", Owner.USER, limit=limit) == []
    assert len({limit for _, limit in source.asked}) == 1  # one depth, so the source searches once
    assert ledger.stored_similar("I moved to Lisbon", Owner.USER, limit=16) == []
    assert source.asked[-1] == ("I moved to Lisbon", 16)  # deeper than usual is still honoured
