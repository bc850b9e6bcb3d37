"""``memscribe train demo`` end to end on the tiny random model (a smoke run: its figures say nothing about
learning), and the verdict rule: a rise counts only when it is positive and larger than the seed spread."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the train extra is not installed")

from memscribe.train.demo import verdict


def test_a_rise_counts_only_when_it_beats_the_seed_spread_of_three_seeds() -> None:
    assert verdict(0.10, [0.30, 0.35])["verdict"] == "no verdict (2 of 3 seeds)"
    assert verdict(0.10, [0.30, 0.35, 0.32]) == {"rise": 0.2233, "spread": 0.05, "verdict": "improved"}
    assert verdict(0.10, [0.10, 0.50, 0.20])["verdict"] == "no effect"  # rise 0.167 < spread 0.4
    assert verdict(0.40, [0.30, 0.30, 0.30]) == {"rise": -0.1, "spread": 0.0, "verdict": "no effect"}
    assert verdict(0.30, [0.30, 0.30, 0.30])["verdict"] == "no effect"
    # Unchanged figures are no effect, though their float mean can land a hair above the figure itself.
    assert sum([0.0556] * 3) / 3 - 0.0556 > 0
    assert verdict(0.0556, [0.0556] * 3) == {"rise": 0.0, "spread": 0.0, "verdict": "no effect"}


@pytest.mark.timeout(1800)  # seconds of CPU, but minutes of wall time on a loaded shared machine
def test_the_tiny_demo_runs_every_stage_per_seed_and_records_it(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from memscribe.cli.main import cli

    out = tmp_path / "demo"
    args = ["train", "demo", "--tiny", "--out", str(out), "--train-scenarios", "1", "--eval-scenarios", "1",
            "--eval-chunks", "2", "--sft-steps", "2", "--grpo-steps", "1", "--max-new-tokens", "8"]  # fmt: skip
    first = CliRunner().invoke(cli, [*args, "--seeds", "0"])
    assert first.exit_code == 0, first.output
    assert "| seed 0 |" in first.output and "no verdict (1 of 3 seeds)" in first.output
    before = json.loads((out / "demo.json").read_text(encoding="utf-8"))["before"]
    # A second run adds seed 1 to the same table: the base is not scored again and seed 0 is not rerun.
    done = CliRunner().invoke(cli, [*args, "--seeds", "0,1", "--resume"])
    assert done.exit_code == 0, done.output
    assert "| seed 0 |" in done.output and "| seed 1 |" in done.output and "seed spread" in done.output

    result = json.loads((out / "demo.json").read_text(encoding="utf-8"))
    assert result["held_out_chunks"] == 2 and result["before"] == before
    assert [run["seed"] for run in result["runs"]] == [0, 1] and result["config"]["seeds"] == [0, 1]
    for run in result["runs"]:
        assert set(run["after"]) == {"reward", "probe_accuracy", "format_valid", "samples"}
        assert len(run["after"]["samples"]) == 2
        assert run["sft_s"] >= 0 and run["sft_cpu_s"] > 0 and run["grpo_cpu_s"] > 0 and run["eval_cpu_s"] > 0
    for key in ("reward", "probe_accuracy", "format_valid"):
        afters = [run["after"][key] for run in result["runs"]]
        assert result[key] == verdict(result["before"][key], afters)
    assert (Path(result["model"]) / "config.json").is_file()
    other = CliRunner().invoke(cli, [*args, "--seeds", "2", "--resume", "--sft-steps", "3"])
    assert other.exit_code != 0 and "another configuration (sft_steps differ)" in other.output
