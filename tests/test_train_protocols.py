"""Multi-protocol training rows: pro, mem0 and Hy-Memory requests with the teacher's answers, scored by the
environment through each protocol's own writer and parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memscribe.bench.scenarios import make_scenario
from memscribe.cli.main import cli
from memscribe.errors import ConfigError
from memscribe.train import MemoryEnv, read_rows, scenario_from_dict
from memscribe.train.dataset import export_rows, protocol_tag
from memscribe.train.protocols import check_protocols, parse_answer
from memscribe.write.prompts import hy_en, mem0_en


def test_export_writes_rows_of_every_protocol_named_in_their_prompt(tmp_path: Path) -> None:
    args = ["--json", "train", "export", "--out", str(tmp_path), "--scenarios", "1", "--protocol", "pro,mem0,hy"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["protocols"] == ["pro", "mem0", "hy"]
    rl = read_rows(tmp_path / "rl.jsonl", "rl")
    sft = read_rows(tmp_path / "sft.jsonl", "sft")
    for protocol in ("pro", "mem0", "hy"):
        ours = [r for r in rl if r["protocol"] == protocol]
        assert ours and all(r["source"]["protocol"] == protocol for r in ours)
        assert all(r["prompt"][0]["content"].startswith(protocol_tag(protocol)) for r in ours)
    # mem0 sends two calls per chunk (facts, then reconcile): both are SFT rows, the reconcile one the RL step.
    mem0 = [r for r in sft if r["source"]["protocol"] == "mem0"]
    assert len(mem0) == 2 * len([r for r in rl if r["protocol"] == "mem0"])
    assert "facts" in json.loads(mem0[0]["messages"][-1]["content"])
    assert mem0_en.RECONCILE.split("{", 1)[0].strip()[:40] in mem0[1]["messages"][0]["content"]


def test_one_protocol_alone_keeps_the_writers_prompt_untouched(tmp_path: Path) -> None:
    rows = [r for r in export_rows([make_scenario(0, 3)], tmp_path, protocols=("hy",)) if r["kind"] == "rl"]
    assert rows and all(not r["prompt"][0]["content"].startswith("[memscribe") for r in rows)
    assert hy_en.EXTRACT.split("{", 1)[0].strip()[:40] in rows[0]["prompt"][0]["content"]


@pytest.mark.parametrize(("protocol", "schemas"), [
    ("mem0", (mem0_en.RECONCILE_SCHEMA,)), ("hy", (hy_en.EXTRACT_SCHEMA, hy_en.RECONCILE_SCHEMA)),
])  # fmt: skip
def test_a_protocol_target_parses_and_scores_as_the_teachers_write(
    tmp_path: Path, protocol: str, schemas: tuple[dict[str, object], ...]
) -> None:
    rows = [r for r in export_rows([make_scenario(0, 4)], tmp_path / "x", protocols=(protocol,)) if r["kind"] == "rl"]
    env = MemoryEnv(scenario_from_dict(rows[0]["scenario"]), tmp_path / "env", protocol=protocol)
    for row in rows:
        k = row["chunk"]
        step = env.steps[k]
        parsed = parse_answer(row["reference"], step.calls[-1].schema)
        assert parsed is not None and parsed == json.loads(step.answer)  # the same operations, parsed back
        assert any(parse_answer(row["reference"], s) is not None for s in schemas)
        reward = env.step(k, row["reference"])
        assert reward.probe_accuracy == step.accuracy and reward.format_valid == 1.0
    # Answering with nothing in the protocol's format writes nothing: the first chunk's probes then fail.
    empty = json.dumps({"memory": []})  # mem0 reconcile and hy extract both list under "memory"
    worse = env.step(0, empty)
    assert worse.probe_accuracy < env.steps[0].accuracy and worse.format_valid == 1.0
    assert env.step(0, "not json").format_valid == 0.0


def test_an_unknown_protocol_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown protocol letta"):
        check_protocols(["pro", "letta"])
    result = CliRunner().invoke(cli, ["train", "export", "--out", str(tmp_path), "--protocol", "letta"])
    assert result.exit_code != 0 and "unknown protocol letta" in result.output


def test_the_grpo_reward_scores_each_completion_in_its_rows_protocol(tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from memscribe.train.stages import EnvReward

    rows = [
        r for r in export_rows([make_scenario(0, 2)], tmp_path / "x", protocols=("pro", "mem0")) if r["kind"] == "rl"
    ]
    reward = EnvReward(tmp_path / "env")
    assert EnvReward(tmp_path / "carry", carry=True).env(rows[0]["scenario"]).carry  # --carry reaches the env
    scores = reward(
        [r["prompt"] for r in rows], [r["reference"] for r in rows],
        scenario=[json.dumps(r["scenario"]) for r in rows], chunk=[r["chunk"] for r in rows],
        protocol=[r["protocol"] for r in rows],
    )  # fmt: skip
    assert [h["format_valid"] for h in reward.history] == [1.0] * len(rows)
    assert sorted(reward.envs) == sorted({("mem0-" if r["protocol"] == "mem0" else "") + r["scenario"]["scenario_id"]
                                          for r in rows})  # fmt: skip
    # A pro answer sent to the mem0 environment does not parse against the mem0 schema.
    reward([rows[-1]["prompt"]], [rows[0]["reference"]], scenario=[json.dumps(rows[-1]["scenario"])],
           chunk=[rows[-1]["chunk"]], protocol=["mem0"])  # fmt: skip
    assert reward.history[-1]["format_valid"] == 0.0 and len(scores) == len(rows)
