"""``bench updates``: does a writer keep facts current as they change across sessions?

Every scenario (see :mod:`memscribe.bench.scenarios`) is ingested chunk by chunk, one ``add()`` per session,
under its own ``user_id`` in one store. After each chunk its probes are searched and the top result judged:

* ``accuracy@1``: the top result names a current value and no stale one;
* ``stale@1``: it names a stale value and no current one, over the probes that have stale values;
* ``mixed@1`` (both), ``distractor@1`` (another person's value or a temporary place), ``miss@1``;
* ``hit@5``: a current value appears in any of the top five;
* ``forget_leak``: a forgotten value still appears in a current memory (``list()``) after its DELETE request;
* ``memories_per_fact``: current memories after the last chunk / facts then true (1.0 is ideal; over-storage);
* operation precision/recall per kind, chunk events matched to chunk labels by kind counts (:class:`OpTally`);
* ingest throughput (turns/s), search latency and the store's size on disk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memscribe.bench.harness import (
    MemoryFactory,
    MemoryLike,
    RunClock,
    SimClock,
    close_quietly,
    fresh_store_dir,
    json_safe,
    result_rows,
    row_text,
    store_bytes,
)
from memscribe.bench.metrics import MeanTable, OpTally, Verdict, contains_value, judge_answer, normalize_answer
from memscribe.bench.scenarios import Chunk, Probe, Scenario, generate_scenarios

__all__ = ["DEFAULT_SCENARIOS", "GENERATOR_VERSION", "QUICK_SCENARIOS", "TOP_K", "run_updates"]

DEFAULT_SCENARIOS = 300
QUICK_SCENARIOS = 20
DEFAULT_SEED = 7
TOP_K = 5
GENERATOR_VERSION = 1  # bump when the scenario generator's output changes for a given seed
SOURCE = "bench"
_EXAMPLES = 12


class _Scorer:
    """Accumulates probe verdicts, operation counts, forget checks and over-storage for one run."""

    def __init__(self) -> None:
        self.table = MeanTable()
        self.ops = OpTally()
        self.family_ops: dict[str, OpTally] = {}
        self.verdicts: Counter[str] = Counter()
        self.forget_checks = 0
        self.forget_leaks = 0
        self.storage: list[float] = []
        self.examples: list[dict[str, Any]] = []

    def probe(self, scenario: Scenario, chunk: Chunk, probe: Probe, texts: list[str]) -> None:
        verdict = judge_answer(texts[0] if texts else None, probe.current, probe.stale, probe.distractors)
        hit = any(judge_answer(t, probe.current) is Verdict.CORRECT for t in texts[:TOP_K])
        self.verdicts[verdict.value] += 1
        groups = ["all", f"family:{scenario.family}", "fresh" if probe.fresh else "regression"]
        self.table.add(
            groups,
            **{
                "accuracy@1": verdict is Verdict.CORRECT,
                "stale@1": (verdict is Verdict.STALE) if probe.stale else None,
                "mixed@1": verdict is Verdict.MIXED,
                "distractor@1": (verdict is Verdict.DISTRACTOR) if probe.distractors else None,
                "miss@1": verdict is Verdict.MISS,
                f"hit@{TOP_K}": hit,
            },
        )
        if verdict is not Verdict.CORRECT and len(self.examples) < _EXAMPLES:
            self.examples.append(
                {
                    "scenario": scenario.scenario_id,
                    "session": chunk.session_id,
                    "question": probe.question,
                    "verdict": verdict.value,
                    "answer": texts[0] if texts else None,
                    "current": list(probe.current),
                    "stale": list(probe.stale),
                }
            )

    def chunk_ops(self, scenario: Scenario, chunk: Chunk, events: list[str]) -> None:
        self.ops.record(chunk.expected_ops(), events)
        self.family_ops.setdefault(scenario.family, OpTally()).record(chunk.expected_ops(), events)

    def forgotten(self, values: tuple[str, ...], texts: list[str]) -> None:
        norms = [normalize_answer(t) for t in texts]
        for value in values:
            self.forget_checks += 1
            self.forget_leaks += any(contains_value(n, value) for n in norms)


def run_updates(
    make_memory: MemoryFactory,
    writer: str,
    scenarios: int = DEFAULT_SCENARIOS,
    seed: int = DEFAULT_SEED,
    workdir: Path | str = Path(".bench"),
    *,
    progress: Callable[[int, int], None] | None = None,
    sim_clock: SimClock | None = None,
) -> dict[str, Any]:
    """Run ``scenarios`` generated scenarios through a fresh store of ``writer``; returns the results dict.

    The store lives in a new directory under ``workdir`` (kept, so it can be inspected); ``progress`` is
    called with ``(done, total)`` after each scenario. ``sim_clock``, when the memory was built with it, is
    set to each session's date before the session is added and probed, so "now" in a probe means the time
    of that conversation (a ten-day trip is current during it, not expired by today's date).
    """
    cases = generate_scenarios(scenarios, seed)
    store = fresh_store_dir(Path(workdir), f"updates-{writer}")
    memory = make_memory(writer, store)
    clock, scorer = RunClock(), _Scorer()
    try:
        for done, scenario in enumerate(cases, 1):
            _run_scenario(memory, scenario, clock, scorer, sim_clock)
            if progress is not None:
                progress(done, len(cases))
        engine_stats = json_safe(memory.stats())
    finally:
        close_quietly(memory)
    return _results(writer, seed, cases, clock, scorer, store, engine_stats)


def _run_scenario(
    memory: MemoryLike, scenario: Scenario, clock: RunClock, scorer: _Scorer, sim_clock: SimClock | None
) -> None:
    user = scenario.user_id
    for chunk in scenario.chunks:
        if sim_clock is not None:
            sim_clock.set(chunk.timestamp)
        with clock.adding(len(chunk.turns)):
            answer = memory.add(chunk.messages(), user_id=user, timestamp=chunk.timestamp, source=SOURCE)
        scorer.chunk_ops(scenario, chunk, [str(row.get("event", "")) for row in result_rows(answer)])
        for probe in chunk.probes:
            with clock.searching():
                rows = result_rows(memory.search(probe.question, user_id=user, limit=TOP_K))
            scorer.probe(scenario, chunk, probe, [row_text(row) for row in rows])
        if chunk.forgotten:
            scorer.forgotten(chunk.forgotten, [row_text(r) for r in result_rows(memory.list(user_id=user))])
    stored = len(result_rows(memory.list(user_id=user)))
    scorer.storage.append(stored / max(scenario.final_facts, 1))


def _results(
    writer: str,
    seed: int,
    cases: list[Scenario],
    clock: RunClock,
    scorer: _Scorer,
    store: Path,
    engine_stats: Any,
) -> dict[str, Any]:
    means = scorer.table.means()
    chunks = [c for s in cases for c in s.chunks]
    probes = [p for c in chunks for p in c.probes]
    overall = dict(means.get("all", {}))
    overall["forget_leak"] = round(scorer.forget_leaks / scorer.forget_checks, 4) if scorer.forget_checks else 0.0
    overall["memories_per_fact"] = round(sum(scorer.storage) / len(scorer.storage), 4) if scorer.storage else 0.0
    families = Counter(s.family for s in cases)
    by_family = {
        name: {
            "scenarios": families[name],
            "probes": scorer.table.counts(f"family:{name}", "accuracy@1"),
            **means.get(f"family:{name}", {}),
            "ops_f1": scorer.family_ops[name].summary()["all"]["f1"] if name in scorer.family_ops else None,
        }
        for name in sorted(families)
    }
    return {
        "benchmark": "updates",
        "writer": writer,
        "seed": seed,
        "generator_version": GENERATOR_VERSION,
        "top_k": TOP_K,
        "counts": {
            "scenarios": len(cases),
            "chunks": len(chunks),
            "turns": sum(len(c.turns) for c in chunks),
            "statements": sum(len(c.expected_ops()) for c in chunks),
            "probes": len(probes),
            "probes_with_stale": sum(1 for p in probes if p.stale),
            "forget_checks": scorer.forget_checks,
            "facts_at_end": sum(s.final_facts for s in cases),
            "families": dict(sorted(families.items())),
        },
        "metrics": overall,
        "fresh": means.get("fresh", {}),
        "regression": means.get("regression", {}),
        "verdicts": dict(sorted(scorer.verdicts.items())),
        "operations": {
            "expected": dict(sorted(scorer.ops.expected.items())),
            "observed": dict(sorted(scorer.ops.observed.items())),
            "per_kind": scorer.ops.summary(),
        },
        "by_family": by_family,
        "cost": {**clock.summary(), "store_bytes": store_bytes(store), "store_path": str(store)},
        "engine_stats": engine_stats,
        "examples": scorer.examples,
    }
