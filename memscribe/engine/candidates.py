"""The CandidateSource writers read through: hybrid search and slot lookups over current memories."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memscribe.core.records import MemoryRecord
from memscribe.core.text import normalize
from memscribe.read.search import gather_hits
from memscribe.stores.embedding import DeferredVectors
from memscribe.stores.ports import Partition, RecordFilter, SearchSource

if TYPE_CHECKING:
    from memscribe.core.records import Episode
    from memscribe.engine.core import Core
    from memscribe.providers.ports import Vectors

__all__ = ["EmbeddingCache", "SearchMemo", "StoreCandidates", "prefetch"]


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

    def holds(self, text: str) -> bool:
        """Whether ``text`` is embedded already (here, or ahead in a batch), so storing its vector is free."""
        return text in self._vectors or text in self.core.prefetched

    def get(self, text: str) -> Vectors:
        self.warm([text])
        return self._vectors[text]

    def matrix(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        self.warm(texts)
        if not texts:
            return np.zeros((0, self.core.embedder.dim), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts]).astype(np.float32)


# A writer asks for candidates of one statement at a few sizes (the lite writer: 8 and 12, which search 30
# and 36 deep); the candidate lists are read once, this deep, and cut to each size asked.
_MEMO_DEPTH = 36


class SearchMemo:
    """The store's search side as one episode's writer sees it, read once per statement.

    A writer proposes against the store as it was when the episode began (its operations are checked against
    the store again at commit), so within one episode a statement's vector and keyword candidates and the
    records they name are read once and reused: the lite writer asks for the candidates of each statement
    about four times. Candidate lists are fetched at least ``_MEMO_DEPTH`` deep and cut to the depth asked,
    which is what a search of that depth returns (the lists are ranked, best first)."""

    def __init__(self, store: SearchSource) -> None:
        self.store = store
        self._lists: dict[tuple[Any, ...], tuple[int, list[tuple[str, float]]]] = {}
        self._records: dict[str, MemoryRecord] = {}
        self.reads = 0  # store reads made (for tests and profiles)

    def _cut(self, key: tuple[Any, ...], limit: int, fetch: Any) -> list[tuple[str, float]]:
        held = self._lists.get(key)
        if held is None or (held[0] < limit and len(held[1]) >= held[0]):
            depth = max(limit, _MEMO_DEPTH)
            self.reads += 1
            held = (depth, fetch(depth))
            self._lists[key] = held
        return held[1][:limit]

    def vector_search(
        self, partition: Partition, vector: Vectors, model_id: str, flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        import numpy as np

        key = ("v", partition, model_id, flt, np.asarray(vector, dtype=np.float32).tobytes())
        return self._cut(key, limit, lambda d: self.store.vector_search(partition, vector, model_id, flt, d))

    def keyword_search(
        self, partition: Partition, terms: Sequence[str], flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        key = ("k", partition, flt, tuple(terms))
        return self._cut(key, limit, lambda d: self.store.keyword_search(partition, terms, flt, d))

    def by_version_ids(self, partition: Partition, version_ids: Sequence[str]) -> list[MemoryRecord]:
        missing = [v for v in dict.fromkeys(version_ids) if v not in self._records]
        if missing:
            self.reads += 1
            self._records.update((r.version_id, r) for r in self.store.by_version_ids(partition, missing))
        return [self._records[v] for v in version_ids if v in self._records]


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
        self.memo = SearchMemo(core.store)
        self._similar: dict[tuple[str, int], list[MemoryRecord]] = {}
        self._indexed = False
        self._by_text: bool | None = None  # whether repeats are looked up by text (when writes defer vectors)

    def of_scenes(self, scenes: Sequence[str]) -> StoreCandidates:
        """This source with its searches limited to memories of ``scenes`` in the store; the store reads (the
        memo, whose keys hold the filter) and the episode's embeddings stay shared."""
        scoped = copy.copy(self)
        scoped.flt = replace(self.flt, scenes=tuple(scenes))
        scoped._similar = {}
        return scoped

    def _mine(self, records: list[MemoryRecord]) -> list[MemoryRecord]:
        return [r for r in records if r.scope.project == self.project]

    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        key = (text, limit)
        if key not in self._similar:
            if not self._indexed:  # read-your-writes by vector too: the partition's deferred vectors first
                from memscribe.engine.indexing import index_pending

                self._indexed = True
                index_pending(self.core, self.partition)
            vector = self.cache.get(text)
            embedder = self.core.embedder
            hits = gather_hits(self.memo, embedder, self.partition, text, self.flt, limit, query_vector=vector)
            self._similar[key] = self._mine([h.record for h in hits])
        return list(self._similar[key])

    def identical(self, text: str, limit: int = 5) -> list[MemoryRecord]:
        """Current memories whose text is ``text`` up to case and spacing. An identical text has an
        identical vector, the nearest there is, so the vector index alone finds it: no keyword search,
        no fusion (what the ``raw`` writer needs to confirm a repeated message)."""
        key = normalize(text)
        store = self.core.store
        if self._by_text is None:
            from memscribe.engine.indexing import defers

            self._by_text = defers(self.core)
        if self._by_text and isinstance(store, DeferredVectors) and any(ch.isalnum() for ch in text):
            return store.same_text(self.partition, text, self.flt, limit)  # found by text: no vector needed
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
