"""Reciprocal-rank fusion: merge ranked lists by rank alone, so scores on different scales combine."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["fuse_rrf"]

K = TypeVar("K", bound=Hashable)


def fuse_rrf(rankings: Sequence[Sequence[tuple[K, float]]], *, k: int = 60) -> list[tuple[K, float]]:
    """Each item scores the sum of 1 / (k + rank) over the lists it appears in (rank from 1).

    The output is a permutation of the union of the inputs, best first; ties keep first-seen order.
    """
    scores: dict[K, float] = {}
    for ranking in rankings:
        seen: set[K] = set()
        for rank, (key, _) in enumerate(ranking, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
