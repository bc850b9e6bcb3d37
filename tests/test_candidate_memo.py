"""A writer's candidate searches within one episode read the store once per statement, and return what a
search straight through the store returns."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memscribe import Memory
from memscribe.engine.candidates import EmbeddingCache, SearchMemo, StoreCandidates
from memscribe.providers.hashing import HashEmbedder
from memscribe.read.search import gather_hits
from memscribe.stores.ports import Partition, RecordFilter
from memscribe.stores.sqlite import SQLiteStore

TEXTS = [
    "Priya moved to Lisbon last spring.",
    "Priya works at a bakery in Lisbon.",
    "The staging database lives on host db-7.",
    "I adopted a cat named Pepper.",
    "Pepper the cat likes the balcony.",
]


class CountingStore(SQLiteStore):
    """The SQLite store, counting its search-side reads."""

    reads = 0

    def vector_search(self, *args: object, **kwargs: object) -> list[tuple[str, float]]:
        self.reads += 1
        return super().vector_search(*args, **kwargs)  # type: ignore[arg-type]

    def keyword_search(
        self, partition: Partition, terms: Sequence[str], flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        self.reads += 1
        return super().keyword_search(partition, terms, flt, limit)


def test_repeated_candidate_searches_read_the_store_once_and_match_a_direct_search(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "s.db")
    with Memory(store=store, writer="raw", embedder=HashEmbedder(64)) as m:
        for text in TEXTS:
            m.add(text, user_id="u")
        core = m._core
        now = core.clock.now()
        candidates = StoreCandidates(core, ("default", "u"), EmbeddingCache(core), now)
        store.reads = 0
        first = candidates.similar("Where does Priya live?", limit=8)
        again = candidates.similar("Where does Priya live?", limit=8)
        wider = candidates.similar("Where does Priya live?", limit=12)
        assert store.reads == 2  # one vector and one keyword list, for three searches of two sizes
        assert [r.version_id for r in first] == [r.version_id for r in again]
        vector = core.embedder.embed(["Where does Priya live?"])[0]
        for found, limit in ((first, 8), (wider, 12)):
            direct = gather_hits(store, core.embedder, ("default", "u"), "Where does Priya live?",
                                 RecordFilter(now=now), limit, query_vector=vector)  # fmt: skip
            assert [r.version_id for r in found] == [h.record.version_id for h in direct]
        assert any("Priya" in r.text for r in first)


def test_a_memo_cut_shorter_than_asked_reads_deeper(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "s.db")
    with Memory(store=store, writer="raw", embedder=HashEmbedder(64)) as m:
        for i in range(5):
            m.add(f"note {i} about the garden", user_id="u")
        memo = SearchMemo(store)
        flt = RecordFilter()
        shallow = memo.keyword_search(("default", "u"), ["garden"], flt, 2)
        assert len(shallow) == 2
        deep = memo.keyword_search(("default", "u"), ["garden"], flt, 100)
        assert len(deep) == 5 and deep[:2] == shallow
        assert memo.reads == 1  # the first read was already deeper than both (and held every match)
        memo.keyword_search(("default", "u"), ["garden"], flt, 500)
        assert memo.reads == 1  # the list held fewer matches than it was read for: nothing more to find
