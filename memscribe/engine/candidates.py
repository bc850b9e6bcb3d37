"""The CandidateSource writers read through: hybrid search and slot lookups over current memories."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memscribe.core.records import MemoryRecord
from memscribe.read.search import gather_hits
from memscribe.stores.ports import Partition, RecordFilter

if TYPE_CHECKING:
    from memscribe.engine.core import Core
    from memscribe.providers.ports import Vectors

__all__ = ["EmbeddingCache", "StoreCandidates"]


class EmbeddingCache:
    """Vectors computed once per episode: statements embedded for candidate search are reused on write."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._vectors: dict[str, Vectors] = {}

    def warm(self, texts: Sequence[str]) -> None:
        missing = list(dict.fromkeys(t for t in texts if t and t not in self._vectors))
        if missing:
            for text, vector in zip(missing, self.core.embedder.embed(missing), strict=True):
                self._vectors[text] = vector

    def get(self, text: str) -> Vectors:
        self.warm([text])
        return self._vectors[text]

    def matrix(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        self.warm(texts)
        if not texts:
            return np.zeros((0, self.core.embedder.dim), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts]).astype(np.float32)


class StoreCandidates:
    """Current, active memories of one partition and one project, as a writer sees them: a memory of project
    A is never a candidate for an episode of project B (or of none), so neither can supersede the other."""

    def __init__(
        self, core: Core, partition: Partition, cache: EmbeddingCache, now: datetime, project: str | None = None
    ) -> None:
        self.core = core
        self.partition = partition
        self.cache = cache
        self.project = project
        self.flt = RecordFilter(now=now, project=project)

    def _mine(self, records: list[MemoryRecord]) -> list[MemoryRecord]:
        return [r for r in records if r.scope.project == self.project]

    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        hits = gather_hits(
            self.core.store,
            self.core.embedder,
            self.partition,
            text,
            self.flt,
            limit,
            query_vector=self.cache.get(text),
        )
        return self._mine([h.record for h in hits])

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        return self._mine(self.core.store.by_slot(self.partition, slot))

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return self._mine(self.core.store.by_subject(self.partition, subject, limit))
