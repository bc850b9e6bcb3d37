"""A whole run from a :class:`RunPlan`: data sets loaded first (a bad file fails before any writer runs), one
embedder shared by every writer, protocol and peer, then writers × data sets, the report rewritten after
each so that an interrupted run leaves a partial one, and finally the Markdown and the plots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memscribe.bench.writers import judge as judging
from memscribe.bench.writers.datasets import load_dataset
from memscribe.bench.writers.markdown import render_markdown
from memscribe.bench.writers.metering import MeteredChat
from memscribe.bench.writers.protocols import retriever
from memscribe.bench.writers.report import build_report, build_timing, write_report
from memscribe.bench.writers.runner import RunSettings, Tally, run_dataset
from memscribe.bench.writers.subjects import MemscribeSubject, Subject, memscribe_subject
from memscribe.providers.ports import Embedder

__all__ = ["RunPlan", "run_plan"]


@dataclass
class RunPlan:
    datasets: list[str]
    writers: list[str]
    protocols: list[str]
    embedder: str | Embedder = "local"
    chat_factory: Callable[[], Any] | None = None
    model: str | None = None
    judge: bool | None = None  # None: judge when a model is configured
    judge_limit: int | None = None
    peers: dict[str, str] = field(default_factory=dict)  # peer name -> python of its venv
    k: int = 5
    seed: int = 7
    # Served models by label: a writer named ``pro@LABEL`` (or ``pro-compact@LABEL``, ...) writes with that
    # model instead of ``chat_factory``'s, so two served models (a trained one and its base) run side by side.
    models: dict[str, Callable[[], Any]] = field(default_factory=dict)
    model_specs: dict[str, str] = field(default_factory=dict)  # label -> "provider:model @ url", for the report


def _embedder(spec: str | Embedder) -> Embedder:
    if not isinstance(spec, str):
        return spec
    from memscribe.providers.registry import make_embedder

    return make_embedder(spec)


def _config(plan: RunPlan, datasets: list[Any], judged: bool, embedder: Embedder) -> dict[str, Any]:
    return {
        "writers": plan.writers, "protocols": plan.protocols, "k": plan.k, "seed": plan.seed,
        "embedder": embedder.model_id, "model": plan.model, "writer_models": dict(plan.model_specs),
        "datasets": [{"name": d.name, "source": d.source, "cases": len(d.cases), "probes": d.probes}
                     for d in datasets],
        "judge": {"answer_prompt": judging.ANSWER_PROMPT_VERSION, "judge_prompt": judging.JUDGE_PROMPT_VERSION,
                  "votes": list(judging.VOTES), "limit": plan.judge_limit} if judged else None,
    }  # fmt: skip


def _factory(plan: RunPlan, embedder: Embedder) -> Callable[[str, Path], Subject]:
    own = memscribe_subject(embedder, plan.chat_factory)

    def make(name: str, path: Path) -> Subject:
        from memscribe.bench.writers.peers import PEER_WRITERS, peer_subject

        base, at, label = name.partition("@")
        if at:  # the label was checked by _check_labels before the run began
            labelled: MemscribeSubject = memscribe_subject(embedder, plan.models[label])(base, path)
            labelled.name = name
            return labelled
        if name in PEER_WRITERS:
            return peer_subject(name, path, embedder, plan.peers, plan.chat_factory)
        subject: MemscribeSubject = own(name, path)
        return subject

    return make


def run_plan(
    plan: RunPlan, output: Path, workdir: Path, *, plots: bool = True, echo: Callable[[str], None] = print
) -> list[Path]:
    """Run the plan; returns the files written (report, timing sidecar, Markdown, plots)."""
    _check_labels(plan)
    datasets = [load_dataset(spec) for spec in plan.datasets]
    embedder = _embedder(plan.embedder)
    judged = plan.judge if plan.judge is not None else plan.chat_factory is not None
    if judged and plan.chat_factory is None:
        from memscribe.errors import ConfigError

        raise ConfigError("--judge needs a model: pass --llm (or --fake-model)")
    config = _config(plan, datasets, judged, embedder)
    make = _factory(plan, embedder)
    tallies: list[Tally] = []

    def checkpoint(current: Tally) -> None:  # a partial report after every case: an interrupted run keeps it
        write_report(build_report([*tallies, current], config), build_timing([*tallies, current]), output)

    settings = RunSettings(
        protocols={p: retriever(p, embedder) for p in plan.protocols}, k=plan.k,
        judge_chat=MeteredChat(plan.chat_factory()) if judged and plan.chat_factory else None,
        judge_limit=plan.judge_limit, checkpoint=checkpoint,
    )  # fmt: skip
    for writer in plan.writers:
        for dataset in datasets:
            tally = run_dataset(make, writer, dataset, workdir, settings)
            tallies.append(tally)
            write_report(build_report(tallies, config), build_timing(tallies), output)
            echo(_progress(tally))
    report, timing = build_report(tallies, config), build_timing(tallies)
    paths = [write_report(report, timing, output), output.with_name(output.stem + ".timing.json")]
    markdown = output.with_suffix(".md")
    markdown.write_text(render_markdown(report, timing), encoding="utf-8")
    paths.append(markdown)
    if plots:
        from memscribe.bench.writers.plots import write_plots

        paths += write_plots(report, timing, output.parent, output.stem)
    return paths


def _check_labels(plan: RunPlan) -> None:
    """Every ``writer@LABEL`` names a defined model: a typo fails before any data is loaded or written."""
    from memscribe.errors import ConfigError

    for name in plan.writers:
        label = name.partition("@")[2]
        if label and label not in plan.models:
            known = ", ".join(sorted(plan.models)) or "none"
            raise ConfigError(f"writer {name!r} names model {label!r}, which no --writer-llm defines ({known})")


def _progress(t: Tally) -> str:
    ok = [r for r in t.records if r.status == "ok"]
    acc = sum(r.scores.get("accuracy") or 0.0 for r in ok) / len(ok) if ok else 0.0
    return (f"{t.writer:14} {t.dataset:12} probes {len(t.records):4} (errors {len(t.records) - len(ok)})"
            f"  accuracy {acc:.3f}  adds {t.adds}  add errors {t.add_errors}")  # fmt: skip
