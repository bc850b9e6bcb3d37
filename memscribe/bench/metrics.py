"""LLM-free benchmark metrics: answer normalisation, probe verdicts, operation matching, evidence recall.

Definitions follow ``research/benchmarks.md`` §5. Everything here is pure: no I/O, no memory object.
"""

from __future__ import annotations

import enum
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "OP_KINDS",
    "MeanTable",
    "OpTally",
    "Verdict",
    "answer_containment",
    "canonical_dia_id",
    "contains_value",
    "evidence_recall",
    "gold_answer",
    "judge_answer",
    "normalize_answer",
    "normalize_evidence",
    "parts_containment",
]

OP_KINDS = ("ADD", "UPDATE", "SUPERSEDE", "DELETE", "NOOP")

_PUNCT = re.compile(r"[^\w\s]|_")
_FILLER = re.compile(r"\b(?:a|an|the|and)\b")
_DIA_ID = re.compile(r"D:?(\d+):0*(\d+)")


def normalize_answer(text: object) -> str:
    """The LoCoMo normaliser (§5.3): lower-case, punctuation to spaces, drop a/an/the/and, collapse spaces."""
    lowered = _PUNCT.sub(" ", str(text).lower())
    return " ".join(_FILLER.sub(" ", lowered).split())


def contains_value(normalized_text: str, value: str) -> bool:
    """Whether ``value`` occurs as whole contiguous tokens in already-normalised text."""
    needle = normalize_answer(value)
    return bool(needle) and f" {needle} " in f" {normalized_text} "


class Verdict(enum.StrEnum):
    """What the top search result says about a probed fact."""

    CORRECT = "correct"  # names the current value and no stale one
    MIXED = "mixed"  # names the current value and a stale one ("moved from Seattle to Sydney")
    STALE = "stale"  # names a stale value and not the current one
    DISTRACTOR = "distractor"  # names another subject's value, or a temporary one, and neither of the above
    MISS = "miss"  # names none of them, or there was no result


def judge_answer(
    text: str | None,
    current: Sequence[str],
    stale: Sequence[str] = (),
    distractors: Sequence[str] = (),
) -> Verdict:
    """Judge one answer text against a probe; any one of several current values (multi-valued) counts."""
    if not text:
        return Verdict.MISS
    norm = normalize_answer(text)
    has_current = any(contains_value(norm, v) for v in current)
    has_stale = any(contains_value(norm, v) for v in stale)
    if has_current:
        return Verdict.MIXED if has_stale else Verdict.CORRECT
    if has_stale:
        return Verdict.STALE
    if any(contains_value(norm, v) for v in distractors):
        return Verdict.DISTRACTOR
    return Verdict.MISS


@dataclass
class OpTally:
    """Operation precision/recall by kind counts.

    ``add()`` reports events without saying which statement each came from, so a chunk's events are matched to
    its labelled operations as multisets: for each kind, ``min(expected, observed)`` are true positives, the
    surplus events false positives, the missing ones false negatives. Counts are summed over all chunks
    (micro-averaged) before precision and recall are taken.
    """

    expected: Counter[str] = field(default_factory=Counter)
    observed: Counter[str] = field(default_factory=Counter)
    tp: Counter[str] = field(default_factory=Counter)

    def record(self, expected: Iterable[str], observed: Iterable[str]) -> None:
        want = Counter(kind.upper() for kind in expected)
        got = Counter(kind.upper() for kind in observed)
        self.expected.update(want)
        self.observed.update(got)
        for kind in want.keys() & got.keys():
            self.tp[kind] += min(want[kind], got[kind])

    def summary(self) -> dict[str, dict[str, float | int | None]]:
        """Per kind (and ``all``): tp, fp, fn, precision, recall, f1; ``None`` where a ratio is undefined."""
        kinds = [*OP_KINDS, *sorted((self.expected.keys() | self.observed.keys()) - set(OP_KINDS))]
        out = {k: _prf(self.tp[k], self.observed[k], self.expected[k]) for k in kinds}
        out["all"] = _prf(sum(self.tp.values()), sum(self.observed.values()), sum(self.expected.values()))
        return out


