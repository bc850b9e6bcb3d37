"""The step-level teacher judge: a chat model over the provider port scores each proposed operation, its term
joins the GRPO reward, and a judge that fails is recorded and left out, not scored as zero."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memscribe.bench.scenarios import make_scenario
from memscribe.providers.openai_compat import OpenAICompatChat
from memscribe.testing.chat import FunctionChat
from memscribe.testing.fake_openai import FakeOpenAIServer
from memscribe.train.dataset import export_rows
from memscribe.train.judge import JUDGE_PROMPT_VERSION, StepJudge


def _halves(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A judge that gives every numbered operation 0.5."""
    count = sum(1 for line in str(messages[-1]["content"]).splitlines() if line[:1].isdigit() and ". {" in line)
    return {"scores": [{"index": n, "score": 0.5, "why": "half"} for n in range(1, count + 1)]}


def test_the_judge_scores_each_operation_through_an_openai_compatible_endpoint() -> None:
    def respond(body: dict[str, Any]) -> Any:
        return _halves(body["messages"])

    with FakeOpenAIServer(responder=respond) as server:
        judge = StepJudge(OpenAICompatChat("judge", base_url=server.base_url))
        ops = [{"op": "ADD", "text": "lives in Lyon"}, {"op": "NOOP", "target": 1}]
        judgement = judge.judge([{"role": "user", "content": "I moved to Lyon."}], ops)
        sent = server.chat_requests[-1]["messages"][-1]["content"]
    assert judgement.scores == (0.5, 0.5) and judgement.score == 0.5 and judgement.version == JUDGE_PROMPT_VERSION
    assert "I moved to Lyon." in sent and '2. {"op": "NOOP", "target": 1}' in sent


def test_a_judge_that_fails_or_scores_other_operations_is_recorded_not_zero() -> None:
    wrong_count = StepJudge(FunctionChat(lambda m: {"scores": [{"index": 1, "score": 1.0}]}))
    judgement = wrong_count.judge([], [{"op": "ADD"}, {"op": "ADD"}])
    assert judgement.score is None and "not 1..2" in (judgement.error or "") and wrong_count.failures == 1
    broken = StepJudge(FunctionChat(lambda m: "no json here"))
    assert broken.judge([], [{"op": "ADD"}]).score is None and broken.failures == 1
    # Unparseable student text is already charged by the format term: the judge is not asked, the score is 0.
    assert broken.judge([], None).score == 0.0 and broken.failures == 1


def test_the_judge_term_joins_the_grpo_reward_and_failures_are_counted(tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from memscribe.train.stages import EnvReward

    rows = [r for r in export_rows([make_scenario(0, 2)], tmp_path / "x") if r["kind"] == "rl"]
    args = {"scenario": [json.dumps(r["scenario"]) for r in rows], "chunk": [r["chunk"] for r in rows]}
    plain = EnvReward(tmp_path / "plain")([r["prompt"] for r in rows], [r["reference"] for r in rows], **args)
    judged = EnvReward(tmp_path / "judged", judge=StepJudge(FunctionChat(_halves)), judge_weight=0.5)
    totals = judged([r["prompt"] for r in rows], [r["reference"] for r in rows], **args)
    assert totals == pytest.approx([p + 0.25 for p in plain])
    assert all(h["judge"] == 0.5 and h["judge_failed"] == 0 for h in judged.history)
    failing = EnvReward(tmp_path / "failing", judge=StepJudge(FunctionChat(lambda m: "down")))
    totals = failing([r["prompt"] for r in rows], [r["reference"] for r in rows], **args)
    assert totals == pytest.approx(plain)  # no judge term, rather than a zero that would read as a bad write
    assert all(h["judge_failed"] == 1 and "judge" not in h for h in failing.history)
    assert all(j.error for j in failing.judgements)
