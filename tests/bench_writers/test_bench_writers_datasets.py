"""Loaders: every format becomes typed cases whose probes are asked right after the chunk they need."""

from __future__ import annotations

from pathlib import Path

import pytest

from memscribe.bench.writers.datasets import load_dataset
from memscribe.bench.writers.evaluators import EvaluatorContext, evaluate
from memscribe.errors import InvalidInput


def test_natural_keeps_probe_positions_family_and_language(data: dict[str, Path]) -> None:
    ds = load_dataset(f"natural:{data['natural']}")
    assert [c.case_id for c in ds.cases] == ["d001-employer", "d002-forget", "d003-zh-home-city"]
    employer = ds.cases[0]
    assert [p.after for p in employer.probes] == [0, 1]
    assert employer.probes[1].stale == ("Shopify",) and employer.facts == 1
    assert ds.cases[1].probes[0].forget and ds.cases[2].language == "zh" and ds.cases[2].family == "home-city"
    assert employer.chunks[0].turn_ids == ("0:0", "0:1")


def test_natural_subset_is_a_fixed_stride(data: dict[str, Path]) -> None:
    assert [c.case_id for c in load_dataset(f"natural:{data['natural']}:2").cases] == ["d001-employer", "d002-forget"]


def test_locomo_asks_each_question_after_its_last_evidence_session(data: dict[str, Path]) -> None:
    case = load_dataset(f"locomo:{data['locomo']}").cases[0]
    assert len(case.chunks) == 2 and case.chunks[1].turn_ids == ("D2:1", "D2:2")
    assert [(p.query, p.after) for p in case.probes] == [
        ("What is the name of Mia's cat?", 0), ("Where does Mia take pottery classes?", 1)
    ]  # the adversarial question (category 5) is left out
    assert case.probes[0].evidence == frozenset({"D1:1"}) and case.probes[0].normalized


def test_locomo_session_cap_drops_questions_it_cuts_off(data: dict[str, Path]) -> None:
    case = load_dataset(f"locomo:{data['locomo']}:1:1").cases[0]
    assert len(case.chunks) == 1 and [p.after for p in case.probes] == [0]


def test_longmemeval_official_format(data: dict[str, Path]) -> None:
    case = load_dataset(f"longmemeval:{data['longmemeval']}").cases[0]
    probe = case.probes[0]
    assert probe.after == 0 and probe.expect_any == ("A blue Volvo",) and probe.evidence == frozenset({"s1#0"})
    assert case.chunks[0].turn_ids == ("s1#0", "s1#1")


def test_generated_updates_carry_gold_operations() -> None:
    ds = load_dataset("updates:4:3")
    assert len(ds.cases) == 4 and ds.source == "updates:4:3"
    assert all(chunk.expected_ops is not None for case in ds.cases for chunk in case.chunks)
    assert any(chunk.expected_ops for case in ds.cases for chunk in case.chunks)
    assert ds.probes > 0 and all(c.facts for c in ds.cases)


@pytest.mark.parametrize("spec", ["natural", "bogus:x", "natural:/no/such/file.jsonl", "updates:x"])
def test_bad_specs_are_clear_errors(spec: str) -> None:
    with pytest.raises(InvalidInput):
        load_dataset(spec)


def test_malformed_file_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "d1-x"\n', encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"bad\.jsonl:1"):
        load_dataset(f"natural:{bad}")


def test_evaluators_follow_the_natural_rule(data: dict[str, Path]) -> None:
    employer, forget = load_dataset(f"natural:{data['natural']}").cases[:2]
    after = employer.probes[1]
    good = evaluate(EvaluatorContext(after, ("Ana works at Stripe", "Ana worked at Shopify")))
    assert good["accuracy"] == 1.0 and good["stale_top1"] == 0.0 and good["contain"] == 1.0
    moved = evaluate(EvaluatorContext(after, ("Ana moved from Shopify to Stripe",)))
    assert moved["accuracy"] == 0.0 and moved["stale_top1"] == 1.0
    assert evaluate(EvaluatorContext(after, ()))["accuracy"] == 0.0
    leak = ("unrelated", "x", "y", "z", "Bo's gym is FitLab")
    assert evaluate(EvaluatorContext(forget.probes[0], leak))["accuracy"] == 0.0
    assert evaluate(EvaluatorContext(forget.probes[0], (*leak[:4], "w", "FitLab")))["accuracy"] == 1.0


def test_evidence_recall_from_cited_turns(data: dict[str, Path]) -> None:
    probe = load_dataset(f"locomo:{data['locomo']}").cases[0].probes[0]
    cited = evaluate(EvaluatorContext(probe, ("Mia has a cat, Pixel",), (frozenset({"D1:1"}),)))
    assert cited["evidence_recall"] == 1.0 and cited["accuracy"] == 1.0
    assert evaluate(EvaluatorContext(probe, ("x",), (frozenset({"D2:1"}),)))["evidence_recall"] == 0.0
