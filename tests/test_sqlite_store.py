"""SQLite-specific behaviour beyond the shared store contract."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from memscribe import Memory
from memscribe.stores.ports import RecordFilter
from memscribe.stores.sqlite import SQLiteStore
from memscribe.stores.sqlite.schema import MIGRATIONS
from memscribe.stores.sqlite.search import MATCHED_DOCS_BUDGET
from memscribe.stores.sqlite.vectors import partition_token


def test_common_words_are_dropped_when_a_rarer_word_is_asked(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s.db", writer="raw", embedder="hash")
    lines = [{"role": "user", "content": f"weather note {i} for the garden"} for i in range(MATCHED_DOCS_BUDGET + 50)]
    for start in range(0, len(lines), 1000):
        m.add(lines[start : start + 1000], user_id="u")
    m.add("the garden gnome is called Bartholomew", user_id="u")
    store = m._core.store
    assert store._selective_terms(["garden", "bartholomew"]) == (["bartholomew"], 1)
    assert store._selective_terms(["garden"]) == (["garden"], MATCHED_DOCS_BUDGET + 51)  # never an empty query
    hits = store.keyword_search(("default", "u"), ["garden", "bartholomew"], RecordFilter(), 5)
    assert len(hits) == 1  # the rare word alone decides
    m.close()


def test_migrations_are_ordered_named_and_recorded(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s.db", writer="raw", embedder="hash")
    m.add("one fact", user_id="u")
    m.close()
    names = [n for n, _ in MIGRATIONS]
    assert names == sorted(names) and len(set(names)) == len(names)
    recorded = [r[0] for r in sqlite3.connect(tmp_path / "s.db").execute("SELECT name FROM migrations")]
    assert recorded == names
    again = Memory(tmp_path / "s.db", writer="raw", embedder="hash")  # reopening applies nothing twice
    assert again.search("fact", user_id="u")["results"]
    again.close()


def test_a_word_in_too_many_documents_returns_the_newest_matches(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s.db", writer="raw", embedder="hash")
    lines = [{"role": "user", "content": f"weather note {i} for the garden"} for i in range(MATCHED_DOCS_BUDGET + 10)]
    for start in range(0, len(lines), 1000):
        m.add(lines[start : start + 1000], user_id="u")
    hits = m._core.store.keyword_search(("default", "u"), ["garden"], RecordFilter(), 3)
    texts = [r.text for r in m._core.store.by_version_ids(("default", "u"), [vid for vid, _ in hits])]
    assert texts == [f"weather note {i} for the garden" for i in (MATCHED_DOCS_BUDGET + 9, MATCHED_DOCS_BUDGET + 8,
                                                                   MATCHED_DOCS_BUDGET + 7)]  # fmt: skip
    assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)
    m.close()


def test_memories_with_equal_vectors_come_back_in_the_order_they_were_written(tmp_path: Path) -> None:
    # Ids are random in their low bits: ties broken by id would change from run to run, and with them what a
    # writer reads as its candidates.
    for run in range(3):
        m = Memory(tmp_path / f"s{run}.db", writer="raw", embedder="hash")
        m.add([{"role": "user", "content": "I study law"}, {"role": "user", "content": "i study law."}], user_id="u")
        store, partition = m._core.store, ("default", "u")
        vector = m._core.embedder.embed(["I study law"])[0]
        for flt in (RecordFilter(), RecordFilter(include_history=True)):
            hits = store.vector_search(partition, vector, m._core.embedder.model_id, flt, 5)
            texts = [r.text for r in store.by_version_ids(partition, [vid for vid, _ in hits])]
            assert texts == ["I study law", "i study law."]
        m.close()


def _keyword_texts(m: Memory, user_id: str, terms: list[str]) -> list[str]:
    store, partition = m._core.store, ("default", user_id)
    hits = store.keyword_search(partition, terms, RecordFilter(), 5)
    records = {r.version_id: r.text for r in store.by_version_ids(partition, [vid for vid, _ in hits])}
    return [records[vid] for vid, _ in hits]


def test_keyword_search_stays_in_its_partition_with_or_without_the_partition_token(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s.db", writer="raw", embedder="hash")
    for start in range(0, MATCHED_DOCS_BUDGET + 40, 1000):
        lines = range(start, min(start + 1000, MATCHED_DOCS_BUDGET + 40))
        m.add([{"role": "user", "content": f"note {i} about the harbour"} for i in lines], user_id="big")
    m.add("the harbour ferry leaves at noon", user_id="small")
    m.add("a lighthouse stands at the harbour", user_id="big")
    big = f"part:{partition_token(('default', 'big'))}"
    assert m._core.store._matches_at_most(big, MATCHED_DOCS_BUDGET + 41)
    assert not m._core.store._matches_at_most(big, MATCHED_DOCS_BUDGET + 40)
    # "ferry" (1 document) is rarer than big's partition: the row filter alone confines the match.
    assert _keyword_texts(m, "big", ["ferry"]) == []
    assert _keyword_texts(m, "big", ["lighthouse"]) == ["a lighthouse stands at the harbour"]
    # small's partition is the smaller set: the partition token narrows the match.
    assert _keyword_texts(m, "small", ["harbour"]) == ["the harbour ferry leaves at noon"]
    assert _keyword_texts(m, "small", ["lighthouse"]) == []
    m.close()


def test_a_small_partition_is_ranked_by_bm25_even_on_words_common_in_the_store(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s.db", writer="raw", embedder="hash")
    for start in range(0, MATCHED_DOCS_BUDGET + 10, 1000):
        lines = range(start, min(start + 1000, MATCHED_DOCS_BUDGET + 10))
        m.add([{"role": "user", "content": f"weather note {i} for the garden"} for i in lines], user_id="big")
    m.add("garden garden: the garden", user_id="small")  # older, but the better match
    m.add("a long note that mentions the garden once among many other words about the week", user_id="small")
    assert _keyword_texts(m, "small", ["garden"]) == [
        "garden garden: the garden",
        "a long note that mentions the garden once among many other words about the week",
    ]
    # In the big partition the same word matches more than the budget: the newest matches come first.
    assert _keyword_texts(m, "big", ["garden"])[0] == f"weather note {MATCHED_DOCS_BUDGET + 9} for the garden"
    m.close()


def test_reindex_saves_an_index_the_next_open_loads_instead_of_rebuilding(tmp_path: Path) -> None:
    m = Memory(tmp_path / "s.db", writer="raw", embedder="hash")
    m.add([{"role": "user", "content": f"fact number {i}"} for i in range(300)], user_id="u")
    m.delete(m.search("fact number 7", user_id="u", limit=1)["results"][0]["id"], user_id="u")
    store = m._core.store
    done: list[int] = []
    assert m.reindex(user_id="u", progress=done.append) == {"partitions": 1, "vectors": 299,
                                                             "keyword_index": "unchanged"}  # fmt: skip
    assert sum(done) == 299
    assert [p.suffix for p in store.vectors.files()] == [".index", ".json"]  # saved now, not at close
    assert m.reindex()["keyword_index"] == "optimized"
    dim = store.embedding_model()[1]
    m.close()
    reopened = SQLiteStore(tmp_path / "s.db")
    index = reopened.vectors.index
    watermark = index.load(("default", "u"), dim)
    newest = sqlite3.connect(tmp_path / "s.db").execute("SELECT MAX(seq) FROM vector_log").fetchone()[0]
    assert watermark == newest
    assert len(index.search(("default", "u"), np.ones(dim, dtype=np.float32), 1000)) == 299
    reopened.close()


def test_a_new_store_opened_by_two_threads_at_once_reaches_wal(tmp_path: Path) -> None:
    # Changing the journal mode does not wait for a busy connection: the open retries until the other lets go.
    import threading

    from memscribe.stores.sqlite.db import Database

    path = tmp_path / "new.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x)")  # still in the rollback journal, as a store being created is
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (1)")
    threading.Timer(0.3, lambda: other.execute("COMMIT")).start()
    conn = Database(path, lock_timeout=10.0).connection()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    other.close()
