"""Benchmark output: results as JSON files and as readable tables (rich)."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_results", "render", "render_text", "write_json"]

_UPDATE_METRICS = (
    ("accuracy@1", "current value ranked first"),
    ("stale@1", "stale value ranked first (probes with stale values)"),
    ("mixed@1", "current and stale value in the first result"),
    ("distractor@1", "another person's or a temporary value first"),
    ("miss@1", "first result names none of them"),
    ("hit@5", "current value anywhere in the top 5"),
    ("forget_leak", "forgotten value still in a current memory"),
    ("memories_per_fact", "current memories per true fact (1.0 ideal)"),
)
_LOCOMO_COLUMNS = (
    "recall_all@1",
    "recall_all@5",
    "recall_all@10",
    "recall_any@10",
    "prov_width@10",
    "contain@1",
    "contain@5",
    "contain@10",
)


def write_json(results: Mapping[str, Any], path: Path | str) -> Path:
    """Write ``results`` as indented JSON, creating parent directories; returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(results, indent=2, sort_keys=False, default=str) + "\n", encoding="utf-8")
    return target


def render(results: Mapping[str, Any]) -> list[Table]:
    """Tables for a results dict from ``run_updates`` or ``run_locomo``."""
    kind = results.get("benchmark")
    if kind == "updates":
        return _updates_tables(results)
    if kind == "locomo":
        return _locomo_tables(results)
    raise ValueError(f"unknown benchmark results: {kind!r}")


def print_results(results: Mapping[str, Any], console: Console | None = None) -> None:
    out = console or Console()
    for table in render(results):
        out.print(table)


def render_text(results: Mapping[str, Any], width: int = 120) -> str:
    """The tables as plain text (no colour), for logs and tests."""
    buffer = io.StringIO()
    print_results(results, Console(width=width, color_system=None, force_terminal=False, file=buffer))
    return buffer.getvalue()


def _fmt(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _size(n: object) -> str:
    if not isinstance(n, int | float):
        return "–"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def _cost_rows(cost: Mapping[str, Any]) -> list[tuple[str, str]]:
    def num(key: str, digits: int) -> str:
        value = cost.get(key)
        return f"{value:.{digits}f}" if isinstance(value, int | float) else "–"

    return [
        ("ingest", f"{num('turns_per_second', 1)} turns/s over {cost.get('turns')} turns"),
        ("add latency", f"{num('add_ms_mean', 2)} ms mean"),
        ("search latency", f"p50 {num('search_p50_ms', 2)} ms, p95 {num('search_p95_ms', 2)} ms"),
        ("store size", _size(cost.get("store_bytes"))),
    ]


def _coverage_rows(coverage: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    if not coverage:
        return []
    return [
        (
            "stored nothing",
            f"{_fmt(coverage.get('stored_nothing_share'))} of {coverage.get('memorable_turns')} memorable turns "
            f"({coverage.get('memorable_stored_nothing')}); greetings and fillers apart: "
            f"{coverage.get('filler_stored_nothing')} of {coverage.get('filler_turns')}; turns that only ask apart: "
            f"{coverage.get('question_stored_nothing', 0)} of {coverage.get('question_turns', 0)}",
        )
    ]


def _kv_table(title: str, rows: Sequence[tuple[str, str]]) -> Table:
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, value)
    return table


def _updates_tables(r: Mapping[str, Any]) -> list[Table]:
    counts, metrics = r.get("counts", {}), r.get("metrics", {})
    head = [
        ("writer", str(r.get("writer"))),
        ("seed", f"{r.get('seed')} (generator v{r.get('generator_version')})"),
        (
            "scenarios",
            f"{counts.get('scenarios')} · {counts.get('chunks')} sessions · {counts.get('turns')} turns · "
            f"{counts.get('probes')} probes ({counts.get('probes_with_stale')} with stale values)",
        ),
        *((f"{name}", f"{_fmt(metrics.get(name))}   {note}") for name, note in _UPDATE_METRICS),
        *_cost_rows(r.get("cost", {})),
    ]
    summary = _kv_table("bench updates", head)

    ops = Table(title="operations (chunk events matched to labels by kind counts)", title_justify="left")
    for column in ("kind", "expected", "observed", "precision", "recall", "f1"):
        ops.add_column(column, justify="left" if column == "kind" else "right")
    per_kind = r.get("operations", {}).get("per_kind", {})
    for kind, row in per_kind.items():
        expected = row.get("tp", 0) + row.get("fn", 0)
        observed = row.get("tp", 0) + row.get("fp", 0)
        ops.add_row(kind, str(expected), str(observed), *(_fmt(row.get(k)) for k in ("precision", "recall", "f1")))

    families = Table(title="by scenario family", title_justify="left")
    for column in ("family", "scenarios", "probes", "acc@1", "stale@1", "mixed@1", "hit@5", "ops f1"):
        families.add_column(column, justify="left" if column == "family" else "right")
    for name, row in r.get("by_family", {}).items():
        keys = ("scenarios", "probes", "accuracy@1", "stale@1", "mixed@1", "hit@5", "ops_f1")
        families.add_row(name, *(_fmt(row.get(k)) for k in keys))
    return [summary, ops, families]


def _locomo_tables(r: Mapping[str, Any]) -> list[Table]:
    counts = r.get("counts", {})
    head = [
        ("writer", str(r.get("writer"))),
        ("data", f"{r.get('data', {}).get('path')} (sha256 {str(r.get('data', {}).get('sha256'))[:12]})"),
        (
            "size",
            f"{counts.get('conversations')} conversations · {counts.get('sessions')} sessions · "
            f"{counts.get('turns')} turns · {counts.get('questions')} questions",
        ),
        (
            "scored",
            f"{counts.get('scored_evidence')} with evidence (cats 1-4) · {counts.get('no_evidence')} without · "
            f"{counts.get('unresolved_results')} results with unknown provenance",
        ),
        ("operations", ", ".join(f"{k} {v}" for k, v in r.get("operations", {}).get("observed", {}).items())),
        *_coverage_rows(r.get("coverage")),
        *_cost_rows(r.get("cost", {})),
    ]
    summary = _kv_table("bench locomo", head)

    table = Table(title="by category (overall and macro: categories 1-4)", title_justify="left")
    table.add_column("category")
    table.add_column("n", justify="right")
    for column in _LOCOMO_COLUMNS:
        table.add_column(column.replace("recall_", "R_").replace("prov_width", "width"), justify="right")
    for cat, row in r.get("by_category", {}).items():
        table.add_row(f"{cat} {row.get('name')}", str(row.get("n")), *(_fmt(row.get(c)) for c in _LOCOMO_COLUMNS))
    overall, macro = r.get("metrics", {}), r.get("macro", {})
    table.add_row("overall", str(counts.get("scored_evidence")), *(_fmt(overall.get(c)) for c in _LOCOMO_COLUMNS))
    table.add_row("macro", "", *(_fmt(macro.get(c)) for c in _LOCOMO_COLUMNS))
    return [summary, table]
