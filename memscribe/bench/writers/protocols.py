"""Harness protocols: how memories are retrieved for a probe, held fixed while the writer changes.

* ``hybrid``: the system's own search (memscribe's hybrid vector + keyword search, with versions and
  subjects; a peer's memories are mirrored into a memscribe store written by ``raw`` and searched there);
* ``cosine``: mem0-style: every current memory embedded with the benchmark's embedder, top-k by cosine;
* ``layered``: Hy-Memory-style layered recall: a cosine pool of 2k, then profile memories (those with a
  slot) first, facts next, raw episode text last, each layer by cosine; within the pool, memories under the
  0.4 similarity floor Hy-Memory uses come after every memory above it.

Ties break on the memory text, so the order never depends on ids or insertion timing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from memscribe.bench.writers.subjects import Row, Subject
from memscribe.providers.ports import Embedder

__all__ = ["PROTOCOLS", "Retriever", "retriever"]

PROTOCOLS = ("hybrid", "cosine", "layered")
LAYERED_FLOOR = 0.4
TIE_DEPTH = 10

Retriever = Callable[[Subject, str, str, int], list[Row]]


class _Vectors:
    """The benchmark's embedder with a cache by text (memories are re-ranked for many probes)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.cache: dict[str, Any] = {}

    def of(self, texts: Sequence[str]) -> Any:
        missing = sorted({t for t in texts if t not in self.cache})
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self.cache[text] = np.asarray(vector, dtype=np.float32)
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.embedder.dim))


def _text(row: Mapping[str, Any]) -> str:
    value = row.get("memory")
    return value if isinstance(value, str) else ""


def _scored(vectors: _Vectors, rows: list[Row], query: str) -> list[tuple[float, Row]]:
    rows = [r for r in rows if _text(r)]
    if not rows:
        return []
    sims = vectors.of([_text(r) for r in rows]) @ vectors.of([query])[0]
    pairs = [(round(float(s), 6), r) for s, r in zip(sims, rows, strict=True)]
    return sorted(pairs, key=lambda p: (-p[0], _text(p[1])))


def _rank(row: Mapping[str, Any]) -> float:
    value = row.get("rank_score", row.get("score"))
    return round(float(value), 6) if isinstance(value, int | float) else 0.0


def _layer_rank(row: Mapping[str, Any]) -> int:
    if row.get("slot"):
        return 0
    return 2 if row.get("layer") in ("L1", "raw", "episode") else 1


def retriever(name: str, embedder: Embedder) -> Retriever:
    """The retrieval function of protocol ``name`` (one of :data:`PROTOCOLS`)."""
    vectors = _Vectors(embedder)

    def hybrid(subject: Subject, query: str, user: str, k: int) -> list[Row]:
        # Ties in the fused order fall back on random record ids: break them on the text instead, over a
        # deeper list, so that the same store gives the same top k in every run.
        rows = subject.search(query, user_id=user, limit=k + TIE_DEPTH)
        return sorted(rows, key=lambda r: (-_rank(r), _text(r)))[:k]

    def cosine(subject: Subject, query: str, user: str, k: int) -> list[Row]:
        return [r for _, r in _scored(vectors, subject.current(user), query)[:k]]

    def layered(subject: Subject, query: str, user: str, k: int) -> list[Row]:
        pool = _scored(vectors, subject.current(user), query)[: 2 * k]
        ordered = sorted(pool, key=lambda p: (p[0] < LAYERED_FLOOR, _layer_rank(p[1]), -p[0], _text(p[1])))
        return [r for _, r in ordered[:k]]

    table: dict[str, Retriever] = {"hybrid": hybrid, "cosine": cosine, "layered": layered}
    if name not in table:
        from memscribe.errors import ConfigError

        raise ConfigError(f"unknown protocol {name!r}; known: {', '.join(PROTOCOLS)}")
    return table[name]
