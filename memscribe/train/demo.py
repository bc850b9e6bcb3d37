"""``memscribe train demo``: SFT then GRPO on generated scenarios, before/after on held-out ones, over seeds.

The before/after figures are the environment's mean total reward, probe accuracy and format validity of greedy
answers to the held-out chunks' requests. A rise counts only when it is larger than the seed-to-seed spread
(max - min of the per-seed "after" figures); anything else is reported as no effect.

With LoRA the base model is loaded once: every seed trains its own adapter, which is removed again before
the next seed, so each seed starts from the same untrained weights. Each seed's adapter is saved
(``out/seedN/adapter``, a few megabytes: ``memscribe train merge`` puts it back on its base) and the last
seed's is merged and exported (``out/model``) so the trained writer can be served and benchmarked. The model
trains and answers on a CUDA device when PyTorch sees one, on the CPU otherwise. Progress is written to
``out/demo.json`` after every stage, so an interrupted run keeps what it measured.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memscribe.bench.scenarios import generate_scenarios
from memscribe.train.dataset import export_rows
from memscribe.train.generation import greedy_answers
from memscribe.train.stages import EnvReward, export, grpo, lora, sft

__all__ = ["DemoConfig", "evaluate", "run_demo", "verdict"]

TRAIN_SEED = 101  # scenario generator seeds: training and held-out scenarios never overlap
HELD_OUT_SEED = 202
MIN_SEEDS = 3  # a rise counts only against the spread of at least three seeds


@dataclass(frozen=True)
class DemoConfig:
    """How big the demo is. The defaults fit a few minutes per seed for SmolLM2-135M on two CPU cores."""

    seeds: tuple[int, ...] = (0, 1, 2)
    train_scenarios: int = 6
    eval_scenarios: int = 2
    eval_chunks: int = 0  # 0: every held-out chunk
    sft_steps: int = 20
    sft_lr: float = 2e-4
    sft_batch: int = 2
    grpo_steps: int = 5
    grpo_lr: float = 1e-5
    generations: int = 2
    max_new_tokens: int = 256
    max_length: int = 1536
    lora_rank: int = 8
    compact: bool = True
    prompt_style: str = "full"  # "compact": the pro writer's short prompt for small models
    held_out_seed: int = HELD_OUT_SEED  # another seed gives a development set to size a run on
    eval_batch: int = 8  # held-out requests answered per generate call


SAMPLES = 2  # greedy answers kept in demo.json per evaluation, so what the model writes can be read
SAMPLE_CHARS = 600


def evaluate(
    model: Any, tokenizer: Any, rows: Sequence[dict[str, Any]], workdir: Path, *, max_new_tokens: int,
    batch_size: int = 8,
) -> dict[str, Any]:  # fmt: skip
    """Mean total reward, probe accuracy and format validity of the model's greedy answers to ``rows``, and
    the first answers themselves (``samples``)."""
    scorer = EnvReward(workdir)
    model.eval()
    texts = greedy_answers(model, tokenizer, [row["prompt"] for row in rows], max_new_tokens=max_new_tokens,
                           batch_size=batch_size)  # fmt: skip
    for row, text in zip(rows, texts, strict=True):
        scorer([row["prompt"]], [text], scenario=[row["scenario"]], chunk=[row["chunk"]])
    model.train()
    n = max(len(scorer.history), 1)
    means: dict[str, Any] = {
        key: round(sum(float(h[name]) for h in scorer.history) / n, 4)
        for key, name in (("reward", "total"), ("probe_accuracy", "probe_accuracy"), ("format_valid", "format_valid"))
    }
    return means | {"samples": [text[:SAMPLE_CHARS] for text in texts[:SAMPLES]]}


def verdict(before: float, afters: Sequence[float]) -> dict[str, Any]:
    """The mean rise over ``before``, the seed-to-seed spread, and whether the rise counts."""
    spread = round(max(afters) - min(afters), 4)
    rise = round(sum(afters) / len(afters) - before, 4)  # rounded first: equal figures give 0, not 1e-17
    if len(afters) < MIN_SEEDS:  # one or two seeds say nothing about the spread
        return {"rise": rise, "spread": spread, "verdict": f"no verdict ({len(afters)} of {MIN_SEEDS} seeds)"}
    counts = rise > 0 and rise > spread
    return {"rise": rise, "spread": spread, "verdict": "improved" if counts else "no effect"}


def _data(out: Path, config: DemoConfig) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    if config.held_out_seed == TRAIN_SEED:
        raise ValueError(f"the held-out seed must differ from the training seed {TRAIN_SEED}")
    rows = list(export_rows(generate_scenarios(config.train_scenarios, TRAIN_SEED), _fresh(out / "train-data"),
                            compact=config.compact, prompt_style=config.prompt_style))  # fmt: skip
    held = [r for r in export_rows(generate_scenarios(config.eval_scenarios, config.held_out_seed),
                                   _fresh(out / "eval-data"), compact=config.compact, prompt_style=config.prompt_style)
            if r["kind"] == "rl"]  # fmt: skip
    if config.eval_chunks:
        held = held[: config.eval_chunks]
    return [r for r in rows if r["kind"] == "sft"], [r for r in rows if r["kind"] == "rl"], held


def _timed(timings: dict[str, Any], key: str, work: Callable[[], Any]) -> Any:
    """Run ``work``, recording its wall time as ``key`` and this process's CPU time as ``key`` with ``cpu_s``:
    on a shared machine the CPU seconds are the figure that carries over to another load."""
    clock, cpu = time.monotonic(), time.process_time()
    value = work()
    timings[key] = round(time.monotonic() - clock, 1)
    timings[key.removesuffix("_s") + "_cpu_s"] = round(time.process_time() - cpu, 1)
    return value


@dataclass(frozen=True)
class _Data:
    sft: list[dict[str, Any]]
    rl: list[dict[str, Any]]
    held: list[dict[str, Any]]


def _train_seed(network: Any, tokenizer: Any, data: _Data, out: Path, config: DemoConfig, run: dict[str, Any],
                progress: Callable[[str], None]) -> None:  # fmt: skip
    """Both stages and the after-figures of one seed, recorded in ``run``."""
    seed, where = int(run["seed"]), _fresh(out / f"seed{run['seed']}")
    losses = _timed(run, "sft_s", lambda: sft(network, tokenizer, data.sft, where / "sft", steps=config.sft_steps,
                    lr=config.sft_lr, max_length=config.max_length, batch_size=config.sft_batch,
                    seed=seed))  # fmt: skip
    run["sft_loss_first"], run["sft_loss_last"] = round(losses[0], 4), round(losses[-1], 4)
    progress(f"seed {seed}: sft {run['sft_s']} s, loss {losses[0]:.3f} -> {losses[-1]:.3f}")
    reward = _timed(run, "grpo_s", lambda: grpo(network, tokenizer, data.rl, where / "grpo", steps=config.grpo_steps,
                    lr=config.grpo_lr, generations=config.generations, max_completion_length=config.max_new_tokens,
                    seed=seed))  # fmt: skip
    run["grpo_rollout_reward"] = round(sum(float(h["total"]) for h in reward.history) / len(reward.history), 4)
    if config.lora_rank:  # the adapter alone (megabytes): `train merge` puts it back on the base anywhere
        network.save_pretrained(str(where / "adapter"))
        run["adapter"] = str(where / "adapter")
    run["after"] = _timed(run, "eval_s", lambda: evaluate(network, tokenizer, data.held, where / "eval",
                          max_new_tokens=config.max_new_tokens, batch_size=config.eval_batch))  # fmt: skip


def run_demo(
    load: Callable[[], tuple[Any, Any]],
    out: Path,
    config: DemoConfig = DemoConfig(),
    *,
    progress: Callable[[str], None] = lambda line: None,
    resume: bool = False,
) -> dict[str, Any]:
    """The demo's table: figures before training and per seed after both stages, wall time per stage, and a
    verdict per figure. With ``resume``, the figures already in ``out/demo.json`` (made with the same
    configuration but its seeds) are kept: the base is not scored again, seeds already run are skipped, and
    the verdict covers every seed run so far. So one seed per run, in turn, adds up to the whole table."""
    out.mkdir(parents=True, exist_ok=True)
    data = _Data(*_data(out, config))
    result = _previous(out, config) if resume else None
    if result is None:
        result = {"config": _config(config), "runs": [], "held_out_chunks": len(data.held),
                  "train_rows": len(data.sft)}  # fmt: skip
    done = {int(r["seed"]) for r in result["runs"]}
    todo = [seed for seed in config.seeds if seed not in done]
    result["config"]["seeds"] = sorted(done | set(todo))
    timings: dict[str, Any] = {}
    model, tokenizer = _timed(timings, "load_s", load)
    if "before" not in result:
        before = _timed(timings, "eval_s", lambda: evaluate(model, tokenizer, data.held, _fresh(out / "eval-before"),
                        max_new_tokens=config.max_new_tokens, batch_size=config.eval_batch))  # fmt: skip
        result["before"] = {**before, **timings}
        _save(out, result, progress, f"before: {result['before']}")
    network: Any = None
    for seed in todo:
        run: dict[str, Any] = {"seed": seed}
        if config.lora_rank:
            network = lora(model, rank=config.lora_rank, alpha=2 * config.lora_rank)
        else:
            model, tokenizer = _timed(run, "load_s", load)
            network = model
        _train_seed(network, tokenizer, data, out, config, run, progress)
        result["runs"].append(run)
        _save(out, result, progress, f"seed {seed}: {run}")
        if config.lora_rank and seed != todo[-1]:
            model = network.unload()  # the base weights, untouched: the next seed starts from them
    if network is not None:
        result["model"] = str(export(network, tokenizer, out / "model"))
    for key in ("reward", "probe_accuracy", "format_valid"):
        result[key] = verdict(result["before"][key], [r["after"][key] for r in result["runs"]])
    _save(out, result, progress, f"done: model in {result.get('model')}")
    return result


def _config(config: DemoConfig) -> dict[str, Any]:
    return config.__dict__ | {"seeds": list(config.seeds)}


def _previous(out: Path, config: DemoConfig) -> dict[str, Any] | None:
    """The results already in ``out/demo.json``, when there are any; another configuration is an error."""
    path = out / "demo.json"
    if not path.exists():
        return None
    result: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    ours, theirs = _config(config), dict(result.get("config", {}))
    differ = sorted(k for k in ours.keys() | theirs.keys() if k != "seeds" and ours.get(k) != theirs.get(k))
    if differ:
        raise ValueError(f"{path} was made with another configuration ({', '.join(differ)} differ): "
                         "use another --out, or the same settings")  # fmt: skip
    result["runs"] = [r for r in result.get("runs", []) if "after" in r]  # an interrupted seed runs again
    return result


def _fresh(path: Path) -> Path:
    """``path`` emptied: a workdir of an interrupted run must not add its stores to a new one's."""
    shutil.rmtree(path, ignore_errors=True)
    return path


def _save(out: Path, result: dict[str, Any], progress: Callable[[str], None], line: str) -> None:
    (out / "demo.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    progress(line)
