"""``memscribe train``: export training data, and run the two stages (the stages need the train extra).

``train export`` needs only the base install. ``train sft`` and ``train grpo`` import torch, transformers,
TRL and peft when run, so ``memscribe --help`` works without them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memscribe.cli.output import dump_json
from memscribe.cli.state import CliState

__all__ = ["register", "train_group"]


def _emit(state: CliState, data: dict[str, Any], text: Callable[[], str]) -> None:
    if state.json:
        dump_json(data)
    else:
        click.echo(text())


@click.group("train")
def train_group() -> None:
    """Train small writer models: datasets, stage 1 (SFT / distillation), stage 2 (GRPO with memory rewards)."""


@train_group.command("export")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True, help="Folder.")
@click.option("--scenarios", type=click.IntRange(min=1), default=20, show_default=True, help="Generated scenarios.")
@click.option("--seed", type=int, default=7, show_default=True, help="Scenario generator seed.")
@click.option("--teacher", default=None, help="provider:model of the writer that answers (default: lite rules).")
@click.option("--teacher-base-url", default=None, help="OpenAI-compatible URL of the teacher.")
@click.pass_obj
def export_cmd(
    state: CliState, out_dir: Path, scenarios: int, seed: int, teacher: str | None, teacher_base_url: str | None
) -> None:
    """Write sft.jsonl and rl.jsonl (schema memscribe-train/1) from a writer's runs on generated scenarios."""
    from memscribe.bench.scenarios import generate_scenarios
    from memscribe.train.dataset import SCHEMA, export_rows, write_rows

    chat: Any = None
    if teacher is not None:
        from memscribe.providers.presets import make_chat

        chat = make_chat(teacher, base_url=teacher_base_url)
    rows = export_rows(
        generate_scenarios(scenarios, seed), out_dir / "work", writer=chat, writer_name=teacher or "scripted-lite"
    )
    counts = write_rows(rows, out_dir)
    result = {"schema": SCHEMA, "out": str(out_dir), **counts}
    _emit(state, result, lambda: f"wrote {counts['sft']} sft and {counts['rl']} rl rows ({SCHEMA}) to {out_dir}")


def _load(model: str, gguf: str | None) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    options = {"gguf_file": gguf} if gguf else {}
    return AutoModelForCausalLM.from_pretrained(model, **options), AutoTokenizer.from_pretrained(model, **options)


