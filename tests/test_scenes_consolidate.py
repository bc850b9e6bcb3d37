"""ultra consolidation: duplicates merged, insights with evidence links, bounded by budget; scheduler timing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from test_scenes_support import T0, apply_ops, record, scene_memory

from memscribe.core.clock import FrozenClock
from memscribe.core.records import Layer, OpKind
from memscribe.scenes import ConsolidationBudget, ConsolidationScheduler, consolidate, plan_consolidation
from memscribe.stores.ports import RecordFilter
from memscribe.testing import FunctionChat, ScriptedChat

HIKING = [
    "Priya went hiking in the Alps in May",
    "Priya bought new hiking boots",
    "Priya plans hiking trips every summer",
    "Priya joined a hiking club in Zurich",
    "Priya loves long hiking weekends",
]
COOKING = [
    "Priya cooks Thai curry on Fridays",
    "Priya took a Thai cooking class",
    "Priya grows Thai basil for cooking",
    "Priya cooks Thai food for friends",
]


def _cites_first_three(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"insights": [{"text": "Priya is an avid outdoors person.", "evidence": [1, 2, 3, 99], "confidence": 0.8}]}


def test_near_identical_memories_are_merged_with_a_reason() -> None:
    keep = record("Priya loves hiking in the Alps.", confidence=0.9)
    dup = record("priya loves hiking in the alps", confidence=0.7)
    near = record("Priya really loves hiking in the Alps.", confidence=0.7)
    other_number = record("Priya hiked 3 peaks in the Alps.")
    negated = record("Priya does not love hiking in the Alps.")
    ops = plan_consolidation([keep, dup, near, other_number, negated], None, T0, ConsolidationBudget())
    deletes = {op.target: op.reason for op in ops if op.kind is OpKind.DELETE}
    assert set(deletes) == {dup.id, near.id}
    assert all(f"duplicate of {keep.id}" in reason for reason in deletes.values())


def test_insight_links_its_evidence_and_skips_covered_clusters() -> None:
    facts = [record(t) for t in HIKING]
    chat = FunctionChat(_cites_first_three)
    ops = plan_consolidation(facts, chat, T0, ConsolidationBudget())
    (schema,) = [op for op in ops if op.draft is not None and op.draft.layer is Layer.SCHEMA]
    assert schema.kind is OpKind.ADD and len(chat.calls) == 1
    cited = chat.calls[0].last_user.splitlines()[1:4]
    ids = {f.text: f.id for f in facts}
    assert schema.draft is not None
    assert schema.draft.metadata["evidence"] == [ids[line.split(". ", 1)[1]] for line in cited]  # alias 99 dropped
    assert schema.usage.prompt_version == "schema-insight-1"
    stored = record(schema.draft.text, layer=Layer.SCHEMA, metadata={"evidence": [f.id for f in facts]})
    assert plan_consolidation([*facts, stored], chat, T0, ConsolidationBudget()) == []
    assert len(chat.calls) == 1  # every fact already evidence of a schema: no second call


def test_consolidation_is_bounded_by_its_budget() -> None:
    facts = [record(t) for t in HIKING + COOKING]
    chat = FunctionChat(_cites_first_three)
    plan_consolidation(facts, chat, T0, ConsolidationBudget(max_llm_calls=1))
    assert len(chat.calls) == 1
    dups = [record("Priya likes tea") for _ in range(10)]
    ops = plan_consolidation(dups, None, T0, ConsolidationBudget(max_operations=4))
    assert len(ops) == 4
    assert plan_consolidation(facts, ScriptedChat(), T0, ConsolidationBudget(max_llm_calls=0)) == []


def test_consolidate_end_to_end_through_the_store(clock: FrozenClock) -> None:
    mem = scene_memory(clock)
    mem.add("I live in Lisbon and I work at Spotify.", user_id="priya", timestamp="2024-05-01T10:00:00Z")
    mem.add("I'm going to run a marathon next Sunday.", user_id="priya", timestamp="2024-06-01T10:00:00Z")
    clock.advance(days=30)
    store = mem._core.store
    chat = ScriptedChat()  # too few facts for a cluster: the model is never called
    ops = consolidate(store, ("default", "priya"), chat, clock, ConsolidationBudget())
    assert sorted(op.kind.value for op in ops) == ["ADD", "SUPERSEDE"] and chat.calls == []
    result = apply_ops(mem, "priya", ops)
    assert {r["event"] for r in result["results"]} == {"ADD", "SUPERSEDE"}
    (snapshot,) = store.query(("default", "priya"), RecordFilter(layers=("L0",)))
    assert snapshot.text == "Profile of user: employer: spotify; residence: lisbon."
    journal = store.journal(("default", "priya"), episode_id=result["episode_id"])
    assert {e.reason.split(":")[0] for e in journal} >= {
        "intention expired",
        "profile of user derived from 2 slot memories",
    }
    assert consolidate(store, ("default", "priya"), chat, clock, ConsolidationBudget()) == []  # idempotent


def test_scheduler_counts_writes_and_idleness() -> None:
    sched = ConsolidationScheduler(every_n_facts=5, idle_seconds=60, min_interval_seconds=120)
    assert not sched.due(T0)  # nothing written
    sched.note_write(3, at=T0)
    assert not sched.due(T0 + timedelta(seconds=30))
    assert sched.due(T0 + timedelta(seconds=61))  # idle with writes pending
    sched.note_write(2, at=T0 + timedelta(seconds=10))
    assert sched.due(T0 + timedelta(seconds=11))  # size trigger
    assert sched.started(T0 + timedelta(seconds=11)) and not sched.started(T0 + timedelta(seconds=12))
    sched.note_write(9, at=T0 + timedelta(seconds=20))
    assert not sched.due(T0 + timedelta(seconds=20))  # a run is in progress
    sched.finished()
    assert not sched.due(T0 + timedelta(seconds=100))  # min interval since the last run
    assert sched.due(T0 + timedelta(seconds=140))


def test_scheduler_retries_after_a_failed_run() -> None:
    sched = ConsolidationScheduler(every_n_facts=2, idle_seconds=0, min_interval_seconds=0)
    sched.note_write(2, at=T0)
    assert sched.started(T0)
    sched.finished(failed=True, pending=2)
    assert sched.pending == 2 and sched.due(T0)
