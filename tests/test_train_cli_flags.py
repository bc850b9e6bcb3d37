"""The CLI's flags for the step-level judge (a teacher on an OpenAI-compatible URL), carried banks, and the
distillation stage (token level with a teacher sharing the tokenizer, step level with the judge), run on
tiny random models built here and the shipped fake OpenAI server (needs the train extra)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("trl", reason="the train extra is not installed")

from memscribe.bench.scenarios import generate_scenarios
from memscribe.cli.main import cli
from memscribe.cli.train_cmds import _judge
from memscribe.testing.fake_openai import FakeOpenAIServer
from memscribe.train import export_rows, read_rows, write_rows
from memscribe.train.stages import export
from memscribe.train.tiny import tiny_model, tiny_tokenizer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def _scores(body: dict[str, Any]) -> dict[str, Any]:
    """A judge that gives every numbered operation 0.75."""
    count = sum(1 for line in str(body["messages"][-1]["content"]).splitlines() if line[:1].isdigit() and ". {" in line)
    return {"scores": [{"index": n, "score": 0.75, "why": "ok"} for n in range(1, count + 1)]}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("flags")
    write_rows(export_rows(generate_scenarios(1, 11), root / "work"), root / "data")
    rl = read_rows(root / "data" / "rl.jsonl", "rl")[:2]
    (root / "data" / "rl2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rl), encoding="utf-8")
    texts = [m["content"] for r in rl for m in r["prompt"]] + [r["reference"] for r in rl]
    tokenizer = tiny_tokenizer(texts)
    student = export(tiny_model(tokenizer, seed=0), tokenizer, root / "student")
    teacher = export(tiny_model(tokenizer, seed=1), tokenizer, root / "teacher")
    other_tokenizer = tiny_tokenizer(["completely different words only"], vocab_size=300)
    stranger = export(tiny_model(other_tokenizer, seed=2), other_tokenizer, root / "stranger")
    return {"root": root, "data": root / "data" / "rl2.jsonl", "student": student, "teacher": teacher,
            "stranger": stranger}  # fmt: skip


def _run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["--json", "train", *args])


def _json(done: Any) -> Any:
    """The command's JSON report: the last top-level object on stdout (the trainers print their logs there)."""
    text = done.stdout
    return json.loads(text[text.rindex("\n{\n") + 1 :] if "\n{\n" in text else text)


def test_the_judge_flags_make_a_step_judge_on_the_url() -> None:
    with FakeOpenAIServer(responder=_scores) as server:
        judge = _judge(server.base_url, "teacher-model")
        judgement = judge.judge([{"role": "user", "content": "I moved."}], [{"op": "ADD", "text": "moved"}])
        sent = server.chat_requests[-1]
    assert judgement.score == 0.75 and sent["model"] == "teacher-model"
    assert _judge(None, None) is None


def test_grpo_takes_the_judge_and_carry_flags(setup: dict[str, Any]) -> None:
    with FakeOpenAIServer(responder=_scores) as server:
        done = _run("grpo", "--model", str(setup["student"]), "--data", str(setup["data"]),
                    "--out", str(setup["root"] / "grpo"), "--steps", "1", "--generations", "2",
                    "--max-completion-length", "8", "--lora-rank", "0", "--carry",
                    "--judge-url", server.base_url, "--judge-model", "teacher", "--judge-weight", "0.5")  # fmt: skip
    assert done.exit_code == 0, done.output
    result = _json(done)
    # A random model's text does not parse: the format term charges it and the judge scores it 0 unasked.
    assert result["rollouts"] == 2 and result["judge_failures"] == 0 and result["judge_mean"] == 0.0
    assert (Path(result["model"]) / "config.json").is_file()


def test_step_level_distillation_rewards_the_judges_score_alone(setup: dict[str, Any]) -> None:
    with FakeOpenAIServer(responder=_scores) as server:
        done = _run("distill", "--model", str(setup["student"]), "--data", str(setup["data"]),
                    "--out", str(setup["root"] / "step"), "--steps", "1", "--generations", "2",
                    "--max-completion-length", "8", "--lora-rank", "0",
                    "--judge-url", server.base_url, "--judge-model", "teacher")  # fmt: skip
    assert done.exit_code == 0, done.output
    result = _json(done)
    # env_weight 0: the environment's terms leave the total; an unparseable answer's judge score is 0.
    assert result["level"] == "step" and result["rollouts"] == 2
    assert result["reward_first_half"] == 0.0 and result["reward_last_half"] == 0.0


def test_token_level_distillation_needs_a_teacher_with_the_students_tokenizer(setup: dict[str, Any]) -> None:
    done = _run("distill", "--model", str(setup["student"]), "--teacher", str(setup["teacher"]),
                "--data", str(setup["data"]), "--out", str(setup["root"] / "token"), "--steps", "1",
                "--max-completion-length", "8", "--lora-rank", "0", "--lr", "1e-2")  # fmt: skip
    assert done.exit_code == 0, done.output
    result = _json(done)
    assert result["level"] == "token" and len(result["losses"]) == 1
    stranger = _run("distill", "--model", str(setup["student"]), "--teacher", str(setup["stranger"]),
                    "--data", str(setup["data"]), "--out", str(setup["root"] / "x"))  # fmt: skip
    assert stranger.exit_code == 2 and "tokenizers differ" in stranger.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "give --teacher (token level) or --judge-url and --judge-model"),
        (["--judge-url", "http://127.0.0.1:9/v1"], "needs both --judge-url and --judge-model"),
        (["--teacher", "t", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "j"], "give --teacher"),
    ],
)
def test_distill_flag_mistakes_are_usage_errors(tmp_path: Path, extra: list[str], message: str) -> None:
    rows = tmp_path / "rl.jsonl"
    rows.write_text("", encoding="utf-8")
    done = _run("distill", "--model", "m", "--data", str(rows), "--out", str(tmp_path / "o"), *extra)
    assert done.exit_code == 2 and message in done.output
