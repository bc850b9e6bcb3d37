"""LLM-free benchmark metrics on hand-made cases."""

from __future__ import annotations

import pytest

from memscribe.bench.metrics import (
    MeanTable,
    OpTally,
    Verdict,
    answer_containment,
    canonical_dia_id,
    contains_value,
    evidence_recall,
    gold_answer,
    judge_answer,
    normalize_answer,
    normalize_evidence,
    parts_containment,
)


def test_normalize_answer_follows_the_locomo_normaliser() -> None:
    assert normalize_answer("The  Cat, and a Dog!") == "cat dog"
    assert normalize_answer("gluten-free") == "gluten free"
    assert normalize_answer(2017) == "2017"


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("I moved to Rome.", "Rome", True),
        ("Romeo is my dog", "Rome", False),
        ("My phone is 555-0132", "555-0132", True),
        ("I turned 2034 today", "34", False),
        ("I work as a data analyst", "data analyst", True),
        ("analyst data", "data analyst", False),
    ],
)
def test_contains_value_matches_whole_tokens(text: str, value: str, expected: bool) -> None:
    assert contains_value(normalize_answer(text), value) is expected


def test_judge_answer_verdicts() -> None:
    current, stale, others = ("Sydney",), ("Seattle",), ("Rome",)
    assert judge_answer("User lives in Sydney", current, stale, others) is Verdict.CORRECT
    assert judge_answer("User lives in Seattle", current, stale, others) is Verdict.STALE
    assert judge_answer("Moved from Seattle to Sydney", current, stale, others) is Verdict.MIXED
    assert judge_answer("Brother lives in Rome", current, stale, others) is Verdict.DISTRACTOR
    assert judge_answer("Likes tea", current, stale, others) is Verdict.MISS
    assert judge_answer(None, current, stale, others) is Verdict.MISS
    assert judge_answer("We adopted a dog named Rex", ("Milo", "Rex"), ("Luna",)) is Verdict.CORRECT


def test_op_tally_matches_events_to_labels_by_kind_counts() -> None:
    tally = OpTally()
    tally.record(["ADD", "ADD", "SUPERSEDE"], ["ADD", "ADD", "ADD", "NOOP"])  # one ADD too many, NOOP spurious
    tally.record(["DELETE", "NOOP"], ["delete", "NOOP"])  # case-insensitive
    summary = tally.summary()
    assert summary["ADD"] == {"tp": 2, "fp": 1, "fn": 0, "precision": 0.6667, "recall": 1.0, "f1": 0.8}
    assert summary["SUPERSEDE"]["recall"] == 0.0 and summary["SUPERSEDE"]["precision"] is None
    assert summary["NOOP"] == {"tp": 1, "fp": 1, "fn": 0, "precision": 0.5, "recall": 1.0, "f1": 0.6667}
    assert summary["DELETE"]["f1"] == 1.0
    assert summary["UPDATE"] == {"tp": 0, "fp": 0, "fn": 0, "precision": None, "recall": None, "f1": None}
    assert summary["all"]["tp"] == 4 and summary["all"]["fp"] == 2 and summary["all"]["fn"] == 1


def test_mean_table_skips_values_that_do_not_apply() -> None:
    table = MeanTable()
    table.add(["all", "a"], x=True, y=None)
    table.add(["all"], x=False, y=0.5)
    assert table.means() == {"a": {"x": 1.0}, "all": {"x": 0.5, "y": 0.5}}
    assert table.counts("all", "y") == 1 and table.counts("missing", "x") == 0


def test_evidence_normalisation_handles_the_known_anomalies() -> None:
    valid = {"D1:1", "D1:3", "D2:1", "D2:2", "D10:4"}
    assert canonical_dia_id("D:1:03") == "D1:3"
    assert canonical_dia_id("nothing") is None
    assert normalize_evidence(["D2:1; D2:2"], valid) == {"D2:1", "D2:2"}
    assert normalize_evidence(["D1:03", "D9:9"], valid) == {"D1:3"}  # zero padding; unknown id dropped
    assert normalize_evidence("D:10:4 D1:1", valid) == {"D10:4", "D1:1"}  # bare string, stray colon
    assert normalize_evidence([], valid) == frozenset()
    assert normalize_evidence(None, valid) == frozenset()


def test_evidence_recall_at_k() -> None:
    gold = {"D1:1", "D2:2"}
    ranked = [{"D1:5"}, {"D1:1"}, set(), {"D2:2", "D2:3"}]
    at1, at2, at4 = (evidence_recall(gold, ranked, k) for k in (1, 2, 4))
    assert (at1["recall_any@1"], at1["recall_all@1"], at1["recall_frac@1"]) == (0.0, 0.0, 0.0)
    assert (at2["recall_any@2"], at2["recall_all@2"], at2["recall_frac@2"]) == (1.0, 0.0, 0.5)
    assert (at4["recall_any@4"], at4["recall_all@4"], at4["recall_frac@4"]) == (1.0, 1.0, 1.0)
    assert at4["prov_width@4"] == 4.0 and at4["evidence_precision@4"] == 0.5


def test_answer_containment_and_parts() -> None:
    assert gold_answer("Yes; she went hiking", 3) == "Yes"
    assert gold_answer(3, 4) == "3"
    assert gold_answer(None, 5) is None
    assert gold_answer("The", 4) is None  # normalises to nothing: not scorable
    texts = ["Went to the LGBTQ group on 7 May 2023", "Paints sunsets"]
    assert answer_containment("7 May, 2023", texts, 1) == 1.0
    assert answer_containment("sunsets", texts, 1) == 0.0
    assert answer_containment("sunsets", texts, 2) == 1.0
    assert parts_containment("LGBTQ group, sunsets, lakes", texts, 2) == pytest.approx(2 / 3)
