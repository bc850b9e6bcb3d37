"""The report as Markdown tables: accuracy per writer × data set × protocol with the macro average, what each
writer stored, and what each add cost (latency from the timing sidecar when there is one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["render_markdown"]


def _f(value: object, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _accuracy_table(report: Mapping[str, Any], key: str) -> list[str]:
    protocols = list(report["config"]["protocols"])
    datasets = [d["name"] for d in report["config"]["datasets"]]
    head = [f"{d} · {p}" for d in datasets for p in protocols]
    lines = ["| writer | " + " | ".join(head) + " | macro |", "|---|" + "---:|" * (len(head) + 1)]
    for writer, per in report["results"].items():
        cells = []
        for d in datasets:
            for p in protocols:
                cell = per.get(d, {}).get("protocols", {}).get(p, {})
                value = cell.get("judge", {}).get("accuracy") if key == "judge" else cell.get(key)
                errors = cell.get("errors", 0)
                cells.append(_f(value) + (f" ({errors} err)" if errors else ""))
        lines.append(f"| {writer} | " + " | ".join(cells) + f" | **{_f(report['macro'][writer].get(key))}** |")
    return lines


def _writes_table(report: Mapping[str, Any]) -> list[str]:
    keys = ("op_precision", "op_recall", "memories_per_fact", "memories_per_turn", "wrong_supersede_rate",
            "adds_stored_nothing", "add_errors")  # fmt: skip
    lines = ["| writer · data set | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for writer, per in report["results"].items():
        for dataset, result in per.items():
            lines.append(f"| {writer} · {dataset} | " + " | ".join(_f(result["writes"].get(k)) for k in keys) + " |")
    return lines


def _cost_table(report: Mapping[str, Any], timing: Mapping[str, Any] | None) -> list[str]:
    lines = ["| writer · data set | LLM calls / add | tokens in / add | tokens out / add | add p50 ms | add p95 ms "
             "| store size |", "|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for writer, per in report["results"].items():
        for dataset, result in per.items():
            c = result["cost"]
            t = (timing or {}).get("writers", {}).get(writer, {}).get(dataset, {})
            lines.append(
                f"| {writer} · {dataset} | {_f(c['calls_per_add'], 2)} | {_f(c['tokens_in_per_add'], 0)} "
                f"| {_f(c['tokens_out_per_add'], 0)} | {_f(t.get('add_ms_p50'), 0)} | {_f(t.get('add_ms_p95'), 0)} "
                f"| {c['store_bytes'] // 1024} KiB |"
            )
    return lines


def render_markdown(report: Mapping[str, Any], timing: Mapping[str, Any] | None = None) -> str:
    """Markdown for a report (and its timing sidecar, for the latency columns)."""
    cfg = report["config"]
    out = [f"# Writer benchmark ({report['schema']})", "",
           f"Model: {cfg.get('model') or 'none'} · embedder: {cfg.get('embedder')} · k = {cfg.get('k')} · "
           f"seed {cfg.get('seed')}", "", "## Current-value accuracy (top-1, LLM-free)", "",
           *_accuracy_table(report, "accuracy")]  # fmt: skip
    if any(w.get("judge") is not None for w in report["macro"].values()):
        out += ["", f"## Judged accuracy ({len(cfg.get('judge', {}).get('votes', []))} votes)", "",
                *_accuracy_table(report, "judge")]  # fmt: skip
    out += ["", "## What each writer stored", "", *_writes_table(report)]
    out += ["", "## Cost per add", "", *_cost_table(report, timing)]
    if report["errors"]:
        out += ["", f"## Errors ({len(report['errors'])}; their probes are reported as errors, not misses)", ""]
        out += [f"- {e['writer']} · {e['dataset']} · {e['stage']} · {e['where']}: {e['error']}"
                for e in report["errors"][:20]]  # fmt: skip
    return "\n".join(out) + "\n"
