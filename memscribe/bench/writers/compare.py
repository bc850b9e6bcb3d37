"""``bench compare``: two reports, probe by probe. For every (writer, data set, protocol) present in both,
the probes scored in both (errors left out, and counted) are paired; the report gives both accuracies, the
difference with a seeded paired-bootstrap 95 % interval, and McNemar's exact p-value on the discordant
pairs. The same is done for judged correctness where both runs judged."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["compare_reports", "mcnemar_p", "paired_bootstrap", "render_comparison"]


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value for ``b`` pairs won by A only and ``c`` by B only."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / float(2**n)
    return round(min(1.0, 2.0 * tail), 6)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], seed: int, resamples: int = 2000) -> tuple[float, float]:
    """A 95 % percentile interval of mean(b - a) over resampled pairs."""
    rng = random.Random(seed)
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    means = sorted(sum(rng.choice(diffs) for _ in range(n)) / n for _ in range(resamples))
    return round(means[int(0.025 * resamples)], 4), round(means[int(0.975 * resamples) - 1], 4)


def _index(report: Mapping[str, Any], key: str) -> dict[tuple[str, str, str], dict[str, float | None]]:
    out: dict[tuple[str, str, str], dict[str, float | None]] = {}
    for row in report["probes"]:
        value = row.get(key)
        score = None if row["status"] != "ok" or value is None else float(value)
        out.setdefault((row["writer"], row["dataset"], row["protocol"]), {})[row["probe"]] = score
    return out


def _pair(a: Mapping[str, float | None], b: Mapping[str, float | None], seed: int) -> dict[str, Any]:
    common = sorted(p for p in a.keys() & b.keys() if a[p] is not None and b[p] is not None)
    xs = [float(a[p] or 0.0) for p in common]
    ys = [float(b[p] or 0.0) for p in common]
    if not common:
        return {"paired": 0, "unpaired_or_errors": len(a.keys() | b.keys())}
    only_a = sum(1 for x, y in zip(xs, ys, strict=True) if x > y)
    only_b = sum(1 for x, y in zip(xs, ys, strict=True) if y > x)
    return {
        "paired": len(common), "unpaired_or_errors": len(a.keys() | b.keys()) - len(common),
        "a": round(sum(xs) / len(xs), 4), "b": round(sum(ys) / len(ys), 4),
        "diff": round((sum(ys) - sum(xs)) / len(xs), 4), "ci95": paired_bootstrap(xs, ys, seed),
        "a_only": only_a, "b_only": only_b, "mcnemar_p": mcnemar_p(only_a, only_b),
    }  # fmt: skip


def compare_reports(a: Mapping[str, Any], b: Mapping[str, Any], *, seed: int = 7) -> dict[str, Any]:
    """The paired comparison of report ``b`` against report ``a``."""
    rows = []
    for key in ("accuracy", "judge"):
        ia, ib = _index(a, key), _index(b, key)
        for cell in sorted(ia.keys() & ib.keys()):
            paired = _pair(ia[cell], ib[cell], seed)
            if paired["paired"]:
                rows.append({"metric": key, "writer": cell[0], "dataset": cell[1], "protocol": cell[2], **paired})
    return {"a": a["config"], "b": b["config"], "comparisons": rows}


def render_comparison(result: Mapping[str, Any]) -> str:
    """A Markdown table of a comparison."""
    lines = ["| metric | writer | data set | protocol | paired | A | B | B − A | 95 % CI | McNemar p |",
             "|---|---|---|---|---:|---:|---:|---:|---|---:|"]  # fmt: skip
    for r in result["comparisons"]:
        lo, hi = r["ci95"]
        lines.append(f"| {r['metric']} | {r['writer']} | {r['dataset']} | {r['protocol']} | {r['paired']} "
                     f"| {r['a']:.3f} | {r['b']:.3f} | {r['diff']:+.3f} | [{lo:+.3f}, {hi:+.3f}] "
                     f"| {r['mcnemar_p']:.4f} |")  # fmt: skip
    if not result["comparisons"]:
        lines.append("| (no writer, data set and protocol scored in both reports) | | | | | | | | | |")
    return "\n".join(lines) + "\n"
