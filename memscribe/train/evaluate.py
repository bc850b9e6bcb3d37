"""``memscribe train eval``: trained writer models beside their untrained base, in one run, served over HTTP.

Every model answers through an OpenAI-compatible endpoint (a running server's URL, or the local transformers
one of :mod:`memscribe.train.serve`), so what is measured is exactly what the ``pro`` writer would get:

* **held-out generated chunks** (always): each chunk's pro request is sent to the endpoint and the answer is
  scored by :class:`~memscribe.train.environment.MemoryEnv` — the real pro writer with no lite fallback, the
  chunk's probes, and the later chunks replayed (reward, probe accuracy, format validity, every term);
* **natural scenarios** (optional, a JSONL path): the shipped ``pro`` writer (with its lite fallback and
  repair, as users run it) through :func:`memscribe.bench.llm_natural.run_writer`, accuracy and cost per add.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memscribe.bench.scenarios import generate_scenarios
from memscribe.train.dataset import export_rows
from memscribe.train.environment import MemoryEnv
from memscribe.train.rewards import RewardWeights

__all__ = ["TERMS", "ask", "eval_chunks", "eval_natural", "held_out_rows"]

TERMS = ("probe_accuracy", "format_valid", "over_storage", "stale", "wrong_supersede", "attributed")


def held_out_rows(
    count: int, seed: int, workdir: Path, *, chunks: int = 0, prompt_style: str = "full"
) -> list[dict[str, Any]]:
    """The RL rows (pro request, scenario, chunk) of ``count`` generated scenarios; the first ``chunks`` if set.
    ``prompt_style="compact"`` sends the pro writer's short prompt (for a model trained on it)."""
    rows = [
        r for r in export_rows(generate_scenarios(count, seed), workdir, prompt_style=prompt_style) if r["kind"] == "rl"
    ]
    return rows[:chunks] if chunks else rows


def ask(base_url: str, model: str, messages: Sequence[Mapping[str, Any]], *, max_tokens: int, timeout: float) -> str:
    """One chat completion's text from an OpenAI-compatible endpoint (temperature 0)."""
    body = {"model": model, "messages": list(messages), "temperature": 0, "max_tokens": max_tokens}
    request = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        payload = json.loads(response.read())
    return str(payload["choices"][0]["message"].get("content") or "")


def eval_chunks(
    base_url: str, model: str, rows: Sequence[dict[str, Any]], workdir: Path, *, max_tokens: int = 256,
    timeout: float = 600.0, progress: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:  # fmt: skip
    """Mean reward and every term of ``model``'s answers to ``rows``, scored by each scenario's environment."""
    envs: dict[str, MemoryEnv] = {}
    scored: list[dict[str, float | int]] = []
    weights = RewardWeights()
    for number, row in enumerate(rows, 1):
        protocol = str(row.get("protocol", "pro"))
        key = f"{protocol}-{row['scenario']['scenario_id']}"
        if key not in envs:
            from memscribe.train.dataset import scenario_from_dict

            envs[key] = MemoryEnv(scenario_from_dict(row["scenario"]), workdir / model / key, protocol=protocol)
        text = ask(base_url, model, row["prompt"], max_tokens=max_tokens, timeout=timeout)
        scored.append(envs[key].step(int(row["chunk"]), text).as_dict(weights))
        progress(f"{model}: chunk {number}/{len(rows)} reward {scored[-1]['total']:.3f}")
    n = max(len(scored), 1)
    means = {k: round(sum(float(s[k]) for s in scored) / n, 4) for k in ("total", *TERMS)}
    return {"model": model, "chunks": len(scored), "reward": means.pop("total"), **means, "per_chunk": scored}


def eval_natural(
    base_url: str,
    model: str,
    path: Path,
    count: int,
    workdir: Path,
    *,
    timeout: float = 600.0,
    provider: str = "openai-compatible",
) -> dict[str, Any]:
    """The shipped pro writer over ``model`` on a fixed subset of a natural-scenario file. ``provider`` is the
    preset the writer talks through (``llamacpp`` asks llama.cpp for grammar-constrained JSON)."""
    from memscribe.bench.llm_natural import load_subset, run_writer
    from memscribe.providers.openai_compat import RetryPolicy
    from memscribe.providers.presets import make_chat

    def chat() -> Any:
        return make_chat(f"{provider}:{model}", base_url=base_url, timeout=timeout,
                         retry=RetryPolicy(max_retries=1))  # fmt: skip

    workdir.mkdir(parents=True, exist_ok=True)
    tally = run_writer("pro", load_subset(path, count), embedder="local", chat_factory=chat, workdir=workdir)
    summary = tally.summary()
    keep = ("scenarios", "probes", "accuracy", "stale_top1", "wrong_supersedes", "calls_per_add", "tokens_per_add",
            "s_per_add", "add_errors")  # fmt: skip
    return {"model": model, **{k: summary[k] for k in keep if k in summary}}
