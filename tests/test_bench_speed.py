"""``memscribe bench speed`` end to end on tiny sizes with the hash embedder: the report's shape and sanity,
and how memories are dealt to users."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from memscribe.bench.speed import USER, SpeedParams, _insert
from memscribe.cli.main import cli
from memscribe.providers.hashing import HashEmbedder
from memscribe.stores.sqlite import SQLiteStore


def test_memories_are_dealt_to_users_round_robin(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    params = SpeedParams(embedder="hash", users=3, batch=40, real_max=100)
    row = _insert(store, HashEmbedder(), 100, params, lambda _: None)
    counts = {user: store.stats(("default", user))["current"] for user in (USER, f"{USER}-1", f"{USER}-2")}
    assert counts == {USER: 34, f"{USER}-1": 33, f"{USER}-2": 33}
    assert store.stats()["current"] == 100 and "dealt to 3 users, the searched one holds 34" in row["vectors"]
    store.close()


def test_bench_speed_reports_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "speed.json"
    args = ["bench", "speed", "--sizes", "300", "--queries", "5", "--turns", "6", "--embedder", "hash",
            "--import-runs", "1", "--users", "2", "-o", str(out)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["import"]["import_ms"] > 0 and report["add"]["turns"] == 6
    assert report["add"]["turns_per_s"] > 0 and report["weight"]["base_install_mb"] > 0
    (row,) = report["search"]
    assert row["n"] == 300 and "the searched one holds 150" in row["vectors"]
    for stage in ("search", "search_no_embed"):
        assert 0 < row[f"{stage}_p50_ms"] <= row[f"{stage}_p95_ms"]
    assert all(row[f"stage_{name}_p50_ms"] > 0 for name in ("vector", "keyword", "fetch"))
    assert row["db_mb"] > 0 and "search through Memory.search" in result.output
