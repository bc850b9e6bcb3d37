"""Duplicate merging: near-identical current memories become one.

Two memories are duplicates when they share owner, subject, layer and scene, say the same value for the
same slot (if any), carry the same numbers and the same polarity, and their content words overlap at least
``threshold``. The keeper is the most confident (then the one with a slot, then the oldest); each duplicate is
DELETEd with a reason naming the keeper (the journal keeps the merge).
Diff-chain revisions, session facts, experiences and profile snapshots are never merged here: each has its
own reconciliation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from memscribe.core.records import Layer, MemoryRecord, Operation, OpKind, Status
from memscribe.core.text import normalize
from memscribe.scenes.task import token_set
from memscribe.scenes.working import jaccard

__all__ = ["Merge", "duplicate_ops", "find_duplicates"]

_OWN_RECONCILIATION: Final = frozenset({"revision", "session_fact", "experience", "profile"})
_LAYERS: Final = frozenset({Layer.FACT, Layer.SUMMARY, Layer.SCHEMA, Layer.INTENTION})
_NUMBER: Final = re.compile(r"\d+(?:[.,]\d+)?")
_NEGATION: Final = re.compile(r"\b(?:not|no|never|nor|none|nobody|nothing|neither)\b|n't\b", re.IGNORECASE)
_MAX_GROUP: Final = 400  # near-duplicate comparison is quadratic in a group; exact ones are found at any size


@dataclass(frozen=True)
class _Shape:
    record: MemoryRecord
    exact: str
    words: frozenset[str]
    numbers: frozenset[str]
    negated: bool


def _shape(record: MemoryRecord) -> _Shape:
    text = record.text
    return _Shape(
        record, normalize(text), token_set(text), frozenset(_NUMBER.findall(text)), bool(_NEGATION.search(text))
    )


def _eligible(record: MemoryRecord) -> bool:
    return (
        record.is_current
        and record.status is Status.ACTIVE
        and record.layer in _LAYERS
        and record.metadata.get("kind") not in _OWN_RECONCILIATION
    )


def _same(a: _Shape, b: _Shape, threshold: float) -> float | None:
    """The overlap when ``b`` duplicates ``a``; None when it does not."""
    if a.exact == b.exact:
        return 1.0
    ra, rb = a.record, b.record
    if ra.slot and rb.slot and (ra.slot != rb.slot or (ra.value or "").casefold() != (rb.value or "").casefold()):
        return None
    if a.numbers != b.numbers or a.negated != b.negated:
        return None
    overlap = jaccard(a.words, b.words)
    return overlap if overlap >= threshold else None


Merge = tuple[MemoryRecord, list[tuple[MemoryRecord, float]]]  # (keeper, [(duplicate, overlap), …])


def find_duplicates(records: Iterable[MemoryRecord], threshold: float = 0.8) -> list[Merge]:
    """(keeper, [(duplicate, overlap), …]) for every group of near-identical current memories."""
    groups: dict[tuple[str, str, str, str], list[_Shape]] = {}
    for record in records:
        if _eligible(record):
            key = (record.owner.value, record.subject.casefold(), record.layer.value, record.scene)
            groups.setdefault(key, []).append(_shape(record))
    found: list[Merge] = []
    for shapes in groups.values():
        found.extend(_merge_group(shapes, threshold))
    return found


def _merge_group(shapes: list[_Shape], threshold: float) -> list[Merge]:
    shapes = sorted(shapes, key=lambda s: (-s.record.confidence, s.record.slot is None, s.record.valid_from))
    keepers: list[tuple[_Shape, list[tuple[MemoryRecord, float]]]] = []
    exact: dict[str, int] = {}
    for shape in shapes:
        if shape.exact in exact:
            keepers[exact[shape.exact]][1].append((shape.record, 1.0))
            continue
        match = None
        if len(shapes) <= _MAX_GROUP:
            match = next(((i, o) for i, (k, _) in enumerate(keepers) if (o := _same(k, shape, threshold))), None)
        if match is not None:
            keepers[match[0]][1].append((shape.record, match[1]))
            continue
        exact[shape.exact] = len(keepers)
        keepers.append((shape, []))
    return [(k.record, dups) for k, dups in keepers if dups]


def duplicate_ops(records: Iterable[MemoryRecord], threshold: float = 0.8) -> list[Operation]:
    """DELETE each duplicate; the reason names the keeper, so the journal records what was merged where.

    The keeper itself is left untouched: a new version written by consolidation would lose its provenance.
    """
    ops = []
    for keeper, dups in find_duplicates(records, threshold):
        for dup, overlap in dups:
            reason = f"duplicate of {keeper.id} (word overlap {overlap:.2f}); merged into it"
            ops.append(Operation(OpKind.DELETE, reason, target=dup.id, candidates=(keeper.id,)))
    return ops
