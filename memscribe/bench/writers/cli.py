"""``memscribe bench writers`` and ``memscribe bench compare``."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

__all__ = ["compare_command", "writers_command"]

DEFAULT_WRITERS = "raw,lite"
DEFAULT_PROTOCOLS = "hybrid,cosine,layered"


def _names(value: str, what: str) -> list[str]:
    names = [w.strip() for w in value.split(",") if w.strip()]
    if not names:
        raise click.BadParameter(f"name at least one {what}")
    return names


def _chat_factory(fake: bool, timeout: float) -> Callable[[], Any] | None:
    """The model for writers that need one and for the judge: the fake, the root --llm, or none."""
    if fake:
        from memscribe.bench.writers.fake_model import bench_fake_chat

        return bench_fake_chat
    from dataclasses import replace

    from memscribe.engine.memory import chat_factory
    from memscribe.providers.openai_compat import RetryPolicy
    from memscribe.settings import memory_config

    root = click.get_current_context().find_root().obj
    settings = getattr(root, "settings", None)
    if settings is None:
        return None
    cfg = memory_config(settings)
    options = {**cfg.llm_options, "timeout": timeout, "retry": RetryPolicy(max_retries=1)}
    return chat_factory(replace(cfg, llm_options=options))


def _model_name(fake: bool) -> str | None:
    if fake:
        return "bench-fake"
    root = click.get_current_context().find_root().obj
    setting = getattr(getattr(root, "settings", None), "llm", None)
    value = getattr(setting, "value", setting)  # a settings entry, with where its value came from
    return str(value) if value else None


@click.command("writers")
@click.option("--data", "data", multiple=True, required=True,
              help="natural:PATH[:N], locomo:PATH[:CONVERSATIONS[:SESSIONS]], longmemeval:PATH[:SESSIONS], "
                   "updates[:N[:SEED]]; repeat for several.")  # fmt: skip
@click.option("--writer", "writers", default=DEFAULT_WRITERS, show_default=True,
              help="Writers, comma-separated: raw, lite, pro, pro-compact, hybrid, mem0-protocol, hy-protocol, "
                   "and peers mem0ai, mem0ai-raw, hy-lite, hy-pro.")  # fmt: skip
@click.option("--protocol", "protocols", default=DEFAULT_PROTOCOLS, show_default=True, help="Retrieval protocols.")
@click.option("--embedder", default="local", show_default=True, help="Embedder for every writer and protocol.")
@click.option("--fake-model", is_flag=True, help="A deterministic fake model instead of --llm (tests, dry runs).")
@click.option("--judge/--no-judge", default=None, help="Answer and judge probes (default: on when a model is set).")
@click.option("--judge-limit", type=int, default=None, help="Judge at most N probes per writer, data set, protocol.")
@click.option("--llm-timeout", default=300.0, show_default=True, help="Seconds per model call (local models are slow).")
@click.option("--peer-python", "peer_python", multiple=True, help="PEER=PYTHON: the interpreter of a peer's venv.")
@click.option("-k", "k", default=5, show_default=True, help="Memories retrieved per probe.")
@click.option("--seed", default=7, show_default=True, help="Seed for bootstrap intervals.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path(".bench/writers.json"))
@click.option("--plots/--no-plots", default=True, help="PNG plots beside the report (needs matplotlib).")
@click.option(
    "--writer-llm",
    "writer_llms",
    multiple=True,
    help="LABEL=PROVIDER:MODEL: the model a writer named WRITER@LABEL (e.g. pro@trained) writes with.",
)
@click.option("--writer-llm-base-url", "writer_urls", multiple=True,
              help="LABEL=URL: the OpenAI-compatible endpoint of that labelled model.")  # fmt: skip
def writers_command(data: tuple[str, ...], writers: str, protocols: str, embedder: str, fake_model: bool,
                    judge: bool | None, judge_limit: int | None, llm_timeout: float, peer_python: tuple[str, ...],
                    k: int, seed: int, output: Path, plots: bool, writer_llms: tuple[str, ...],
                    writer_urls: tuple[str, ...]) -> None:  # fmt: skip
    """Writers swapped, everything else fixed: accuracy per data set and protocol, macro average, cost per add."""
    from memscribe.bench.writers.run import RunPlan, run_plan

    models, specs = _writer_models(writer_llms, writer_urls, llm_timeout)
    plan = RunPlan(
        datasets=list(data), writers=_names(writers, "writer"), protocols=_names(protocols, "protocol"),
        embedder=embedder, chat_factory=_chat_factory(fake_model, llm_timeout), model=_model_name(fake_model),
        judge=judge, judge_limit=judge_limit, peers=_peer_pythons(peer_python), k=k, seed=seed, models=models,
        model_specs=specs,
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="memscribe-bench-writers-") as work:
        paths = run_plan(plan, output, Path(work), plots=plots, echo=click.echo)
    for path in paths:
        click.echo(f"wrote {path}")


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name or not rest:
            raise click.BadParameter(f"expected LABEL=VALUE, got {value!r}", param_hint=option)
        out[name] = rest
    return out


def _writer_models(
    specs: tuple[str, ...], urls: tuple[str, ...], timeout: float
) -> tuple[dict[str, Callable[[], Any]], dict[str, str]]:
    """Chat factories per label from ``--writer-llm`` and ``--writer-llm-base-url``, and what each label is."""
    from memscribe.providers.openai_compat import RetryPolicy
    from memscribe.providers.presets import make_chat

    models, bases = _pairs(specs, "--writer-llm"), _pairs(urls, "--writer-llm-base-url")
    stray = sorted(set(bases) - set(models))
    if stray:
        raise click.BadParameter(f"no --writer-llm for label {', '.join(stray)}", param_hint="--writer-llm-base-url")

    def factory(spec: str, url: str | None) -> Callable[[], Any]:
        return lambda: make_chat(spec, base_url=url, timeout=timeout, retry=RetryPolicy(max_retries=1))

    made = {label: factory(spec, bases.get(label)) for label, spec in models.items()}
    described = {label: spec + (f" @ {bases[label]}" if label in bases else "") for label, spec in models.items()}
    return made, described


def _peer_pythons(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for value in values:
        name, sep, python = value.partition("=")
        if not sep or not name or not python:
            raise click.BadParameter(f"expected PEER=PYTHON, got {value!r}", param_hint="--peer-python")
        out[name] = python
    return out


@click.command("compare")
@click.argument("a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seed", default=7, show_default=True, help="Seed for the paired bootstrap.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare_command(a: Path, b: Path, seed: int, as_json: bool) -> None:
    """Two writer-benchmark reports, probe by probe: accuracy difference, paired bootstrap CI, McNemar p."""
    from memscribe.bench.writers.compare import compare_reports, render_comparison

    result = compare_reports(_read(a), _read(b), seed=seed)
    click.echo(json.dumps(result, indent=1, sort_keys=True) if as_json else render_comparison(result))


def _read(path: Path) -> dict[str, Any]:
    from memscribe.bench.writers.report import SCHEMA

    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"{path}: not JSON ({exc.msg})") from exc
    if not isinstance(report, dict) or report.get("schema") != SCHEMA:
        raise click.BadParameter(f"{path}: not a {SCHEMA} report")
    return report
