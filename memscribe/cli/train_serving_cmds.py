"""``memscribe train serve`` and ``memscribe train eval``: a trained model served over HTTP, and scored as the
pro writer beside its untrained base in one run (the train extra, unless ``eval --url`` names a server)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from memscribe.cli.output import dump_json
from memscribe.cli.state import CliState

__all__ = ["emit", "eval_cmd", "eval_table", "load_model", "serve_cmd"]


def emit(state: CliState, data: dict[str, Any], text: Callable[[], str]) -> None:
    """``data`` as JSON with the root --json flag, else ``text()``."""
    if state.json:
        dump_json(data)
    else:
        click.echo(text())


def load_model(model: str, gguf: str | None, adapter: str | None = None) -> tuple[Any, Any]:
    """Model and tokenizer from a folder (or a GGUF inside it), with a LoRA ``adapter`` merged when given;
    imports the train extra only when called."""
    from memscribe.train.stages import load_model as load

    return load(model, gguf, adapter=adapter)


@click.command("serve")
@click.option("--model", required=True, help="A Hugging Face folder (e.g. runs/demo/model), or a GGUF's folder.")
@click.option("--gguf", default=None, help="GGUF file name inside --model.")
@click.option("--name", default="memscribe-writer", show_default=True, help="The model name clients ask for.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(min=0, max=65535), default=18082, show_default=True)
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=512, show_default=True, help="Answer cap.")
def serve_cmd(model: str, gguf: str | None, name: str, host: str, port: int, max_new_tokens: int) -> None:
    """Serve a model as an OpenAI-compatible endpoint over transformers (greedy; for the pro writer)."""
    from memscribe.train.serve import LocalModels, serve

    server = serve(LocalModels({name: load_model(model, gguf)}, max_new_tokens=max_new_tokens), host=host, port=port)
    url = f"http://{host}:{server.server_address[1]}/v1"
    click.echo(f"serving {name} at {url}\nuse: memscribe --writer pro --llm openai-compatible:{name} "
               f"--llm-base-url {url} ...", err=True)  # fmt: skip
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@click.command("eval")
@click.option(
    "--model",
    required=True,
    help="The trained model: a Hugging Face folder, or with --url the name the server serves it as.",
)
@click.option("--gguf", default=None, help="GGUF file name inside --model, when it is one.")
@click.option(
    "--base",
    required=True,
    help="The untrained base: a Hugging Face folder or a GGUF's folder, or with --url its served name.",
)
@click.option("--base-gguf", default=None, help="GGUF file name inside --base.")
@click.option(
    "--url",
    default=None,
    help="A running OpenAI-compatible server (e.g. llama.cpp) serving both models: nothing is loaded.",
)
@click.option(
    "--provider",
    type=click.Choice(["openai-compatible", "llamacpp", "vllm", "sglang"]),
    default="openai-compatible",
    show_default=True,
    help="Preset of the natural run's pro writer.",
)
@click.option("--scenarios", type=click.IntRange(min=1), default=2, show_default=True, help="Held-out generated.")
@click.option("--seed", type=int, default=202, show_default=True, help="Generator seed (the demo holds out 202).")
@click.option("--chunks", type=click.IntRange(min=0), default=0, show_default=True, help="First N chunks; 0: all.")
@click.option("--natural", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Also run the shipped pro writer on a subset of this natural-scenario JSONL file.")  # fmt: skip
@click.option("--natural-scenarios", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--port", type=click.IntRange(min=0, max=65535), default=18082, show_default=True)
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=256, show_default=True)
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="JSON report.")
@click.option("--prompt-style", type=click.Choice(["full", "compact"]), default="full", show_default=True,
              help="The held-out pro requests' system prompt (compact for a model trained on it).")  # fmt: skip
@click.pass_obj
def eval_cmd(
    state: CliState, model: str, gguf: str | None, base: str, base_gguf: str | None, url: str | None,
    provider: str, scenarios: int, seed: int, chunks: int, natural: Path | None, natural_scenarios: int, port: int,
    max_new_tokens: int, out_path: Path | None, prompt_style: str,
) -> None:  # fmt: skip
    """The trained model as the pro writer beside its untrained base, both served, in one run."""
    import contextlib

    from memscribe.train.serve import LocalModels, serving

    names = {"base": base, "trained": model}
    report: dict[str, Any] = {"model": model, "base": base, "seed": seed, "scenarios": scenarios, "runs": {}}
    if url is None:
        models = LocalModels({"trained": load_model(model, gguf), "base": load_model(base, base_gguf)},
                             max_new_tokens=max_new_tokens)  # fmt: skip
        names = {"base": "base", "trained": "trained"}
        endpoint: Any = serving(models, port=port)
    else:
        endpoint = contextlib.nullcontext(url)
    with endpoint as served_at:
        report["served_at"] = served_at
        _eval_runs(report, served_at, names, _EvalPlan(scenarios, seed, chunks, natural, natural_scenarios,
                   provider, max_new_tokens, out_path, prompt_style))  # fmt: skip
    emit(state, report, lambda: eval_table(report))


@dataclass(frozen=True)
class _EvalPlan:
    scenarios: int
    seed: int
    chunks: int
    natural: Path | None
    natural_scenarios: int
    provider: str
    max_new_tokens: int
    out_path: Path | None
    prompt_style: str = "full"


def _eval_runs(report: dict[str, Any], url: str, names: dict[str, str], plan: _EvalPlan) -> None:
    """Base, then trained: held-out chunks and the optional natural subset, the report saved after each."""
    import tempfile

    from memscribe.train.evaluate import eval_chunks, eval_natural, held_out_rows

    def say(line: str) -> None:
        click.echo(line, err=True)

    with tempfile.TemporaryDirectory(prefix="memscribe-train-eval-") as tmp:
        rows = held_out_rows(plan.scenarios, plan.seed, Path(tmp) / "data", chunks=plan.chunks,
                             prompt_style=plan.prompt_style)  # fmt: skip
        for role in ("base", "trained"):
            name, clock = names[role], time.monotonic()
            held = eval_chunks(url, name, rows, Path(tmp) / "env" / role, max_tokens=plan.max_new_tokens, progress=say)
            run: dict[str, Any] = {"served_as": name, "held_out": held}
            run["held_out_s"] = round(time.monotonic() - clock, 1)
            if plan.natural is not None:
                clock = time.monotonic()
                run["natural"] = eval_natural(url, name, plan.natural, plan.natural_scenarios,
                                              Path(tmp) / f"nat-{role}", provider=plan.provider)  # fmt: skip
                run["natural_s"] = round(time.monotonic() - clock, 1)
                say(f"{role}: natural {run['natural']}")
            report["runs"][role] = run
            if plan.out_path is not None:
                plan.out_path.parent.mkdir(parents=True, exist_ok=True)
                plan.out_path.write_text(json.dumps(report, indent=1), encoding="utf-8")


def eval_table(report: dict[str, Any]) -> str:
    """Base and trained side by side, in Markdown."""
    runs = report["runs"]
    names = list(runs)
    lines = ["| metric | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    keys = ("reward", "probe_accuracy", "format_valid", "over_storage", "stale", "wrong_supersede", "attributed")
    first = runs[names[0]]["held_out"]
    lines.append("| held-out chunks | " + " | ".join(str(runs[n]["held_out"]["chunks"]) for n in names) + " |")
    for key in keys:
        if key in first:
            lines.append(f"| {key} | " + " | ".join(f"{runs[n]['held_out'][key]:.3f}" for n in names) + " |")
    if "natural" in runs[names[0]]:
        for key in ("accuracy", "stale_top1", "wrong_supersedes", "calls_per_add", "s_per_add", "add_errors"):
            cells = " | ".join(str(runs[n]["natural"].get(key, "—")) for n in names)
            lines.append(f"| natural {key} | {cells} |")
    return "\n".join(lines)
