"""Two served models in one ``bench writers`` run: ``pro@LABEL`` writers, each with its own model name and
endpoint (``--writer-llm``, ``--writer-llm-base-url``), here two fake OpenAI servers on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from memscribe.bench.pro import scripted_pro_chat
from memscribe.cli.main import cli
from memscribe.testing.fake_openai import FakeOpenAIServer
from memscribe.write.prompts.pro_schema import PRO_SCHEMA


def _teacher(body: dict[str, Any]) -> Any:
    """Answers each pro request with the lite rules' decisions (the scripted pro model)."""
    return scripted_pro_chat().complete(body["messages"], schema=PRO_SCHEMA).parsed


def _forgetful(body: dict[str, Any]) -> Any:
    return {"operations": []}


def test_two_served_models_run_side_by_side_as_pro_writers(tmp_path: Path) -> None:
    out = tmp_path / "writers.json"
    with FakeOpenAIServer(responder=_teacher) as good, FakeOpenAIServer(responder=_forgetful) as bad:
        args = ["bench", "writers", "--data", "updates:2:5", "--writer", "pro@trained,pro@base",
                "--writer-llm", "trained=openai-compatible:memscribe-writer",
                "--writer-llm-base-url", f"trained={good.base_url}",
                "--writer-llm", "base=openai-compatible:base-model", "--writer-llm-base-url", f"base={bad.base_url}",
                "--embedder", "hash", "--no-judge", "--no-plots", "-o", str(out)]  # fmt: skip
        done = CliRunner().invoke(cli, args)
        trained_requests, base_requests = list(good.chat_requests), list(bad.chat_requests)
    assert done.exit_code == 0, done.output
    assert trained_requests and {r["model"] for r in trained_requests} == {"memscribe-writer"}
    assert base_requests and {r["model"] for r in base_requests} == {"base-model"}
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["results"]) == {"pro@trained", "pro@base"}
    assert report["config"]["writer_models"] == {
        "trained": f"openai-compatible:memscribe-writer @ {good.base_url}",
        "base": f"openai-compatible:base-model @ {bad.base_url}",
    }
    # Each writer's calls went to its own model: the cost columns count them apart.
    assert out.with_suffix(".md").read_text(encoding="utf-8").count("pro@trained") >= 1


def test_a_writer_naming_an_undefined_model_fails_before_anything_runs(tmp_path: Path) -> None:
    args = ["bench", "writers", "--data", "updates:1", "--writer", "pro@trained", "--writer-llm",
            "base=openai-compatible:b", "--embedder", "hash", "--no-plots", "-o", str(tmp_path / "w.json")]  # fmt: skip
    done = CliRunner().invoke(cli, args)
    assert done.exit_code != 0 and "names model 'trained', which no --writer-llm defines (base)" in done.output
    assert not (tmp_path / "w.json").exists()
    stray = CliRunner().invoke(cli, ["bench", "writers", "--data", "updates:1", "--writer-llm-base-url", "x=http://h"])
    assert stray.exit_code == 2 and "no --writer-llm for label x" in stray.output
