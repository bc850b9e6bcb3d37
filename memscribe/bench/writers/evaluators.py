"""LLM-free evaluators, in the spirit of pydantic_evals: each takes an :class:`EvaluatorContext` (the probe
and what the protocol retrieved) and returns a score, ``None`` where it does not apply.

* ``accuracy``: the updates-natural rule: the top-1 memory holds a current value and no stale one (a forget
  probe: none of the top five holds a stale value);
* ``stale_top1``: the top-1 memory holds a stale value;
* ``contain``: a current value occurs anywhere in the top k;
* ``evidence_recall``: the share of the gold evidence turns the top-k memories' provenance points at.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memscribe.bench.metrics import contains_value, normalize_answer
from memscribe.bench.writers.cases import Probe

__all__ = ["EVALUATORS", "EvaluatorContext", "evaluate"]

FORGET_DEPTH = 5


@dataclass(frozen=True)
class EvaluatorContext:
    probe: Probe
    texts: tuple[str, ...]  # retrieved memory texts, best first
    turns: tuple[frozenset[str], ...] = field(default_factory=tuple)  # turn ids each retrieved memory cites
    k: int = 5


def _holds(probe: Probe, text: str, values: Sequence[str]) -> bool:
    if probe.normalized:
        norm = normalize_answer(text)
        return any(contains_value(norm, v) for v in values)
    low = text.casefold()
    return any(v.casefold() in low for v in values)


def accuracy(ctx: EvaluatorContext) -> float:
    probe = ctx.probe
    if probe.forget:
        return float(not any(_holds(probe, t, probe.stale) for t in ctx.texts[:FORGET_DEPTH]))
    top = ctx.texts[0] if ctx.texts else ""
    return float(bool(top) and _holds(probe, top, probe.expect_any) and not _holds(probe, top, probe.stale))


def stale_top1(ctx: EvaluatorContext) -> float | None:
    if not ctx.probe.stale:
        return None
    return float(bool(ctx.texts) and _holds(ctx.probe, ctx.texts[0], ctx.probe.stale))


def contain(ctx: EvaluatorContext) -> float | None:
    if ctx.probe.forget:
        return None
    return float(any(_holds(ctx.probe, t, ctx.probe.expect_any) for t in ctx.texts[: ctx.k]))


def evidence_recall(ctx: EvaluatorContext) -> float | None:
    gold = ctx.probe.evidence
    if not gold:
        return None
    cited = set().union(*ctx.turns[: ctx.k]) if ctx.turns else set()
    return len(gold & cited) / len(gold)


EVALUATORS: dict[str, Callable[[EvaluatorContext], float | None]] = {
    "accuracy": accuracy,
    "stale_top1": stale_top1,
    "contain": contain,
    "evidence_recall": evidence_recall,
}


def evaluate(ctx: EvaluatorContext) -> dict[str, float | None]:
    """Every evaluator's score for one retrieval."""
    return {name: fn(ctx) for name, fn in EVALUATORS.items()}
