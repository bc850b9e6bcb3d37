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


def test_a_scene_filter_is_applied_in_the_store_so_other_scenes_take_no_place(tmp_path: Path) -> None:
    from dataclasses import replace

    from memscribe.bench.speed_probe import make_records
    from memscribe.scenes.writer import SceneCandidates

    embedder = HashEmbedder(64)
    store = SQLiteStore(tmp_path / "s.db")
    coding = [f"The deploy script of service {i} runs on host db-7." for i in range(40)]
    chat = ["My old laptop was called db-7, I miss it."]
    texts = coding + chat
    changes = make_records(texts, embedder.embed(texts), embedder.model_id, "u")
    scenes = ["coding"] * len(coding) + ["chat"]
    inserted = tuple(replace(r, scene=s) for r, s in zip(changes.insert, scenes, strict=True))
    store.apply(replace(changes, insert=inserted))
    with Memory(store=store, writer="raw", embedder=embedder) as m:
        core = m._core
        partition = core.scope("u").partition
        candidates = StoreCandidates(core, partition, EmbeddingCache(core), core.clock.now())
        query = "The deploy script runs on host db-7."
        # Twice as deep a search, filtered afterwards, would not reach it: 16 coding memories come first.
        assert all(r.scene == "coding" for r in candidates.similar(query, 16))
        assert [r.text for r in SceneCandidates(candidates, ("chat",)).similar(query, 8)] == chat


class _PlainSource:
    """A CandidateSource with no store behind it: the scene filter falls back to a deeper search, filtered."""

    def __init__(self, records: list[object]) -> None:
        self.records = records
        self.asked: list[int] = []

    def similar(self, text: str, limit: int = 8) -> list[object]:
        self.asked.append(limit)
        return self.records[:limit]

    def by_slot(self, slot: str) -> list[object]:
        return []

    def by_subject(self, subject: str, limit: int = 50) -> list[object]:
        return []


def test_a_scene_filter_over_a_plain_source_searches_twice_as_deep_and_filters() -> None:
    from types import SimpleNamespace

    from memscribe.scenes.writer import SceneCandidates

    records = [SimpleNamespace(scene="coding" if i % 2 else "chat", text=str(i)) for i in range(20)]
    source = _PlainSource(records)
    found = SceneCandidates(source, ("chat",)).similar("anything", 4)  # type: ignore[arg-type]
    assert source.asked == [8] and [r.text for r in found] == ["0", "2", "4", "6"]
