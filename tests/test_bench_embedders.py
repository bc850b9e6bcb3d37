"""`python -m memscribe.bench.embedders`: the comparison runs on its own fixture."""

from __future__ import annotations

from memscribe.bench.embedders import compare


def test_the_embedder_comparison_runs_on_its_own_fixture() -> None:
    (row,) = compare(["hash"])
    assert row["model"] == "hash-256"
    assert {name: row[name]["n"] for name in ("english", "chinese", "mixed")} == {  # type: ignore[index]
        "english": 22, "chinese": 20, "mixed": 42,
    }  # fmt: skip
    assert row["speed"]["sentences_per_s"] > 0  # type: ignore[index]
