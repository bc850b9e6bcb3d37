"""``memscribe bench longmemeval``: writers side by side on LongMemEval-format data, with tables per type."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from memscribe.bench.harness import sdk_factory
from memscribe.bench.report import write_json

__all__ = ["command", "tables"]

COLUMNS = ("recall_any@1", "recall_any@5", "recall_all@10", "turn_recall_any@10", "turn_recall_all@10", "contain@10")


def _fmt(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else "–" if value is None else str(value)


def tables(results: Sequence[Mapping[str, Any]]) -> list[Table]:
    """One table per writer (by question type) and one comparing the writers overall."""
    out = []
    for r in results:
        counts, cost = r.get("counts", {}), r.get("cost", {})
        title = (
            f"bench longmemeval · {r.get('writer')} · {counts.get('questions')} questions "
            f"({counts.get('abstention')} abstention) · {counts.get('sessions')} sessions · "
            f"{cost.get('turns_per_second')} turns/s · search p50 {cost.get('search_p50_ms')} ms"
        )
        table = Table(title=title, title_justify="left")
        table.add_column("question type")
        table.add_column("n", justify="right")
        for column in COLUMNS:
            table.add_column(column.replace("recall_", "R_"), justify="right")
        for name, row in r.get("by_type", {}).items():
            table.add_row(name, str(row.get("n")), *(_fmt(row.get(c)) for c in COLUMNS))
        overall = r.get("metrics", {})
        n = sum(int(row.get("n", 0)) for row in r.get("by_type", {}).values())
        table.add_row("overall", str(n), *(_fmt(overall.get(c)) for c in COLUMNS))
        out.append(table)
    side = Table(title="writers side by side (overall)", title_justify="left")
    side.add_column("metric")
    for r in results:
        side.add_column(str(r.get("writer")), justify="right")
    for column in (*COLUMNS, "turn_recall_frac@10", "contain@1"):
        side.add_row(column, *(_fmt(r.get("metrics", {}).get(column)) for r in results))
    out.append(side)
    return out


@click.command("longmemeval")
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--writer", "writers", default="raw,lite", show_default=True, help="Writers, comma-separated.")
@click.option("--embedder", default="local", show_default=True, help="Embedder spec (local, hash, …).")
@click.option("--limit", "limit_questions", type=int, default=None, help="Only the first N questions.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path(".bench/longmemeval.json"))
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of tables.")
def command(
    data_path: Path, writers: str, embedder: str, limit_questions: int | None, output: Path, as_json: bool
) -> None:
    """LongMemEval: session and turn recall@k from provenance and answer containment@k, per question type."""
    from memscribe.bench.longmemeval import run_longmemeval

    names = [w.strip() for w in writers.split(",") if w.strip()]
    if not names:
        raise click.BadParameter("name at least one writer", param_hint="--writer")
    try:
        from memscribe.bench.longmemeval import load_longmemeval

        load_longmemeval(data_path)  # a malformed file fails here, before any store is made
    except (ValueError, json.JSONDecodeError) as exc:
        raise click.ClickException(str(exc)) from exc
    factory = sdk_factory(embedder=embedder)
    with tempfile.TemporaryDirectory(prefix="memscribe-bench-") as work:
        results = [run_longmemeval(factory, w, data_path, Path(work), limit_questions) for w in names]
    report = {"runs": results}
    write_json(report, output)
    root = click.get_current_context().find_root().obj
    if as_json or getattr(root, "json", False):
        click.echo(json.dumps(report, indent=2, default=str))
        return
    console = Console(width=max(Console().width, 150))
    for table in tables(results):
        console.print(table)
    click.echo(f"wrote {output}")