def _prf(tp: int, observed: int, expected: int) -> dict[str, float | int | None]:
    precision = tp / observed if observed else None
    recall = tp / expected if expected else None
    f1 = None
    if precision is not None and recall is not None:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "tp": tp,
        "fp": observed - tp,
        "fn": expected - tp,
        "precision": _round(precision),
        "recall": _round(recall),
        "f1": _round(f1),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


class MeanTable:
    """Means of named per-item values, grouped (per category, per family, ``all``)."""

    def __init__(self) -> None:
        self._values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))

    def add(self, groups: Iterable[str], **values: float | bool | None) -> None:
        """Record one item's values in each of ``groups``; ``None`` values are skipped (not applicable)."""
        for group in groups:
            for name, value in values.items():
                if value is not None:
                    self._values[group][name].append(float(value))

    def counts(self, group: str, name: str) -> int:
        return len(self._values.get(group, {}).get(name, []))

    def means(self) -> dict[str, dict[str, float]]:
        return {
            group: {name: round(sum(vals) / len(vals), 4) for name, vals in names.items() if vals}
            for group, names in sorted(self._values.items())
        }


# --- LoCoMo evidence and answers (§5.1-§5.3) ---------------------------------------------------------------


def canonical_dia_id(raw: object) -> str | None:
    """``"D1:3"`` from any of the spellings seen in the data (``D1:03``, ``D:1:3``); ``None`` if none."""
    match = _DIA_ID.search(str(raw))
    return f"D{int(match.group(1))}:{int(match.group(2))}" if match else None


def normalize_evidence(raw: object, valid: Collection[str]) -> frozenset[str]:
    """Gold turn ids of a question: every ``D<s>:<t>`` found in the evidence, canonical, kept if it exists.

    Handles the §2.4 anomalies: several ids in one string (``"D1:2; D1:3"``), zero padding, a stray colon,
    ids that name no turn of the conversation (dropped), and evidence given as a bare string.
    """
    items: Iterable[object] = [raw] if isinstance(raw, str) else raw if isinstance(raw, Iterable) else ()
    found = {f"D{int(m.group(1))}:{int(m.group(2))}" for item in items for m in _DIA_ID.finditer(str(item))}
    return frozenset(found & set(valid))


def evidence_recall(gold: Collection[str], ranked_provenance: Sequence[Collection[str]], k: int) -> dict[str, float]:
    """recall_any/all/frac@k and the provenance width/precision guard of §5.2 for one question."""
    cited: set[str] = set()
    for prov in ranked_provenance[:k]:
        cited.update(prov)
    covered = cited & set(gold)
    return {
        f"recall_any@{k}": float(bool(covered)),
        f"recall_all@{k}": float(bool(gold) and covered == set(gold)),
        f"recall_frac@{k}": len(covered) / len(gold) if gold else 0.0,
        f"prov_width@{k}": float(len(cited)),
        f"evidence_precision@{k}": len(covered) / len(cited) if cited else 0.0,
    }


def gold_answer(answer: object, category: int) -> str | None:
    """The gold answer string to look for (§5.3): ``str()`` of it; category 3 cut at the first ``;``."""
    if answer is None:
        return None
    text = str(answer)
    if category == 3:
        text = text.split(";", 1)[0]
    return text if normalize_answer(text) else None


def answer_containment(gold: str, texts: Sequence[str], k: int) -> float:
    """contain@k: the normalised gold occurs as contiguous tokens in the normalised top-k texts."""
    context = normalize_answer(" ".join(texts[:k]))
    return float(contains_value(context, gold))


def parts_containment(gold: str, texts: Sequence[str], k: int) -> float:
    """contain_parts@k (for multi-hop answers listing several things): mean containment of the ``,`` parts."""
    parts = [p for p in gold.split(",") if normalize_answer(p)]
    if not parts:
        return 0.0
    context = normalize_answer(" ".join(texts[:k]))
    return sum(contains_value(context, p) for p in parts) / len(parts)
