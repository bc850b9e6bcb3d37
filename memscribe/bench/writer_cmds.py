"""``memscribe bench updates`` and ``memscribe bench locomo``: writers side by side, everything else fixed."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from memscribe.bench.harness import sdk_factory
from memscribe.bench.report import print_results, write_json

__all__ = ["locomo_command", "updates_command"]

_UPDATES_KEYS = ("accuracy@1", "stale@1", "hit@5", "forget_leak", "memories_per_fact")
_LOCOMO_KEYS = ("recall_any@1", "recall_all@5", "recall_all@10", "contain@10")


def _configured_chat() -> Any:
    """The model from the root command's --llm / MEMSCRIBE_LLM settings, or None."""
    from memscribe.engine.memory import chat_factory
    from memscribe.settings import memory_config

    settings = getattr(click.get_current_context().find_root().obj, "settings", None)
    factory = chat_factory(memory_config(settings)) if settings is not None else None
    return factory() if factory is not None else None


def _writers(value: str) -> list[str]:
    names = [w.strip() for w in value.split(",") if w.strip()]
    if not names:
        raise click.BadParameter("name at least one writer", param_hint="--writer")
    return names


def _compare(results: Sequence[dict[str, Any]], keys: Sequence[str], section: str) -> Table:
    table = Table(title="writers side by side")
    table.add_column("metric")
    for r in results:
        table.add_column(str(r["writer"]), justify="right")
    for key in keys:
        table.add_row(key, *[str(r.get(section, {}).get(key, "—")) for r in results])
    _category_rows(table, results, ("recall_all@10", "contain@10"))
    if any("coverage" in r for r in results):
        shares = [str(r.get("coverage", {}).get("stored_nothing_share", "—")) for r in results]
        table.add_row("stored nothing (memorable turns)", *shares)
    for key in ("turns_per_second", "store_bytes"):
        table.add_row(key, *[str(r.get("cost", {}).get(key, "—")) for r in results])
    for key in ("calls_per_add", "tokens_in_per_add", "tokens_out_per_add"):
        table.add_row(f"llm {key}", *[str(r.get("llm", {}).get(key, "—")) for r in results])
    return table


def _category_rows(table: Table, results: Sequence[dict[str, Any]], keys: Sequence[str]) -> None:
    """Per-category rows (LoCoMo), so a writer's gain overall cannot hide a category it loses."""
    categories = sorted({c for r in results for c in r.get("by_category", {})})
    for cat in categories:
        name = next(r["by_category"][cat].get("name", "") for r in results if cat in r.get("by_category", {}))
        for key in keys:
            cells = [str(r.get("by_category", {}).get(cat, {}).get(key, "—")) for r in results]
            table.add_row(f"{cat} {name} {key}", *cells)


def _run_all(
    writers: list[str],
    run: Callable[[str, Path], dict[str, Any]],
    output: Path,
    keys: Sequence[str],
    section: str,
    as_json: bool,
) -> None:
    results = []
    with tempfile.TemporaryDirectory(prefix="memscribe-bench-") as work:
        for writer in writers:
            results.append(run(writer, Path(work)))
    report = {"runs": results}
    write_json(report, output)
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
        return
    console = Console()
    for r in results:
        print_results(r, console)
    console.print(_compare(results, keys, section))
    click.echo(f"wrote {output}")


@click.command("updates")
@click.option("--writer", "writers", default="raw,lite", show_default=True, help="Writers, comma-separated.")
@click.option("--scenarios", default=300, show_default=True, help="Number of generated scenarios.")
@click.option("--seed", default=7, show_default=True, help="Generator seed.")
@click.option("--embedder", default="local", show_default=True, help="Embedder spec (local or hash).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path(".bench/updates.json"))
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of tables.")
def updates_command(writers: str, scenarios: int, seed: int, embedder: str, output: Path, as_json: bool) -> None:
    """Update scenarios: current-value accuracy, stale answers, operation precision/recall, over-storage."""
    from memscribe.bench.pro import run_pro_updates
    from memscribe.bench.updates import run_updates
    from memscribe.core.clock import FrozenClock
    from memscribe.engine.writers import LLM_WRITER_NAMES

    def run(writer: str, work: Path) -> dict[str, Any]:
        clock = FrozenClock()  # moved to each session's date: "now" in a probe is the conversation's time
        if writer in LLM_WRITER_NAMES:  # the configured model (--llm), else the scripted one
            chat = _configured_chat()
            return run_pro_updates(scenarios, seed, embedder, chat, writer=writer, workdir=work, sim_clock=clock)
        factory = sdk_factory(embedder=embedder, clock=clock)
        return run_updates(factory, writer, scenarios=scenarios, seed=seed, workdir=work, sim_clock=clock)

    _run_all(_writers(writers), run, output, _UPDATES_KEYS, "metrics", as_json)


@click.command("locomo")
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--writer", "writers", default="raw,lite", show_default=True, help="Writers, comma-separated.")
@click.option("--embedder", default="local", show_default=True, help="Embedder spec (local or hash).")
@click.option("--limit", "limit_conversations", type=int, default=None, help="Only the first N conversations.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path(".bench/locomo.json"))
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of tables.")
@click.option(
    "--trace",
    type=int,
    default=0,
    show_default=True,
    help="Trace up to N missed questions and N turns that stored nothing, per writer, to OUTPUT.<writer>.trace.txt.",
)
def locomo_command(
    data_path: Path,
    writers: str,
    embedder: str,
    limit_conversations: int | None,
    output: Path,
    as_json: bool,
    trace: int,
) -> None:
    """LoCoMo: evidence recall@k from provenance and answer containment@k, per category and overall."""
    from memscribe.bench.locomo import run_locomo
    from memscribe.bench.locomo_trace import format_trace

    factory = sdk_factory(embedder=embedder)

    def run(writer: str, work: Path) -> dict[str, Any]:
        results = run_locomo(factory, writer, data_path, work, limit_conversations=limit_conversations, trace=trace)
        if trace:
            path = output.with_name(f"{output.stem}.{writer.replace(':', '_')}.trace.txt")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(format_trace(results.pop("trace")), encoding="utf-8")
            click.echo(f"wrote {path}", err=True)
        return results

    _run_all(_writers(writers), run, output, _LOCOMO_KEYS, "metrics", as_json)
