"""``memscribe train export``: the versioned dataset rows, their round trip, and refusals of bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memscribe.bench.scenarios import make_scenario, scenario_dict
from memscribe.cli.main import cli
from memscribe.train import SCHEMA, MemoryEnv, read_rows, scenario_from_dict


def test_export_writes_chat_ready_sft_rows_and_self_contained_rl_rows(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--json", "train", "export", "--out", str(tmp_path), "--scenarios", "2"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    sft, rl = read_rows(tmp_path / "sft.jsonl", "sft"), read_rows(tmp_path / "rl.jsonl", "rl")
    assert summary == {"schema": SCHEMA, "out": str(tmp_path), "protocols": ["pro"], "sft": len(sft), "rl": len(rl)}
    assert len(sft) == len(rl) > 2
    row = sft[0]
    assert [m["role"] for m in row["messages"]] == ["system", "user", "assistant"]
    assert json.loads(row["messages"][-1]["content"])["operations"]  # the teacher's answer parses
    first = rl[0]
    assert first["prompt"] == row["messages"][:2] and first["reference"] == row["messages"][-1]["content"]
    # An RL row carries everything its reward needs: the scenario rebuilt from it scores the reference at 1.
    env = MemoryEnv(scenario_from_dict(first["scenario"]), tmp_path / "env")
    assert env.step(first["chunk"], first["reference"]).probe_accuracy == env.steps[first["chunk"]].accuracy


def test_a_scenario_survives_the_round_trip() -> None:
    scenario = make_scenario(3, 4)
    assert scenario_from_dict(json.loads(json.dumps(scenario_dict(scenario)))) == scenario


def test_rows_of_another_schema_or_kind_are_refused_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"schema": SCHEMA, "kind": "rl"}) + "\n")
    with pytest.raises(ValueError, match=r"rows.jsonl:1: a 'rl' row where 'sft'"):
        read_rows(path, "sft")
    path.write_text("\n" + json.dumps({"schema": "memscribe-train/0", "kind": "sft"}) + "\n")
    with pytest.raises(ValueError, match=r":2: not a memscribe-train/1 row"):
        read_rows(path, "sft")
    path.write_text("{not json\n")
    with pytest.raises(ValueError, match=r":1: not JSON"):
        read_rows(path, "sft")


def test_a_compact_answer_is_shorter_and_scores_exactly_as_the_full_one(tmp_path: Path) -> None:
    from memscribe.bench.scenarios import generate_scenarios
    from memscribe.train import compact_answer, export_rows

    scenario = generate_scenarios(1, 5)[0]
    full = [r for r in export_rows([scenario], tmp_path / "full") if r["kind"] == "rl"]
    short = [r for r in export_rows([scenario], tmp_path / "short", compact=True) if r["kind"] == "rl"]
    assert [r["prompt"] for r in short] == [r["prompt"] for r in full]
    env = MemoryEnv(scenario, tmp_path / "env")
    for a, b in zip(full, short, strict=True):
        assert b["reference"] == compact_answer(a["reference"])
        assert len(b["reference"]) < len(a["reference"])
        ops = json.loads(b["reference"])["operations"]
        assert all(op["reason"] == "" and not {"msgs", "valid_from", "owner"} & set(op) for op in ops)
        assert env.step(b["chunk"], b["reference"]).as_dict() == env.step(a["chunk"], a["reference"]).as_dict()
