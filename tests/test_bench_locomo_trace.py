"""``bench locomo --trace``: missed evidence with what was stored for it and what outranked it; turns that only ask."""

from __future__ import annotations

from pathlib import Path

from memscribe.bench.harness import sdk_factory
from memscribe.bench.locomo import Turn, only_asks, run_locomo
from memscribe.bench.locomo_trace import Tracer, format_trace

FIXTURE = Path(__file__).parent / "fixtures" / "locomo_tiny.json"


def test_the_tracer_records_what_a_missed_turn_stored_and_what_ranked_above_it() -> None:
    tracer = Tracer(limit=5)
    answer = {
        "results": [{"id": "m1", "memory": "I adopted a beagle.", "event": "ADD", "messages": [1]}],
        "messages": [{"index": 0, "outcome": "skipped", "reason": "filler: a greeting"},
                     {"index": 1, "outcome": "stored", "reason": "new memorable statement"}],
    }  # fmt: skip
    tracer.learn_add(answer, ["D1:1", "D1:2"], ["Hi Ben!", "I adopted a beagle. He is called Biscuit."])
    tracer.learn_current([({"D1:2"}, "I adopted a beagle.")])
    tracer.stored_nothing("D1:1")
    tracer.question("What is the beagle called?", 4, "Biscuit", frozenset({"D1:2"}), [({"D1:1"}, "Hi Ben!")])
    tracer.question("Who said hi?", 4, "Ben", frozenset({"D1:1"}), [({"D1:1"}, "Hi Ben!")])  # found: no entry
    assert len(tracer.entries) == 1
    missed = tracer.entries[0]["missed"][0]
    assert missed["turn"] == "D1:2" and missed["outcome"] == "stored"
    assert missed["written"] == ["ADD: I adopted a beagle."] and missed["current"] == ["I adopted a beagle."]
    assert tracer.nothing[0]["reason"] == "filler: a greeting"
    text = format_trace({"questions": tracer.entries, "stored_nothing": tracer.nothing})
    assert "missed D1:2: I adopted a beagle. He is called Biscuit." in text
    assert " 1. [D1:1] Hi Ben!" in text and "stored nothing D1:1: Hi Ben!" in text


def test_the_trace_stops_at_its_limit() -> None:
    tracer = Tracer(limit=1)
    for n in range(3):
        tracer.question(f"q{n}?", 4, "a", frozenset({"D1:9"}), [])
    assert len(tracer.entries) == 1


def test_a_lite_run_traces_its_misses(tmp_path: Path) -> None:
    results = run_locomo(sdk_factory(embedder="hash"), "lite", FIXTURE, tmp_path, trace=20)
    trace = results["trace"]
    assert set(trace) == {"questions", "stored_nothing"}
    for entry in trace["questions"]:
        assert entry["category"] != 5 and entry["missed"] and len(entry["top"]) <= 10
        assert all(ev["text"] and ev["outcome"] != "?" for ev in entry["missed"])  # every turn was added
    assert "trace" not in run_locomo(sdk_factory(embedder="hash"), "lite", FIXTURE, tmp_path)


def test_a_turn_that_only_asks_is_counted_apart_from_memorable_turns() -> None:
    names = frozenset({"ana", "ben"})
    assert only_asks(Turn("D1:1", "Ben", "Wow, Ana, that's great! What breed is he? Did you pick the name?"), names)
    assert not only_asks(Turn("D1:2", "Ben", "I adopted a beagle last week. What breed is yours?"), names)
    assert not only_asks(Turn("D1:3", "Ben", "What do you think?", caption="a photo of a puppy"), names)
    assert not only_asks(Turn("D1:4", "Ben", "We moved to Leeds in May and love the flat."), names)


def test_coverage_reports_question_turns_apart(tmp_path: Path) -> None:
    coverage = run_locomo(sdk_factory(embedder="hash"), "lite", FIXTURE, tmp_path)["coverage"]
    assert coverage["turns"] == coverage["memorable_turns"] + coverage["filler_turns"] + coverage["question_turns"]
    assert coverage["question_turns"] >= 1  # "Congrats Ana! What breed is Biscuit?"
    nothing = coverage["memorable_stored_nothing"] + coverage["question_stored_nothing"]
    asked_too = coverage["memorable_turns"] + coverage["question_turns"]
    assert coverage["stored_nothing_share_with_questions"] == round(nothing / asked_too, 4)
    # "I'm still in Porto", imported after "I moved to Lisbon" though said before it, is history: no current memory
    assert coverage["memorable_stored_nothing"] == 1
