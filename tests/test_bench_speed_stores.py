"""``memscribe bench speed --store a,b``: every store measured in one run, side by side, on tiny sizes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from click.testing import CliRunner

from memscribe.bench.speed_stores import STORES, parse_stores
from memscribe.cli.main import cli


def test_stores_side_by_side(tmp_path: Path) -> None:
    stores = ["sqlite"] + [
        s for s, mod in (("faiss", "faiss"), ("qdrant-memory", "qdrant_client")) if importlib.util.find_spec(mod)
    ]
    out = tmp_path / "speed.json"
    args = ["bench", "speed", "--sizes", "150", "--queries", "4", "--turns", "4", "--embedder", "hash",
            "--import-runs", "1", "--add-at", "0", "--adds", "3",
            "--store", ",".join(stores), "-o", str(out)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert [row["store"] for row in report["search"]] == stores
    assert sorted(report["add_by_store"]) == sorted(stores)
    for row in report["search"]:
        assert row["n"] == 150 and 0 < row["search_p50_ms"] <= row["search_p95_ms"]
        assert row["insert_per_s"] > 0
        if len(stores) > 1:  # side by side: one-message adds into each filled store, per writer
            assert row["adds_at_size_raw_per_s"] > 0 and row["adds_at_size_lite_per_s"] > 0
    assert all(add["turns_per_s"] > 0 for add in report["add_by_store"].values())
    if len(stores) > 1:
        assert "stores side by side" in result.output


def test_an_unknown_store_is_refused_with_the_known_ones() -> None:
    result = CliRunner().invoke(cli, ["bench", "speed", "--store", "sqlite,nosuch"])
    assert result.exit_code == 2 and "nosuch" in result.output and "sqlite" in result.output
    assert parse_stores("sqlite, qdrant,sqlite") == ("sqlite", "qdrant")
    assert {"sqlite", "qdrant", "faiss", "chroma"} <= set(STORES)
