"""Writers side by side on natural update scenarios, with a real model where a writer needs one.

Reads a JSON Lines file of scenarios (``id``, ``user``, ``episodes`` with ``t`` and ``messages``, ``probes``
with ``after``, ``query``, ``expect_any``, ``stale``), ingests every episode with each writer into a
fresh store, and scores each probe by the rule of the updates-natural set: the top-1 result must contain
an expected string and no stale one (for a forget probe, none of the top 5 may contain a stale string).
A fixed subset is taken by stride (every ``len/count``-th scenario) so runs are comparable.

Per writer it reports accuracy, stale-at-top-1, wrong supersedes (an accepted SUPERSEDE/UPDATE/DELETE
whose closed memory held a value a later probe still expects), model calls, tokens and seconds per add,
and add errors. The report is rewritten after every scenario, so an interrupted run leaves a partial one,
and an add that raises is counted and the run goes on.

    python -m memscribe.bench.llm_natural --data dev.jsonl --writers raw,lite,pro,hybrid \\
        --llm llamacpp:qwen2.5-coder-1.5b --llm-base-url http://127.0.0.1:8871/v1 --out report.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memscribe.core.clock import FrozenClock
from memscribe.core.messages import parse_time
from memscribe.engine.memory import Memory

__all__ = ["WriterTally", "load_subset", "main", "run_writer", "score_probe"]

Scenario = dict[str, Any]


def load_subset(path: Path, count: int) -> list[Scenario]:
    """Every ``len/count``-th scenario of the file, in file order (all of them when ``count`` ≥ the total)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    stride = max(1, len(rows) // count) if count else 1
    return rows[::stride][:count] if count else rows


def _has(text: str, needles: Sequence[str]) -> bool:
    low = text.casefold()
    return any(n.casefold() in low for n in needles)


def score_probe(probe: dict[str, Any], texts: Sequence[str]) -> tuple[bool, bool]:
    """(passed, stale at top 1) for one probe over the search results' texts, best first."""
    stale = probe.get("stale") or []
    if not probe.get("expect_any"):
        return not any(_has(t, stale) for t in texts[:5]), False
    top = texts[0] if texts else ""
    stale_top = bool(stale) and _has(top, stale)
    return _has(top, probe["expect_any"]) and not stale_top, stale_top


@dataclass
class WriterTally:
    """One writer's figures over the scenarios run so far."""

    writer: str
    scenarios: int = 0
    probes: int = 0
    passed: int = 0
    stale_top1: int = 0
    wrong_supersedes: int = 0
    adds: int = 0
    add_errors: int = 0
    empty_without_reason: int = 0
    seconds: float = 0.0
    calls: int = 0
    tokens: int = 0
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    per_scenario: list[dict[str, Any]] = field(default_factory=list)  # to compare runs cut short on a prefix

    def summary(self) -> dict[str, Any]:
        adds = max(self.adds, 1)
        return {
            **{k: v for k, v in asdict(self).items() if k not in ("failed", "errors", "per_scenario")},
            "accuracy": round(self.passed / max(self.probes, 1), 3),
            "calls_per_add": round(self.calls / adds, 2),
            "tokens_per_add": round(self.tokens / adds, 1),
            "s_per_add": round(self.seconds / adds, 2),
            "failed": self.failed,
            "errors": self.errors[:20],
            "per_scenario": self.per_scenario,
        }


def _closed_texts(result: Mapping[str, Any]) -> list[str]:
    out = []
    for item in result.get("results", []):
        if item.get("event") in ("SUPERSEDE", "UPDATE") and item.get("previous_memory"):
            out.append(str(item["previous_memory"]))
        elif item.get("event") == "DELETE" and item.get("memory"):
            out.append(str(item["memory"]))
    return out


def _run_scenario(memory: Memory, scenario: Scenario, tally: WriterTally, cost: Callable[[], tuple[int, int]]) -> None:
    user = scenario["user"]
    closed: list[tuple[int, str]] = []
    before = (tally.probes, tally.passed, tally.stale_top1, tally.adds, tally.seconds, *cost())
    for index, episode in enumerate(scenario["episodes"]):
        when = parse_time(episode["t"])
        began = time.perf_counter()
        try:
            result = memory.add(episode["messages"], user_id=user, timestamp=when)
            closed += [(index, text) for text in _closed_texts(result)]
            if not result.get("results") and not result.get("rejected"):
                tally.empty_without_reason += 1
        except Exception as exc:  # a benchmark reports a failing add and goes on
            tally.add_errors += 1
            tally.errors.append(f"{scenario['id']}#{index}: {type(exc).__name__}: {exc}"[:300])
        tally.seconds += time.perf_counter() - began
        tally.adds += 1
        for probe in (p for p in scenario["probes"] if p["after"] == index):
            hits = memory.search(probe["query"], user_id=user, limit=5)["results"]
            passed, stale_top = score_probe(probe, [h["memory"] for h in hits])
            tally.probes += 1
            tally.passed += passed
            tally.stale_top1 += stale_top
            if not passed:
                tally.failed.append(f"{scenario['id']}@{probe['after']}")
    wrong = {
        (i, text)
        for i, text in closed
        for p in scenario["probes"]
        if p["after"] >= i
        and p.get("expect_any")
        and _has(text, p["expect_any"])
        and not _has(text, p.get("stale") or [])
    }
    tally.wrong_supersedes += len(wrong)
    tally.calls, tally.tokens = cost()
    tally.scenarios += 1
    tally.per_scenario.append({
        "id": scenario["id"], "probes": tally.probes - before[0], "passed": tally.passed - before[1],
        "stale_top1": tally.stale_top1 - before[2], "wrong_supersedes": len(wrong), "adds": tally.adds - before[3],
        "seconds": round(tally.seconds - before[4], 2), "calls": tally.calls - before[5],
        "tokens": tally.tokens - before[6],
    })  # fmt: skip


def _make_writer(name: str, chat_factory: Callable[[], Any] | None) -> tuple[Any, Callable[[], tuple[int, int]]]:
    if name in ("raw", "lite"):
        return name, lambda: (0, 0)
    if chat_factory is None:
        raise SystemExit(f"writer {name!r} needs --llm")
    from memscribe.write.llm import make_llm_writer

    base, _, style = name.partition("-")  # "pro-compact": the pro writer with its short prompt
    opts = {"prompt": style} if base == "pro" and style else {}
    writer = make_llm_writer(base if opts else name, chat_factory(), **opts)
    stats = writer.stats  # type: ignore[attr-defined]
    return writer, lambda: (stats.calls, stats.tokens_in + stats.tokens_out)


def run_writer(
    name: str,
    scenarios: Sequence[Scenario],
    *,
    embedder: str,
    chat_factory: Callable[[], Any] | None,
    workdir: Path,
    on_progress: Callable[[WriterTally], None] = lambda tally: None,
) -> WriterTally:
    """Every scenario through one fresh store written by ``name``."""
    writer, cost = _make_writer(name, chat_factory)
    tally = WriterTally(name)
    first = parse_time(scenarios[0]["episodes"][0]["t"]) if scenarios else None
    with Memory(workdir / f"{name}.db", writer=writer, embedder=embedder, clock=FrozenClock(first)) as memory:
        for scenario in scenarios:
            _run_scenario(memory, scenario, tally, cost)
            on_progress(tally)
    return tally


def _chat_factory(args: argparse.Namespace) -> Callable[[], Any] | None:
    if not args.llm:
        return None

    def build() -> Any:
        if args.llm in ("scripted:lite", "scripted:destructive"):  # offline models for checking the writers
            from memscribe.bench.pro import destructive_chat, scripted_pro_chat

            return scripted_pro_chat() if args.llm == "scripted:lite" else destructive_chat()
        from memscribe.providers.openai_compat import RetryPolicy
        from memscribe.providers.presets import make_chat

        return make_chat(args.llm, base_url=args.llm_base_url, structured=args.llm_structured,
                         timeout=args.timeout, retry=RetryPolicy(max_retries=1))  # fmt: skip

    return build


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m memscribe.bench.llm_natural", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="scenarios, JSON Lines")
    parser.add_argument("--scenarios", type=int, default=30, help="fixed subset size, by stride (0: all)")
    parser.add_argument("--writers", default="raw,lite,pro,hybrid")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--llm", default=None, help="provider:model for the writers that need one "
                        "(scripted:lite and scripted:destructive: offline scripted models)")  # fmt: skip
    parser.add_argument("--llm-base-url", default=None)
    parser.add_argument("--llm-structured", default=None)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per model call")
    parser.add_argument("--out", type=Path, default=None, help="JSON report, rewritten after every scenario")
    args = parser.parse_args(argv)
    scenarios = load_subset(args.data, args.scenarios)
    report: dict[str, Any] = {"data": str(args.data), "scenarios": [s["id"] for s in scenarios],
                              "llm": args.llm, "writers": {}}  # fmt: skip

    def save(tally: WriterTally) -> None:
        report["writers"][tally.writer] = tally.summary()
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False))

    with tempfile.TemporaryDirectory(prefix="memscribe-llm-natural-") as tmp:
        for name in [w.strip() for w in args.writers.split(",") if w.strip()]:
            tally = run_writer(name, scenarios, embedder=args.embedder, chat_factory=_chat_factory(args),
                               workdir=Path(tmp), on_progress=save)  # fmt: skip
            save(tally)
            s = tally.summary()
            line = (f"{name:8} acc {s['accuracy']:.3f}  stale@1 {s['stale_top1']:3}"
                    f"  wrong-sup {s['wrong_supersedes']:3}  calls/add {s['calls_per_add']:.2f}"
                    f"  tok/add {s['tokens_per_add']:7.1f}"
                    f"  s/add {s['s_per_add']:.2f}  errors {s['add_errors']}")  # fmt: skip
            print(line, flush=True)
    return report


if __name__ == "__main__":
    main()