@train_group.command("sft")
@click.option("--model", required=True, help="A Hugging Face folder (or a folder holding a GGUF, with --gguf).")
@click.option("--gguf", default=None, help="GGUF file name inside --model (transformers dequantises it).")
@click.option("--data", "data_path", type=click.Path(dir_okay=False, path_type=Path), required=True, help="sft.jsonl")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--steps", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--lr", type=float, default=2e-4, show_default=True)
@click.option("--lora-rank", type=click.IntRange(min=0), default=8, show_default=True, help="0: full fine-tune.")
@click.pass_obj
def sft_cmd(
    state: CliState, model: str, gguf: str | None, data_path: Path, out_dir: Path, steps: int, lr: float, lora_rank: int
) -> None:
    """Stage 1: supervised distillation of a teacher writer's answers; exports a merged HF folder."""
    from memscribe.train.dataset import read_rows
    from memscribe.train.stages import export, lora, serving_command, sft

    network, tokenizer = _load(model, gguf)
    if lora_rank:
        network = lora(network, rank=lora_rank, alpha=2 * lora_rank)
    losses = sft(network, tokenizer, read_rows(data_path, "sft"), out_dir / "run", steps=steps, lr=lr)
    folder = export(network, tokenizer, out_dir / "model")
    result = {"losses": losses, "model": str(folder), "serve": serving_command(folder)}
    _emit(state, result, lambda: f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; model in {folder}\n{result['serve']}")


@train_group.command("grpo")
@click.option("--model", required=True, help="A Hugging Face folder (e.g. the output of train sft).")
@click.option("--gguf", default=None, help="GGUF file name inside --model.")
@click.option("--data", "data_path", type=click.Path(dir_okay=False, path_type=Path), required=True, help="rl.jsonl")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--steps", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--lr", type=float, default=1e-5, show_default=True)
@click.option("--generations", type=click.IntRange(min=2), default=4, show_default=True)
@click.option("--max-completion-length", type=click.IntRange(min=1), default=256, show_default=True)
@click.option("--horizon", type=click.IntRange(min=0), default=1, show_default=True, help="Chunks replayed.")
@click.option("--lora-rank", type=click.IntRange(min=0), default=8, show_default=True, help="0: full fine-tune.")
@click.pass_obj
def grpo_cmd(
    state: CliState, model: str, gguf: str | None, data_path: Path, out_dir: Path, steps: int, lr: float,
    generations: int, max_completion_length: int, horizon: int, lora_rank: int,
) -> None:  # fmt: skip
    """Stage 2: GRPO with the memory environment's rewards; exports a merged HF folder."""
    from memscribe.train.dataset import read_rows
    from memscribe.train.stages import export, grpo, lora, serving_command

    network, tokenizer = _load(model, gguf)
    if lora_rank:
        network = lora(network, rank=lora_rank, alpha=2 * lora_rank)
    reward = grpo(
        network, tokenizer, read_rows(data_path, "rl"), out_dir / "run", steps=steps, lr=lr,
        generations=generations, max_completion_length=max_completion_length, horizon=horizon,
    )  # fmt: skip
    folder = export(network, tokenizer, out_dir / "model")
    totals = [float(h["total"]) for h in reward.history]
    half = max(len(totals) // 2, 1)
    first, last = sum(totals[:half]) / half, sum(totals[-half:]) / half
    result = {"reward_first_half": first, "reward_last_half": last, "model": str(folder),
              "serve": serving_command(folder)}  # fmt: skip
    _emit(state, result, lambda: f"reward {first:.3f} -> {last:.3f}; model in {folder}\n{result['serve']}")


def _tiny_loader() -> Callable[[], tuple[Any, Any]]:
    from memscribe.bench.scenarios import generate_scenarios
    from memscribe.train.tiny import tiny_model, tiny_tokenizer
    from memscribe.write.llm.render import fixed_prompt

    texts = [fixed_prompt("en")] + [t.content for s in generate_scenarios(4, 101) for c in s.chunks for t in c.turns]
    tokenizer = tiny_tokenizer(texts)
    return lambda: (tiny_model(tokenizer), tokenizer)


@train_group.command("demo")
@click.option("--model", default=None, help="A Hugging Face folder, or a folder holding a GGUF (with --gguf).")
@click.option("--gguf", default=None, help="GGUF file name inside --model, e.g. SmolLM2-135M-Instruct's.")
@click.option("--tiny", is_flag=True, help="A tiny random model instead of --model (a smoke run, no download).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--seeds", default="0,1,2", show_default=True, help="Training seeds, comma-separated.")
@click.option("--sft-steps", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--grpo-steps", type=click.IntRange(min=1), default=5, show_default=True)
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=256, show_default=True)
@click.pass_obj
def demo_cmd(
    state: CliState, model: str | None, gguf: str | None, tiny: bool, out_dir: Path, seeds: str, sft_steps: int,
    grpo_steps: int, max_new_tokens: int,
) -> None:  # fmt: skip
    """SFT then GRPO on generated scenarios; reward and probe accuracy before/after on held-out ones."""
    if (model is None) == (not tiny):
        raise click.UsageError("give --model (a real model) or --tiny (a smoke run), not both or neither")
    from memscribe.train.demo import run_demo

    load = _tiny_loader() if tiny else (lambda: _load(str(model), gguf))
    numbers = [int(s) for s in seeds.split(",") if s.strip()]
    result = run_demo(load, out_dir, seeds=numbers, sft_steps=sft_steps, grpo_steps=grpo_steps,
                      max_new_tokens=max_new_tokens, lora_rank=0 if tiny else 8)  # fmt: skip

    def text() -> str:
        b = result["before"]
        lines = [f"held-out chunks: {result['held_out_chunks']}",
                 f"before: reward {b['reward']:.3f}  probe accuracy {b['probe_accuracy']:.3f}"]  # fmt: skip
        for r in result["runs"]:
            a = r["after"]
            lines.append(f"seed {r['seed']}: reward {a['reward']:.3f}  probe accuracy {a['probe_accuracy']:.3f}  "
                         f"(sft {r['sft_s']} s, grpo {r['grpo_s']} s)")  # fmt: skip
        lines.append(f"rise {result['rise']:+.3f}, seed spread {result['spread']:.3f}: {result['verdict']}")
        return "\n".join(lines)

    _emit(state, result, text)


def register(root: click.Group) -> None:
    """Add ``train`` to the root command group."""
    root.add_command(train_group)
