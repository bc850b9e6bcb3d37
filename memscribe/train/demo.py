"""``memscribe train demo``: SFT then GRPO on generated scenarios, before/after on held-out ones, over seeds.

The before/after figures are the environment's mean total reward and probe accuracy of greedy answers to the
held-out chunks' requests. A rise counts only when it is larger than the seed-to-seed spread (max - min of the
per-seed "after" figures); anything else is reported as no effect.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memscribe.bench.scenarios import generate_scenarios
from memscribe.train.dataset import export_rows
from memscribe.train.stages import EnvReward, grpo, lora, sft

__all__ = ["evaluate", "run_demo"]


def evaluate(
    model: Any, tokenizer: Any, rows: Sequence[dict[str, Any]], workdir: Path, *, max_new_tokens: int
) -> dict[str, float]:
    """Mean total reward and probe accuracy of the model's greedy answers to ``rows`` (``rl`` rows)."""
    import torch

    scorer = EnvReward(workdir)
    model.eval()
    for row in rows:
        ids = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, return_tensors="pt")
        ids = ids["input_ids"] if not isinstance(ids, torch.Tensor) else ids
        with torch.no_grad():
            out = model.generate(
                ids, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id
            )
        text = tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True)
        scorer([row["prompt"]], [text], scenario=[row["scenario"]], chunk=[row["chunk"]])
    model.train()
    n = max(len(scorer.history), 1)
    return {
        "reward": sum(float(h["total"]) for h in scorer.history) / n,
        "probe_accuracy": sum(float(h["probe_accuracy"]) for h in scorer.history) / n,
        "format_valid": sum(float(h["format_valid"]) for h in scorer.history) / n,
    }


def run_demo(
    load: Callable[[], tuple[Any, Any]],
    out: Path,
    *,
    seeds: Sequence[int] = (0, 1, 2),
    train_scenarios: int = 6,
    eval_scenarios: int = 2,
    sft_steps: int = 20,
    grpo_steps: int = 5,
    generations: int = 2,
    max_new_tokens: int = 256,
    lora_rank: int = 8,
) -> dict[str, Any]:
    """The demo's table: per seed, figures before and after both stages, wall time per stage, and a verdict."""
    rows = list(export_rows(generate_scenarios(train_scenarios, 101), out / "train-data"))
    held = [r for r in export_rows(generate_scenarios(eval_scenarios, 202), out / "eval-data") if r["kind"] == "rl"]
    sft_rows, rl_rows = [r for r in rows if r["kind"] == "sft"], [r for r in rows if r["kind"] == "rl"]
    model, tokenizer = load()
    started = time.monotonic()
    before = evaluate(model, tokenizer, held, out / "eval-before", max_new_tokens=max_new_tokens)
    runs: list[dict[str, Any]] = []
    for seed in seeds:
        model, tokenizer = load()
        network = lora(model, rank=lora_rank, alpha=2 * lora_rank) if lora_rank else model
        timings: dict[str, float] = {"eval_before_s": round(time.monotonic() - started, 1)}
        clock = time.monotonic()
        sft(network, tokenizer, sft_rows, out / f"seed{seed}" / "sft", steps=sft_steps, seed=seed)
        timings["sft_s"] = round(time.monotonic() - clock, 1)
        clock = time.monotonic()
        grpo(network, tokenizer, rl_rows, out / f"seed{seed}" / "grpo", steps=grpo_steps, generations=generations,
             max_completion_length=max_new_tokens, seed=seed)  # fmt: skip
        timings["grpo_s"] = round(time.monotonic() - clock, 1)
        after = evaluate(network, tokenizer, held, out / f"seed{seed}" / "eval", max_new_tokens=max_new_tokens)
        runs.append({"seed": seed, "after": after, **timings})
    afters = [r["after"]["reward"] for r in runs]
    spread = max(afters) - min(afters)
    rise = sum(afters) / len(afters) - before["reward"]
    verdict = "improved" if rise > 0 and rise > spread else "no effect"
    return {"before": before, "runs": runs, "rise": rise, "spread": spread, "verdict": verdict,
            "held_out_chunks": len(held)}  # fmt: skip
