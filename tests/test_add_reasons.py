"""Add results say, per message, what happened and why — for any writer: stored, merged, superseded,
skipped (with the writer's reason when it gives one), rejected with the engine's reason."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memscribe import Memory
from memscribe.core.clock import Clock
from memscribe.core.records import Episode, MemoryDraft, Operation, OpKind
from memscribe.write.ports import CandidateSource, WriteContext

Propose = Callable[[Episode, CandidateSource], list[Operation]]


class _Ops(list[Operation]):
    skipped: list[tuple[int, str]]


class RuleWriter:
    """A writer whose decisions a test states directly."""

    name, version = "rules-under-test", "1"

    def __init__(self, propose: Propose) -> None:
        self.rule = propose

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        return self.rule(episode, candidates)


def draft(text: str, *messages: int, slot: str | None = None) -> MemoryDraft:
    return MemoryDraft(text=text, slot=slot, message_indices=messages)


def test_stored_skipped_and_the_writers_own_reason(tmp_path: Path) -> None:
    def rule(episode: Episode, _: CandidateSource) -> list[Operation]:
        ops = _Ops([Operation(OpKind.ADD, "a new fact", draft("User keeps bees.", 1))])
        ops.skipped = [(2, "filler: a reaction to the assistant")]
        return ops

    with Memory(tmp_path / "m.db", writer=RuleWriter(rule), embedder="hash") as memory:
        result = memory.add(
            [{"role": "user", "content": "Hello!"}, {"role": "user", "content": "I keep bees on my roof."},
             {"role": "user", "content": "That is so cool, honestly a great idea overall."},
             {"role": "assistant", "content": "Do they sting?"}],
            user_id="u",
        )  # fmt: skip
    outcomes = [(m["index"], m["outcome"]) for m in result["messages"]]
    assert outcomes == [(0, "skipped"), (1, "stored"), (2, "skipped"), (3, "skipped")]
    reasons = [m["reason"] for m in result["messages"]]
    assert reasons[1] == "a new fact" and reasons[2] == "filler: a reaction to the assistant"
    assert "filler" in reasons[0] and reasons[3] == "a question"
    assert result["messages"][1]["memory_ids"] == [result["results"][0]["id"]]
    assert result["results"][0]["reason"] == "a new fact" and result["results"][0]["messages"] == [1]


def test_merged_superseded_and_rejected(tmp_path: Path) -> None:
    def rule(episode: Episode, candidates: CandidateSource) -> list[Operation]:
        text = episode.messages[0].content
        held = candidates.by_slot("user/city")
        if not held:
            return [Operation(OpKind.ADD, "first city", draft(text, 0, slot="user/city"))]
        if held[0].text == text:
            return [Operation(OpKind.NOOP, "already known", target=held[0].id)]
        return [
            Operation(OpKind.SUPERSEDE, "moved", draft(text, 0, slot="user/city"), target=held[0].id),
            Operation(OpKind.UPDATE, "fix a memory that is not there", draft(text, 0), target="no-such-id"),
        ]

    with Memory(tmp_path / "m.db", writer=RuleWriter(rule), embedder="hash") as memory:
        memory.add("User lives in Oslo.", user_id="u", timestamp="2024-01-01")
        merged = memory.add("User lives in Oslo.", user_id="u", timestamp="2024-02-01")["messages"][0]
        moved = memory.add("User lives in Rome.", user_id="u", timestamp="2024-03-01")
    assert (merged["outcome"], merged["reason"]) == ("merged", "already known")
    assert moved["messages"][0]["outcome"] == "superseded" and moved["messages"][0]["reason"] == "moved"
    assert [r["event"] for r in moved["results"]] == ["SUPERSEDE"]

    def only_bad(episode: Episode, _: CandidateSource) -> list[Operation]:
        return [Operation(OpKind.UPDATE, "fix", draft("User lives in Paris.", 0), target="no-such-id")]

    with Memory(tmp_path / "m.db", writer=RuleWriter(only_bad), embedder="hash") as memory:
        rejected = memory.add("Actually, Paris.", user_id="u", timestamp="2024-04-01")["messages"][0]
    assert rejected["outcome"] == "rejected" and "is not a current memory of this user" in rejected["reason"]


def test_a_repeated_add_says_nothing_changed(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", writer="raw", embedder="hash") as memory:
        memory.add("I grow tomatoes.", user_id="u", idempotency_key="k1")
        again = memory.add("I grow tomatoes.", user_id="u", idempotency_key="k1")
    assert again.get("duplicate") and again["messages"][0]["outcome"] == "skipped"
    assert "already written" in again["messages"][0]["reason"]


def test_a_tag_given_twice_is_stored_once(tmp_path: Path) -> None:
    def rule(episode: Episode, _: CandidateSource) -> list[Operation]:
        tagged = MemoryDraft(text="Mark quit PwC.", message_indices=(0,), tags=("ended", "work", "ended"))
        return [Operation(OpKind.ADD, "an ended job", tagged)]

    with Memory(tmp_path / "m.db", writer=RuleWriter(rule), embedder="hash") as memory:
        memory.add("mark finally quit pwc!!", user_id="u")
        stored = memory.get_all(user_id="u")["results"]
    assert [r["tags"] for r in stored] == [["ended", "work"]]


def test_a_new_version_of_an_earlier_episodes_memory_claims_none_of_this_episodes_messages(tmp_path: Path) -> None:
    first: dict[str, str] = {}

    def rule(episode: Episode, candidates: CandidateSource) -> list[Operation]:
        if not first:
            return [Operation(OpKind.ADD, "a new fact", draft("I climb at the Foundry and work at Acme.", 0))]
        # What still holds of the earlier memory, as its next version: it cites the earlier episode's message.
        kept = MemoryDraft(text="I climb at the Foundry.", message_indices=(0,), episode_id=first["episode"])
        return [Operation(OpKind.UPDATE, "the rest still holds", kept, first["id"])]

    with Memory(tmp_path / "m.db", writer=RuleWriter(rule), embedder="hash") as memory:
        added = memory.add("I climb at the Foundry and work at Acme.", user_id="u")
        first.update(episode=added["episode_id"], id=added["results"][0]["id"])
        result = memory.add(
            [{"role": "user", "content": "Hello there!"}, {"role": "user", "content": "I left Acme last week."}],
            user_id="u",
        )
    assert [(r["event"], r["messages"]) for r in result["results"]] == [("UPDATE", [])]
    assert [m["outcome"] for m in result["messages"]] == ["skipped", "skipped"]
