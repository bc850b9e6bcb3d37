"""PNG plots of a writer-benchmark report (matplotlib, the ``bench`` extra): macro accuracy against cost per
add for each writer, accuracy per family, and the CDF of add latency per writer."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["write_plots"]


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        from memscribe.errors import ConfigError

        raise ConfigError("plots need matplotlib: pip install 'memscribe[bench]' (or pass --no-plots)") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _tokens_per_add(per: Mapping[str, Any]) -> float:
    costs = [d["cost"]["tokens_in_per_add"] + d["cost"]["tokens_out_per_add"] for d in per.values()]
    return statistics.fmean(costs) if costs else 0.0


def _accuracy_vs_cost(plt: Any, report: Mapping[str, Any], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    unmeasured, widest = [], 10.0
    for writer, per in report["results"].items():
        x, y = _tokens_per_add(per), report["macro"][writer]["accuracy"]
        if y is None:  # every probe an error: not measured, never drawn as zero
            unmeasured.append(writer)
            continue
        widest = max(widest, x)
        ax.scatter([x], [y], s=50)
        ax.annotate(writer, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.set_xscale("symlog", linthresh=10)
    ax.set_xlim(-1, widest * 2)
    if unmeasured:
        ax.text(0.01, 0.01, "not measured: " + ", ".join(unmeasured), transform=ax.transAxes, fontsize=7)
    ax.set_xlabel("model tokens per add (in + out; symlog)")
    ax.set_ylabel("macro accuracy (data sets × protocols)")
    ax.set_title("Writers: accuracy vs cost per add")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _families(plt: Any, report: Mapping[str, Any], path: Path) -> Path:
    writers = list(report["results"])
    families = sorted({f for per in report["results"].values() for d in per.values() for f in d["by_family"]})
    fig, ax = plt.subplots(figsize=(max(6.4, 0.45 * len(families) * max(1, len(writers)) / 2), 4.4))
    width = 0.8 / max(1, len(writers))
    for n, writer in enumerate(writers):
        values = []
        for family in families:
            cells = [v for d in report["results"][writer].values() for v in d["by_family"].get(family, {}).values()]
            kept = [v for v in cells if v is not None]
            values.append(statistics.fmean(kept) if kept else 0.0)
        ax.bar([i + n * width for i in range(len(families))], values, width, label=writer)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(families))], families, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("accuracy (mean over protocols)")
    ax.set_ylim(0, 1)
    ax.set_title("Accuracy per family")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _latency(plt: Any, timing: Mapping[str, Any], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for writer, per in timing.get("writers", {}).items():
        values = sorted(v for d in per.values() for v in d["add_ms"])
        if values:
            ax.step(values, [(i + 1) / len(values) for i in range(len(values))], where="post", label=writer)
    ax.set_xscale("log")
    ax.set_xlabel("add latency (ms, log)")
    ax.set_ylabel("share of adds")
    ax.set_title("Add latency CDF")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(report: Mapping[str, Any], timing: Mapping[str, Any] | None, folder: Path, stem: str) -> list[Path]:
    """The three plots as ``<stem>-accuracy-cost.png``, ``<stem>-families.png``, ``<stem>-latency.png``."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    out = [
        _accuracy_vs_cost(plt, report, folder / f"{stem}-accuracy-cost.png"),
        _families(plt, report, folder / f"{stem}-families.png"),
    ]
    if timing is not None:
        out.append(_latency(plt, timing, folder / f"{stem}-latency.png"))
    return out
