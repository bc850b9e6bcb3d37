"""Whole runs on the fake model: a byte-identical report across two runs with one seed, errors recorded per
case (never scored as misses), partial reports, the Markdown, the plots and ``bench compare``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memscribe.bench.writers.compare import compare_reports, mcnemar_p, render_comparison
from memscribe.bench.writers.fake_model import bench_fake_chat
from memscribe.bench.writers.report import SCHEMA, TIMING_SCHEMA
from memscribe.bench.writers.run import RunPlan, run_plan
from memscribe.cli.main import cli
from memscribe.errors import ProviderError
from memscribe.testing.chat import FunctionChat, Reply

# One of each kind: rules, a model writer, a protocol adapter and a peer over the wire with a model callback.
WRITERS = ["raw", "pro", "mem0-protocol", "fake-peer-infer"]
ALL_DATA = ("natural", "locomo", "longmemeval", "updates")


def _plan(data: dict[str, Path], writers: Sequence[str], embedder: str = "hash", sets: Sequence[str] = ALL_DATA,
          **options: Any) -> RunPlan:  # fmt: skip
    specs = [f"{name}:{data[name]}" if name in data else "updates:2:5" for name in sets]
    options.setdefault("chat_factory", bench_fake_chat)
    return RunPlan(datasets=specs, writers=list(writers), protocols=["hybrid", "cosine", "layered"],
                   embedder=embedder, model="bench-fake", **options)  # fmt: skip


def _run(plan: RunPlan, out: Path, plots: bool = False) -> list[Path]:
    return run_plan(plan, out, out.parent / f"work-{out.stem}", plots=plots, echo=lambda line: None)


@pytest.mark.timeout(900)  # two whole runs with the real local embedder
def test_same_seed_and_model_give_a_byte_identical_report(data: dict[str, Path], tmp_path: Path) -> None:
    # The local embedder: the hash fake gives equal vectors to different texts, and the engine breaks such
    # ties on random record ids, so only a real embedder makes the store itself repeatable.
    first, second = tmp_path / "a" / "r.json", tmp_path / "b" / "r.json"
    _run(_plan(data, WRITERS, "local", ("natural", "locomo", "updates")), first)
    _run(_plan(data, WRITERS, "local", ("natural", "locomo", "updates")), second)
    assert first.read_bytes() == second.read_bytes()
    report = json.loads(first.read_text())
    assert report["schema"] == SCHEMA and report["errors"] == []
    assert set(report["results"]) == set(WRITERS)
    assert set(report["results"]["pro"]) == {"natural", "locomo", "updates"}
    timing = json.loads((first.parent / "r.timing.json").read_text())  # wall clock lives here, not in the report
    assert timing["schema"] == TIMING_SCHEMA and "add_ms_p95" in timing["writers"]["pro"]["natural"]
    assert "add_ms" not in first.read_text()


def test_report_holds_every_metric_and_cost(data: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    paths = _run(_plan(data, ["raw", "pro"]), out, plots=True)
    report = json.loads(out.read_text())
    cell = report["results"]["pro"]["updates"]
    assert set(cell["protocols"]) == {"hybrid", "cosine", "layered"}
    assert {"accuracy", "stale_top1", "contain", "evidence_recall", "judge"} <= set(cell["protocols"]["cosine"])
    assert cell["protocols"]["cosine"]["judge"]["judged"] > 0 and cell["protocols"]["cosine"]["judge"]["ci95"]
    assert cell["writes"]["op_precision"] is not None and cell["writes"]["memories_per_fact"] is not None
    assert cell["cost"]["calls_per_add"] > 0 and report["results"]["raw"]["updates"]["cost"]["calls_per_add"] == 0
    assert report["results"]["raw"]["locomo"]["protocols"]["hybrid"]["evidence_recall"] is not None
    assert report["macro"]["pro"]["accuracy"] is not None
    assert {p.name for p in paths} >= {"r.json", "r.md", "r-accuracy-cost.png", "r-families.png", "r-latency.png"}
    assert all(p.stat().st_size > 1000 for p in paths if p.suffix == ".png")
    markdown = out.with_suffix(".md").read_text()
    assert "| pro |" in markdown and "macro" in markdown and "tokens in / add" in markdown


def _flaky(fail_on: str) -> Any:
    def make() -> FunctionChat:
        fake = bench_fake_chat()

        def reply(messages: list[dict[str, Any]]) -> Reply:
            if any(fail_on in str(m.get("content", "")) for m in messages):
                return ProviderError("server went away")
            return fake.complete(messages)

        return FunctionChat(reply, model="flaky")

    return make


def test_a_model_error_is_recorded_per_case_and_the_run_finishes(data: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    plan = _plan(data, ["mem0-protocol", "raw"], chat_factory=_flaky("FitLab"))
    _run(plan, out)
    report = json.loads(out.read_text())
    errors = [e for e in report["errors"] if e["stage"] == "add"]
    assert errors and all(e["writer"] == "mem0-protocol" and "d002-forget" in e["where"] for e in errors)
    forget = [p for p in report["probes"] if p["writer"] == "mem0-protocol" and p["case"] == "d002-forget"]
    assert forget and all(p["status"] == "error" and p["accuracy"] is None for p in forget)
    natural = report["results"]["mem0-protocol"]["natural"]["protocols"]["hybrid"]
    assert natural["errors"] == 1 and natural["scored"] == natural["probes"] - 1
    assert report["results"]["raw"]["natural"]["protocols"]["hybrid"]["errors"] == 0  # the run went on


def test_a_judge_error_is_a_judge_error_not_a_wrong_answer(data: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    _run(_plan(data, ["raw"], chat_factory=_flaky("[memscribe-judge]")), out)
    report = json.loads(out.read_text())
    judge = report["results"]["raw"]["natural"]["protocols"]["hybrid"]["judge"]
    assert judge["judged"] == 0 and judge["errors"] > 0 and judge["accuracy"] is None
    assert {e["stage"] for e in report["errors"]} == {"judge"}


def test_a_writer_that_cannot_start_leaves_errors_not_misses(data: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    _run(_plan(data, ["mem0ai", "raw"], judge=False), out)  # mem0ai is not installed here
    report = json.loads(out.read_text())
    assert {e["stage"] for e in report["errors"]} == {"start"}
    assert "make bench-peers" in report["errors"][0]["error"]
    cell = report["results"]["mem0ai"]["natural"]["protocols"]["cosine"]
    assert cell["scored"] == 0 and cell["errors"] == cell["probes"] > 0 and cell["accuracy"] is None
    assert report["results"]["raw"]["natural"]["protocols"]["cosine"]["scored"] > 0


def test_compare_pairs_probes(data: dict[str, Path], tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    _run(_plan(data, ["raw"], judge=False), a)
    _run(_plan(data, ["raw"], judge=False), b)
    result = compare_reports(json.loads(a.read_text()), json.loads(b.read_text()))
    rows = result["comparisons"]
    assert rows and all(r["diff"] == 0.0 and r["mcnemar_p"] == 1.0 for r in rows)
    assert "McNemar" in render_comparison(result)


def test_mcnemar_exact_values() -> None:
    assert mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(0, 6) == pytest.approx(0.03125)
    assert mcnemar_p(5, 5) == 1.0


def _report(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"schema": SCHEMA, "config": {}, "probes": list(rows)}


def test_compare_detects_a_change_on_paired_probes() -> None:
    base = [{"writer": "w", "dataset": "d", "protocol": "p", "probe": f"q{i}", "status": "ok", "accuracy": 0.0}
            for i in range(12)]  # fmt: skip
    better = [{**r, "accuracy": 1.0} for r in base[:10]] + [{**base[10], "status": "error", "accuracy": None}]
    row = compare_reports(_report(base), _report(better))["comparisons"][0]
    assert row["paired"] == 10 and row["b_only"] == 10 and row["diff"] == 1.0 and row["mcnemar_p"] < 0.01
    assert row["unpaired_or_errors"] == 2 and row["ci95"] == (1.0, 1.0)


def test_cli_writers_and_compare(data: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "cli.json"
    args = ["bench", "writers", "--data", f"natural:{data['natural']}", "--writer", "raw,lite", "--embedder",
            "hash", "--fake-model", "--no-plots", "-o", str(out)]  # fmt: skip
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    assert "wrote" in done.output and out.with_suffix(".md").exists()
    compared = CliRunner().invoke(cli, ["bench", "compare", str(out), str(out)])
    assert compared.exit_code == 0 and "| accuracy | raw | natural | hybrid |" in compared.output
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    refused = CliRunner().invoke(cli, ["bench", "compare", str(out), str(bad)])
    assert refused.exit_code != 0 and "not a memscribe.bench.writers/1 report" in refused.output


def test_cli_rejects_a_judge_without_a_model(data: dict[str, Path], tmp_path: Path) -> None:
    args = ["bench", "writers", "--data", f"natural:{data['natural']}", "--judge", "--embedder", "hash",
            "--no-plots", "-o", str(tmp_path / "r.json")]  # fmt: skip
    done = CliRunner().invoke(cli, args)
    assert done.exit_code != 0 and "--judge needs a model" in done.output
