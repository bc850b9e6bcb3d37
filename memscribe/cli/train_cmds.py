"""``memscribe train``: export training data, and run the two stages (the stages need the train extra).

``train export`` needs only the base install. ``train sft`` and ``train grpo`` import torch, transformers,
TRL and peft when run, so ``memscribe --help`` works without them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memscribe.cli.state import CliState
from memscribe.cli.train_serving_cmds import emit, eval_cmd, load_model, serve_cmd

__all__ = ["register", "train_group"]


@click.group("train")
def train_group() -> None:
    """Train small writer models: datasets, stage 1 (SFT / distillation), stage 2 (GRPO with memory rewards)."""


@train_group.command("export")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True, help="Folder.")
@click.option("--scenarios", type=click.IntRange(min=1), default=20, show_default=True, help="Generated scenarios.")
@click.option("--seed", type=int, default=7, show_default=True, help="Scenario generator seed.")
@click.option("--teacher", default=None, help="provider:model of the writer that answers (default: lite rules).")
@click.option("--teacher-base-url", default=None, help="OpenAI-compatible URL of the teacher.")
@click.option("--protocol", "protocols", default="pro", show_default=True,
              help="Comma-separated writer protocols of the rows: pro, mem0, hy.")  # fmt: skip
@click.option("--store", "store_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Export an existing store's journal instead of generated scenarios (pro rows).")  # fmt: skip
@click.option("--prompt-style", type=click.Choice(["full", "compact"]), default="full", show_default=True,
              help="The pro request's system prompt: compact is the short one for small models.")  # fmt: skip
@click.pass_obj
def export_cmd(
    state: CliState, out_dir: Path, scenarios: int, seed: int, teacher: str | None, teacher_base_url: str | None,
    protocols: str, store_path: Path | None, prompt_style: str,
) -> None:  # fmt: skip
    """Write sft.jsonl and rl.jsonl (schema memscribe-train/1) from a writer's runs on generated scenarios,
    or from the journal of an existing store (--store)."""
    from memscribe.train.dataset import SCHEMA, export_rows, write_rows

    if store_path is not None:
        _export_store(state, store_path, out_dir, prompt_style)
        return
    chat: Any = None
    if teacher is not None:
        from memscribe.providers.presets import make_chat

        chat = make_chat(teacher, base_url=teacher_base_url)
    from memscribe.bench.scenarios import generate_scenarios
    from memscribe.train.protocols import check_protocols

    chosen = check_protocols([p.strip() for p in protocols.split(",") if p.strip()])
    rows = export_rows(generate_scenarios(scenarios, seed), out_dir / "work", writer=chat,
                       writer_name=teacher or "scripted-lite", protocols=chosen,
                       prompt_style=prompt_style)  # fmt: skip
    counts = write_rows(rows, out_dir)
    result = {"schema": SCHEMA, "out": str(out_dir), "protocols": list(chosen), **counts}
    emit(state, result, lambda: f"wrote {counts['sft']} sft and {counts['rl']} rl rows ({SCHEMA}) to {out_dir}")


def _export_store(state: CliState, store_path: Path, out_dir: Path, prompt_style: str) -> None:
    """``train export --store``: the rows of every written episode in the store's journal."""
    from memscribe.train.dataset import SCHEMA, write_rows
    from memscribe.train.journal import JournalExport, journal_rows

    report = JournalExport()
    try:
        counts = write_rows(journal_rows(store_path, report=report, prompt_style=prompt_style), out_dir)
    except (FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    result = {"schema": SCHEMA, "out": str(out_dir), "protocols": ["pro"], **counts, "store": report.as_dict()}
    emit(state, result, lambda: f"wrote {counts['sft']} sft and {counts['rl']} rl rows ({SCHEMA}) to {out_dir} "
          f"from {report.episodes} episodes of {store_path} (writers {report.writers}; left out: "
          f"{report.skipped} unwritten episodes, {report.rejected} rejected and {report.untargeted} untargeted "
          "operations)")  # fmt: skip


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

    network, tokenizer = load_model(model, gguf)
    if lora_rank:
        network = lora(network, rank=lora_rank, alpha=2 * lora_rank)
    losses = sft(network, tokenizer, read_rows(data_path, "sft"), out_dir / "run", steps=steps, lr=lr)
    folder = export(network, tokenizer, out_dir / "model")
    result = {"losses": losses, "model": str(folder), "serve": serving_command(folder)}
    emit(state, result, lambda: f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; model in {folder}\n{result['serve']}")


def _judge_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--judge-url / --judge-model / --judge-weight: the step-level teacher judge on an OpenAI-compatible URL."""
    for option in reversed([
        click.option("--judge-url", default=None, help="OpenAI-compatible URL of a teacher that judges each step."),
        click.option("--judge-model", default=None, help="The judge's model name at --judge-url."),
        click.option("--judge-weight", type=float, default=0.5, show_default=True, help="Weight of its score."),
    ]):  # fmt: skip
        command = option(command)
    return command


def _judge(url: str | None, model: str | None) -> Any:
    """The step-level judge over ``model`` at ``url``, or None when neither is given."""
    if url is None and model is None:
        return None
    if url is None or model is None:
        raise click.UsageError("the step-level judge needs both --judge-url and --judge-model")
    from memscribe.providers.presets import make_chat
    from memscribe.train.judge import StepJudge

    return StepJudge(make_chat(f"openai-compatible:{model}", base_url=url))


def _grpo_report(reward: Any, folder: Path) -> dict[str, Any]:
    """First- and last-half mean rollout reward, judge failures, and how to serve the exported folder."""
    from memscribe.train.stages import serving_command

    totals = [float(h["total"]) for h in reward.history]
    half = max(len(totals) // 2, 1)
    first, last = sum(totals[:half]) / half, sum(totals[-half:]) / half
    result = {"reward_first_half": first, "reward_last_half": last, "rollouts": len(totals), "model": str(folder),
              "serve": serving_command(folder)}  # fmt: skip
    if reward.judge is not None:
        result["judge_failures"] = reward.judge.failures
        judged = [float(h["judge"]) for h in reward.history if "judge" in h]
        result["judge_mean"] = sum(judged) / len(judged) if judged else None
    return result


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
@click.option("--carry", is_flag=True, help="Start chunk k+1's rollouts from the bank the policy wrote at chunk k.")
@_judge_options
@click.pass_obj
def grpo_cmd(
    state: CliState, model: str, gguf: str | None, data_path: Path, out_dir: Path, steps: int, lr: float,
    generations: int, max_completion_length: int, horizon: int, lora_rank: int, carry: bool,
    judge_url: str | None, judge_model: str | None, judge_weight: float,
) -> None:  # fmt: skip
    """Stage 2: GRPO with the memory environment's rewards; exports a merged HF folder."""
    judge = _judge(judge_url, judge_model)
    from memscribe.train.dataset import read_rows
    from memscribe.train.stages import export, grpo, lora

    network, tokenizer = load_model(model, gguf)
    if lora_rank:
        network = lora(network, rank=lora_rank, alpha=2 * lora_rank)
    reward = grpo(
        network, tokenizer, read_rows(data_path, "rl"), out_dir / "run", steps=steps, lr=lr,
        generations=generations, max_completion_length=max_completion_length, horizon=horizon,
        judge=judge, judge_weight=judge_weight, carry=carry,
    )  # fmt: skip
    result = _grpo_report(reward, export(network, tokenizer, out_dir / "model"))
    emit(state, result, lambda: f"reward {result['reward_first_half']:.3f} -> {result['reward_last_half']:.3f}; "
          f"model in {result['model']}\n{result['serve']}")  # fmt: skip


@train_group.command("distill")
@click.option("--model", required=True, help="The student: a Hugging Face folder, or a GGUF's folder.")
@click.option("--gguf", default=None, help="GGUF file name inside --model.")
@click.option("--teacher", default=None, help="Token level: the teacher's folder (it must share the tokenizer).")
@click.option("--teacher-gguf", default=None, help="GGUF file name inside --teacher.")
@_judge_options
@click.option("--data", "data_path", type=click.Path(dir_okay=False, path_type=Path), required=True, help="rl.jsonl")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--steps", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--lr", type=float, default=1e-4, show_default=True)
@click.option("--generations", type=click.IntRange(min=2), default=4, show_default=True, help="Step level.")
@click.option("--max-completion-length", type=click.IntRange(min=1), default=256, show_default=True)
@click.option("--lora-rank", type=click.IntRange(min=0), default=8, show_default=True, help="0: full fine-tune.")
@click.pass_obj
def distill_cmd(
    state: CliState, model: str, gguf: str | None, teacher: str | None, teacher_gguf: str | None,
    judge_url: str | None, judge_model: str | None, judge_weight: float, data_path: Path, out_dir: Path,
    steps: int, lr: float, generations: int, max_completion_length: int, lora_rank: int,
) -> None:  # fmt: skip
    """Stage 1, on-policy distillation: token level towards --teacher (same tokenizer), or step level with a
    teacher judging each operation (--judge-url/--judge-model)."""
    judge = _judge(judge_url, judge_model)
    if (teacher is None) == (judge is None):
        raise click.UsageError("give --teacher (token level) or --judge-url and --judge-model (step level)")
    from memscribe.train.dataset import read_rows
    from memscribe.train.stages import distill, export, grpo, lora, same_tokenizer, serving_command

    rows = read_rows(data_path, "rl")
    network, tokenizer = load_model(model, gguf)
    teacher_model: Any = None
    if teacher is not None:
        teacher_model, teacher_tokenizer = load_model(teacher, teacher_gguf)
        if not same_tokenizer(tokenizer, teacher_tokenizer):
            raise click.UsageError("teacher and student tokenizers differ: token-level distillation needs one "
                                   "vocabulary; judge each step instead (--judge-url/--judge-model)")  # fmt: skip
    if lora_rank:
        network = lora(network, rank=lora_rank, alpha=2 * lora_rank)
    if teacher_model is not None:
        losses = distill(network, teacher_model, tokenizer, rows, out_dir / "run", steps=steps, lr=lr,
                         max_completion_length=max_completion_length)  # fmt: skip
        folder = export(network, tokenizer, out_dir / "model")
        result: dict[str, Any] = {"level": "token", "losses": losses, "model": str(folder),
                                  "serve": serving_command(folder)}  # fmt: skip
        text = f"token-level distillation: loss {losses[0]:.3f} -> {losses[-1]:.3f}; model in {folder}"
    else:
        reward = grpo(network, tokenizer, rows, out_dir / "run", steps=steps, lr=lr, generations=generations,
                      max_completion_length=max_completion_length, judge=judge, judge_weight=judge_weight,
                      env_weight=0.0)  # fmt: skip
        result = {"level": "step", **_grpo_report(reward, export(network, tokenizer, out_dir / "model"))}
        text = (f"step-level distillation: judge reward {result['reward_first_half']:.3f} -> "
                f"{result['reward_last_half']:.3f} ({result['judge_failures']} judge failures); model in "
                f"{result['model']}")  # fmt: skip
    emit(state, result, lambda: f"{text}\n{result['serve']}")


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
@click.option("--train-scenarios", type=click.IntRange(min=1), default=6, show_default=True)
@click.option("--eval-scenarios", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--eval-chunks", type=click.IntRange(min=0), default=0, show_default=True, help="0: all held-out.")
@click.option("--sft-steps", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--grpo-steps", type=click.IntRange(min=1), default=5, show_default=True)
@click.option("--sft-lr", type=float, default=2e-4, show_default=True)
@click.option("--sft-batch", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--grpo-lr", type=float, default=1e-5, show_default=True)
@click.option("--generations", type=click.IntRange(min=2), default=2, show_default=True)
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=256, show_default=True)
@click.option("--lora-rank", type=click.IntRange(min=0), default=None, help="Default: 8, or 0 with --tiny.")
@click.option("--prompt-style", type=click.Choice(["full", "compact"]), default="full", show_default=True,
              help="The pro request's system prompt (compact: the short one for small models).")  # fmt: skip
@click.option("--held-out-seed", type=int, default=202, show_default=True,
              help="Generator seed of the held-out scenarios (another one is a development set).")  # fmt: skip
@click.option("--eval-batch", type=click.IntRange(min=1), default=8, show_default=True,
              help="Held-out requests answered per generate call.")  # fmt: skip
@click.option("--resume", is_flag=True, help="Keep the figures in OUT/demo.json; run only the seeds not yet run.")
@click.pass_obj
def demo_cmd(
    state: CliState, model: str | None, gguf: str | None, tiny: bool, out_dir: Path, seeds: str,
    train_scenarios: int, eval_scenarios: int, eval_chunks: int, sft_steps: int, grpo_steps: int,
    sft_lr: float, sft_batch: int, grpo_lr: float, generations: int, max_new_tokens: int, lora_rank: int | None,
    prompt_style: str, held_out_seed: int, eval_batch: int, resume: bool,
) -> None:  # fmt: skip
    """SFT then GRPO on generated scenarios; reward and probe accuracy before/after on held-out ones."""
    if (model is None) == (not tiny):
        raise click.UsageError("give --model (a real model) or --tiny (a smoke run), not both or neither")
    from memscribe.train.demo import DemoConfig, run_demo

    load = _tiny_loader() if tiny else (lambda: load_model(str(model), gguf))
    config = DemoConfig(
        seeds=tuple(int(s) for s in seeds.split(",") if s.strip()), train_scenarios=train_scenarios,
        eval_scenarios=eval_scenarios, eval_chunks=eval_chunks, sft_steps=sft_steps, grpo_steps=grpo_steps,
        sft_lr=sft_lr, sft_batch=sft_batch, grpo_lr=grpo_lr, generations=generations, max_new_tokens=max_new_tokens,
        lora_rank=(0 if tiny else 8) if lora_rank is None else lora_rank, prompt_style=prompt_style,
        held_out_seed=held_out_seed, eval_batch=eval_batch,
    )  # fmt: skip
    try:
        result = run_demo(load, out_dir, config, progress=lambda line: click.echo(line, err=True), resume=resume)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    emit(state, result, lambda: demo_table(result))


def demo_table(result: dict[str, Any]) -> str:
    """The demo's before/after table, in Markdown."""
    keys = ("reward", "probe_accuracy", "format_valid")
    lines = [f"held-out chunks: {result['held_out_chunks']}; training rows: {result['train_rows']}", "",
             "| run | reward | probe accuracy | format valid | sft s | grpo s | eval s |", "|---" * 7 + "|",
             "| before (base) | " + " | ".join(f"{result['before'][k]:.3f}" for k in keys)
             + f" | | | {result['before']['eval_s']} |"]  # fmt: skip
    for r in result["runs"]:
        a = r["after"]
        lines.append(f"| seed {r['seed']} | " + " | ".join(f"{a[k]:.3f}" for k in keys)
                     + f" | {r['sft_s']} | {r['grpo_s']} | {r['eval_s']} |")  # fmt: skip
    lines.append("")
    for k in keys:
        v = result[k]
        lines.append(f"{k}: rise {v['rise']:+.3f}, seed spread {v['spread']:.3f}: {v['verdict']}")
    lines.append(f"model: {result.get('model', '(none trained in this run)')}")
    return "\n".join(lines)


@train_group.command("export-gguf")
@click.option("--model", "folder", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="An exported Hugging Face folder (train sft/grpo/demo output).")  # fmt: skip
@click.option("--out", "outfile", type=click.Path(dir_okay=False, path_type=Path), required=True, help="GGUF file.")
@click.option("--converter", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="llama.cpp's convert_hf_to_gguf.py (with its conversion/ and gguf-py/ beside it).")  # fmt: skip
@click.option("--llama-cpp-sdist", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="A llama-cpp-python sdist (.tar.gz) to take the converter from instead.")  # fmt: skip
@click.option("--outtype", type=click.Choice(["f32", "f16", "bf16", "q8_0"]), default="f16", show_default=True)
@click.option("--port", type=click.IntRange(min=1, max=65535), default=8000, show_default=True, help="For the hint.")
@click.pass_obj
def export_gguf_cmd(
    state: CliState, folder: Path, outfile: Path, converter: Path | None, llama_cpp_sdist: Path | None,
    outtype: str, port: int,
) -> None:  # fmt: skip
    """Convert an exported folder to one GGUF file for llama.cpp, and print how to serve it."""
    import tempfile

    from memscribe.train.to_gguf import convert_to_gguf, gguf_summary, llama_serving_command, unpack_converter

    if (converter is None) == (llama_cpp_sdist is None):
        raise click.UsageError("give --converter (convert_hf_to_gguf.py) or --llama-cpp-sdist, not both or neither")
    with tempfile.TemporaryDirectory(prefix="memscribe-gguf-") as tmp:
        script = converter or unpack_converter(llama_cpp_sdist or Path(), Path(tmp))
        written = convert_to_gguf(folder, outfile, converter=script, outtype=outtype)
    result = gguf_summary(written) | {"serve": llama_serving_command(written, port=port)}
    emit(state, result, lambda: f"wrote {written} ({result['architecture']}, {result['tensors']} tensors, "
                                 f"{result['bytes'] / 1e6:.1f} MB)\n{result['serve']}")  # fmt: skip


@train_group.command("merge")
@click.option("--model", required=True, help="The base: a Hugging Face folder, or a GGUF's folder (with --gguf).")
@click.option("--gguf", default=None, help="GGUF file name inside --model.")
@click.option("--adapter", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A LoRA adapter folder (a demo seed's OUT/seedN/adapter).")  # fmt: skip
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.pass_obj
def merge_cmd(state: CliState, model: str, gguf: str | None, adapter: Path, out_dir: Path) -> None:
    """Merge a LoRA adapter into its base and export the folder a model server loads."""
    from memscribe.train.stages import export, serving_command

    try:
        network, tokenizer = load_model(model, gguf, str(adapter))
    except (OSError, ValueError) as error:  # peft: no adapter_config.json, or one for another architecture
        raise click.ClickException(f"cannot merge {adapter} into {model}: {error}") from None
    folder = export(network, tokenizer, out_dir)
    result = {"model": str(folder), "serve": serving_command(folder)}
    emit(state, result, lambda: f"merged {adapter} into {model}: {folder}\n{result['serve']}")


def register(root: click.Group) -> None:
    """Add ``train`` to the root command group."""
    train_group.add_command(serve_cmd)
    train_group.add_command(eval_cmd)
    root.add_command(train_group)
