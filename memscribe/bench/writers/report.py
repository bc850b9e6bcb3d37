"""The writer benchmark's report: one versioned JSON schema, and a timing sidecar.

The report (``SCHEMA``) is a pure function of the data, the seed, the writers and the model's replies:
with a deterministic model two runs give byte-identical files. Wall-clock figures (add latency p50/p95 and
every latency, for the CDF plots) are measured just the same but written to a sidecar, ``TIMING_SCHEMA``,
next to it (``<report>.timing.json``): keeping them out of the report is what makes it reproducible, and
the table and plots read both.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memscribe.bench.writers import judge
from memscribe.bench.writers.runner import ProbeRecord, Tally

__all__ = ["SCHEMA", "TIMING_SCHEMA", "build_report", "build_timing", "timing_path", "write_report"]

SCHEMA = "memscribe.bench.writers/1"
TIMING_SCHEMA = "memscribe.bench.writers.timing/1"
METRICS = ("accuracy", "stale_top1", "contain", "evidence_recall")


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(statistics.fmean(kept), 4) if kept else None


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None


def _protocol_cell(records: Sequence[ProbeRecord], seed: int) -> dict[str, Any]:
    ok = [r for r in records if r.status == "ok"]
    cell: dict[str, Any] = {"probes": len(records), "scored": len(ok), "errors": len(records) - len(ok)}
    cell.update({m: _mean(r.scores.get(m) for r in ok) for m in METRICS})
    judged = [r.judge for r in ok if r.judge is not None]
    if judged:
        good = [bool(j["correct"]) for j in judged if j["status"] == "ok"]
        cell["judge"] = {"judged": len(good), "errors": len(judged) - len(good),
                         "accuracy": _mean(float(g) for g in good), "ci95": judge.bootstrap_ci(good, seed),
                         "unanimous": _ratio(sum(1 for j in judged if j["status"] == "ok"
                                                 and len(set(j["votes"])) == 1), len(good))}  # fmt: skip
    return cell


def _writes(t: Tally) -> dict[str, Any]:
    ops = t.ops.summary()["all"] if sum(t.ops.expected.values()) else None
    return {
        "adds": t.adds, "add_errors": t.add_errors,
        "op_precision": ops["precision"] if ops else None, "op_recall": ops["recall"] if ops else None,
        "memories": t.memories, "memories_per_fact": _ratio(t.memories, t.facts),
        "memories_per_turn": _ratio(t.memories, t.turns),
        "closing_ops": t.closing, "wrong_supersedes": t.wrong_supersedes,
        "wrong_supersede_rate": _ratio(t.wrong_supersedes, t.closing),
        "adds_stored_nothing": _ratio(t.stored_nothing, t.adds),
    }  # fmt: skip


def _cost(t: Tally) -> dict[str, Any]:
    c = t.cost
    return {
        "llm_calls": c.get("calls", 0), "failed_calls": c.get("failed", 0),
        "calls_per_add": _ratio(c.get("calls", 0), t.adds) or 0.0,
        "tokens_in_per_add": _ratio(c.get("tokens_in", 0), t.adds) or 0.0,
        "tokens_out_per_add": _ratio(c.get("tokens_out", 0), t.adds) or 0.0,
        "store_bytes": t.store_bytes, "judge_calls": t.judge_cost.get("calls", 0),
    }  # fmt: skip


def _families(records: Sequence[ProbeRecord]) -> dict[str, dict[str, float | None]]:
    groups: dict[str, dict[str, list[float | None]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r.status == "ok":
            groups[r.family][r.protocol].append(r.scores.get("accuracy"))
    return {f: {p: _mean(v) for p, v in sorted(ps.items())} for f, ps in sorted(groups.items())}


def _dataset_result(t: Tally, protocols: Sequence[str], seed: int) -> dict[str, Any]:
    cells = {p: _protocol_cell([r for r in t.records if r.protocol == p], seed) for p in protocols}
    judged = [c["judge"]["accuracy"] for c in cells.values() if "judge" in c]
    return {
        "protocols": cells,
        "macro": {"accuracy": _mean(c["accuracy"] for c in cells.values()), "judge": _mean(judged)},
        "by_family": _families(t.records),
        "writes": _writes(t),
        "cost": _cost(t),
    }


def _macro(per_dataset: Mapping[str, Mapping[str, Any]], protocols: Sequence[str]) -> dict[str, Any]:
    cells = [d["protocols"][p] for d in per_dataset.values() for p in protocols]
    by_protocol = {p: _mean(d["protocols"][p]["accuracy"] for d in per_dataset.values()) for p in protocols}
    judged = [c["judge"]["accuracy"] for c in cells if "judge" in c]
    return {"accuracy": _mean(c["accuracy"] for c in cells), "judge": _mean(judged), "by_protocol": by_protocol}


def _probe_row(r: ProbeRecord) -> dict[str, Any]:
    row: dict[str, Any] = {"writer": r.writer, "dataset": r.dataset, "protocol": r.protocol, "case": r.case,
                           "probe": r.probe, "status": r.status, "accuracy": r.scores.get("accuracy")}  # fmt: skip
    if r.judge is not None:
        row["judge"] = r.judge.get("correct") if r.judge.get("status") == "ok" else None
    return row


def build_report(tallies: Sequence[Tally], config: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON report of a run (complete or partial) from its tallies."""
    protocols = list(config["protocols"])
    seed = int(config["seed"])
    results: dict[str, dict[str, Any]] = {}
    for t in tallies:
        results.setdefault(t.writer, {})[t.dataset] = _dataset_result(t, protocols, seed)
    return {
        "schema": SCHEMA,
        "config": dict(config),
        "results": results,
        "macro": {w: _macro(ds, protocols) for w, ds in results.items()},
        "probes": [_probe_row(r) for t in tallies for r in t.records],
        "errors": [e for t in tallies for e in t.errors],
    }


def _percentile(values: Sequence[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[max(1, min(len(ordered), math.ceil(pct / 100.0 * len(ordered)))) - 1]


def build_timing(tallies: Sequence[Tally]) -> dict[str, Any]:
    """Measured wall-clock figures: add latency p50/p95 and every add's latency (ms) per writer and data set."""
    out: dict[str, Any] = {"schema": TIMING_SCHEMA, "writers": {}}
    for t in tallies:
        out["writers"].setdefault(t.writer, {})[t.dataset] = {
            "adds": len(t.latency_ms),
            "add_ms_p50": round(_percentile(t.latency_ms, 50), 2),
            "add_ms_p95": round(_percentile(t.latency_ms, 95), 2),
            "add_ms": [round(v, 2) for v in t.latency_ms],
        }
    return out


def timing_path(report: Path) -> Path:
    return report.with_name(report.stem + ".timing.json")


def write_report(report: Mapping[str, Any], timing: Mapping[str, Any] | None, path: Path) -> Path:
    """Write the report (sorted keys, fixed separators: the same report gives the same bytes) and its sidecar."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    if timing is not None:
        timing_path(path).write_text(json.dumps(timing, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path
