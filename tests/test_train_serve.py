"""The local OpenAI-compatible endpoint and ``train eval``'s scoring through it, on a tiny random model."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

pytest.importorskip("transformers", reason="the train extra is not installed")

from memscribe.providers.presets import make_chat
from memscribe.train.evaluate import eval_chunks, held_out_rows
from memscribe.train.serve import LocalModels, serving
from memscribe.train.tiny import tiny_model, tiny_tokenizer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("serve")
    rows = held_out_rows(1, 11, root / "data", chunks=1)
    tokenizer = tiny_tokenizer([m["content"] for row in rows for m in row["prompt"]])
    models = LocalModels({"tiny": (tiny_model(tokenizer), tokenizer)}, max_new_tokens=6)
    with serving(models) as url:
        yield {"url": url, "rows": rows, "root": root}


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_endpoint_lists_its_models_and_answers_within_its_token_cap(served: dict[str, Any]) -> None:
    with urllib.request.urlopen(served["url"] + "/models", timeout=30) as response:
        assert [m["id"] for m in json.loads(response.read())["data"]] == ["tiny"]
    status, reply = _post(served["url"] + "/chat/completions",
                          {"model": "tiny", "messages": served["rows"][0]["prompt"], "max_tokens": 1024})  # fmt: skip
    assert status == 200
    assert reply["usage"]["completion_tokens"] <= 6  # the server's cap wins over the request's 1024
    assert reply["usage"]["prompt_tokens"] > 100
    assert reply["choices"][0]["finish_reason"] in ("stop", "length")
    # Greedy: the same request gets the same answer.
    again = _post(served["url"] + "/chat/completions", {"model": "tiny", "messages": served["rows"][0]["prompt"]})[1]
    assert again["choices"][0]["message"]["content"] == reply["choices"][0]["message"]["content"]


def test_bad_requests_get_a_clear_400(served: dict[str, Any]) -> None:
    status, reply = _post(served["url"] + "/chat/completions", {"model": "other", "messages": [{"role": "user"}]})
    assert status == 400 and "unknown model 'other'; served: tiny" in reply["error"]["message"]
    status, reply = _post(served["url"] + "/chat/completions", {"model": "tiny", "messages": []})
    assert status == 400 and "non-empty" in reply["error"]["message"]


def test_the_pro_writers_client_talks_to_it_as_openai_compatible(served: dict[str, Any]) -> None:
    chat = make_chat("openai-compatible:tiny", base_url=served["url"])
    result = chat.complete([{"role": "user", "content": "hello"}], max_tokens=4)
    assert isinstance(result.text, str) and result.usage.tokens_out <= 6


def test_eval_scores_the_served_answers_with_the_environment(served: dict[str, Any]) -> None:
    report = eval_chunks(served["url"], "tiny", served["rows"], served["root"] / "env", max_tokens=6)
    assert report["chunks"] == 1 and len(report["per_chunk"]) == 1
    # A random model's six tokens never parse as a pro answer: no format credit, nothing stored.
    assert report["format_valid"] == 0.0 and report["per_chunk"][0]["memories"] == 0
    terms = report["per_chunk"][0]
    expected = terms["probe_accuracy"] - 0.5 * (terms["over_storage"] + terms["stale"] + terms["wrong_supersede"]
                                                + terms["attributed"])  # fmt: skip
    assert report["reward"] == pytest.approx(expected, abs=1e-4)


def test_train_eval_uses_a_running_server_for_both_models(served: dict[str, Any]) -> None:
    from click.testing import CliRunner

    from memscribe.cli.main import cli

    out = served["root"] / "eval.json"
    args = ["--json", "train", "eval", "--url", served["url"], "--model", "tiny", "--base", "tiny", "--seed", "11",
            "--scenarios", "1", "--chunks", "1", "--max-new-tokens", "6", "--out", str(out)]  # fmt: skip
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["served_at"] == served["url"]
    assert [report["runs"][r]["served_as"] for r in ("base", "trained")] == ["tiny", "tiny"]
    base, trained = report["runs"]["base"]["held_out"], report["runs"]["trained"]["held_out"]
    assert base["chunks"] == trained["chunks"] == 1
    # One greedy model served under both roles scores the same twice.
    assert base["reward"] == trained["reward"] and base["per_chunk"] == trained["per_chunk"]
