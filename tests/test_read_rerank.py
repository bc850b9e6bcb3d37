"""The rerank: preferences reorder fused hits; without complete scores the retrieval ranks carry them."""

from __future__ import annotations

from test_lite_support import record

from memscribe.read.rank import rerank_hits


def _records(texts: list[str]) -> dict[str, object]:
    return {r.version_id: r for r in (record(t) for t in texts)}


def test_without_scores_equal_hits_keep_the_fused_order() -> None:
    records = _records(["The lighthouse keeper painted the door blue.", "The ferry to the island left at noon.",
                        "A storm closed the harbour for two days."])  # fmt: skip
    ids = list(records)
    fused = [(ids[2], 0.032), (ids[0], 0.031), (ids[1], 0.030)]
    out = rerank_hits("What closed the harbour?", fused, records, set())  # type: ignore[arg-type]
    assert [vid for vid, _ in out] == [ids[2], ids[0], ids[1]]
    assert sorted(out) == sorted((vid, out_score) for vid, out_score in out) and {v for v, _ in out} == set(ids)


def test_with_complete_scores_the_better_match_wins() -> None:
    records = _records(["The ferry to the island left at noon.", "A storm closed the harbour for two days."])
    ids = list(records)
    fused = [(ids[0], 0.033), (ids[1], 0.032)]
    vector = {ids[0]: 0.2, ids[1]: 0.8}
    keyword = {ids[1]: 5.0}
    out = rerank_hits("What closed the harbour?", fused, records, set(), vector, keyword)  # type: ignore[arg-type]
    assert [vid for vid, _ in out] == [ids[1], ids[0]]
