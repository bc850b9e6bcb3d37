"""The CandidateSource writers read through: hybrid search and slot lookups over current memories."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memscribe.core.records import MemoryRecord
from memscribe.core.text import normalize
from memscribe.read.search import gather_hits
from memscribe.stores.ports import Partition, RecordFilter

if TYPE_CHECKING:
    from memscribe.core.records import Episode
    from memscribe.engine.core import Core
    from memscribe.providers.ports import Vectors

__all__ = ["EmbeddingCache", "StoreCandidates", "prefetch"]


def prefetch(core: Core, episodes: Sequence[tuple[Core, Episode]], limit: int = 256) -> dict[str, str]:
    """Embed, in one model call, the texts the writers of ``episodes`` will probably ask for (at most
    ``limit``), so that writing them one by one afterwards pays no model call each. Returns each text
    embedded with the name of the writer it was embedded for."""
    from memscribe.write.ports import writer_likely_texts

    texts: dict[str, str] = {}
    for owner, episode in episodes:
        for text in writer_likely_texts(owner.writer, episode):
            if text and text not in core.prefetched:
                texts.setdefault(text, owner.writer.name)
    chosen = dict(list(texts.items())[:limit])
    if chosen:
        for text, vector in zip(chosen, core.embedder.embed(list(chosen)), strict=True):
            core.prefetched[text] = vector
    return chosen


class EmbeddingCache:
    """Vectors computed once per episode: statements embedded for candidate search are reused on write.

    ``likely`` names texts the writer will probably ask for (the episode's messages). They are embedded
    together, in one model call, when the first of them is asked for, and not at all when none is: a
    writer that stores rewritten statements never pays for embedding the raw messages."""

    def __init__(self, core: Core, likely: Sequence[str] = ()) -> None:
        self.core = core
        self._vectors: dict[str, Vectors] = {}
        self._likely = set(likely)

    def warm(self, texts: Sequence[str]) -> None:
        missing = list(dict.fromkeys(t for t in texts if t and t not in self._vectors))
        if any(t in self._likely for t in missing):
            missing += [t for t in self._likely if t not in self._vectors and t not in missing]
            self._likely = set()
        ahead = self.core.prefetched
        for text in [t for t in missing if t in ahead]:
            found = ahead.pop(text, None)
            if found is not None:
                self._vectors[text] = found
        missing = [t for t in missing if t not in self._vectors]
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

    def identical(self, text: str, limit: int = 5) -> list[MemoryRecord]:
        """Current memories whose text is ``text`` up to case and spacing. An identical text has an
        identical vector, the nearest there is, so the vector index alone finds it: no keyword search,
        no fusion (what the ``raw`` writer needs to confirm a repeated message)."""
        key = normalize(text)
        hits = self.core.store.vector_search(
            self.partition, self.cache.get(text), self.core.embedder.model_id, self.flt, limit
        )
        order = [vid for vid, _ in hits]
        records = sorted(self.core.store.by_version_ids(self.partition, order), key=lambda r: order.index(r.version_id))
        return [r for r in records if normalize(r.text) == key]

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        return self._mine(self.core.store.by_slot(self.partition, slot))

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return self._mine(self.core.store.by_subject(self.partition, subject, limit))
