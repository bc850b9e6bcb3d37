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
            "--import-runs", "1", "--users", "2", "--add-at", "0", "-o", str(out)]  # fmt: skip
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


def _turn_files(tmp_path: Path) -> tuple[Path, Path]:
    """A LoCoMo-shaped and an updates-natural-shaped file, written here (no external data)."""
    locomo = tmp_path / "locomo.json"
    turns = [{"speaker": "Ann", "dia_id": f"D1:{i}", "text": f"I repaired bicycle number {i} today"} for i in range(4)]
    locomo.write_text(json.dumps([{"conversation": {"speaker_a": "Ann", "session_1": turns,
                                                    "session_1_date_time": "1 May 2023"}}]))  # fmt: skip
    natural = tmp_path / "natural.jsonl"
    episode = {"t": "2023-01-01T10:00:00", "messages": [{"role": "user", "content": "I moved to Porto last week"},
                                                        {"role": "assistant", "content": "Nice!"}]}  # fmt: skip
    natural.write_text(json.dumps({"id": "x", "user": "ann", "episodes": [episode]}) + "\n")
    return locomo, natural


def test_adds_at_n_run_on_real_turns_deferred_and_beside_a_peer(tmp_path: Path) -> None:
    import sys

    locomo, natural = _turn_files(tmp_path)
    out = tmp_path / "speed.json"
    args = ["bench", "speed", "--sizes", "200", "--queries", "4", "--turns", "4", "--embedder", "hash",
            "--import-runs", "1", "--add-at", "150", "--adds", "12", "--add-writers", "raw",
            "--texts", f"locomo:{locomo}", "--texts", f"natural:{natural}", "--peer", f"fake={sys.executable}",
            "--peer-fill", "fake=30", "-o", str(out)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    rows = {row["writer"]: row for row in report["add_at"]}
    assert set(rows) == {"raw", "raw, wait=False"}
    for row in rows.values():
        assert row["adds"] == 12 and row["adds_per_s"] > 0 and row["pending_after"] == 0
        assert row["texts"].startswith("locomo:")
    (peer,) = report["peers"]
    assert peer["memories"] == 30 and peer["adds"] == 12 and peer["adds_per_s"] > 0
    assert 0 < peer["search_p50_ms"] <= peer["search_p95_ms"]
    assert "one-message add()" in result.output and "wait=False" in result.output


def test_bad_turn_sources_and_peers_are_clear_errors(tmp_path: Path) -> None:
    bad = CliRunner().invoke(cli, ["bench", "speed", "--texts", f"tweets:{tmp_path}"])
    assert bad.exit_code == 2 and "unknown turn source" in bad.output
    peer = CliRunner().invoke(cli, ["bench", "speed", "--peer", "mem0"])
    assert peer.exit_code == 2 and "NAME=PYTHON" in peer.output
