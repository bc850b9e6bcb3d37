"""Deferred vector indexing: an add stores its memory (row, keyword index, journal) and leaves the vector to
the indexer; nothing acknowledged is lost, every search sees it by vector, erasure removes the marks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memscribe import Memory
from memscribe.providers.hashing import HashEmbedder
from memscribe.stores.sqlite import SQLiteStore
from tests.test_write_throughput import CountingEmbedder


def _unembedded(m: Memory) -> list[tuple[Any, str, str]]:
    store = m._core.store
    assert isinstance(store, SQLiteStore)
    return store.unembedded(tenant="default", limit=1000)


def _without_indexer(path: Path, embedder: HashEmbedder) -> Memory:
    """A Memory whose background indexer never runs, so what its adds defer stays visible."""
    m = Memory(path, writer="raw", embedder=embedder)
    m.add("The first memory embeds at once and records the model.", user_id="u")
    m._indexer.close()
    return m


def test_an_add_stores_the_memory_now_and_a_search_finds_it_by_vector(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    m = _without_indexer(tmp_path / "s.db", embedder)
    embedder.calls.clear()
    added = m.add("Priya keeps bees on her roof in Lisbon.", user_id="u")["results"]
    assert [r["event"] for r in added] == ["ADD"] and embedder.calls == []  # acknowledged without embedding
    assert [text for _, _, text in _unembedded(m)] == ["Priya keeps bees on her roof in Lisbon."]
    hits = m.search("beekeeping on a roof", user_id="u")["results"]
    assert hits[0]["memory"] == "Priya keeps bees on her roof in Lisbon."
    assert hits[0]["scores"]["vector"] is not None  # embedded before the search, not found by keyword alone
    assert _unembedded(m) == [] and m._core.store.check() == []
    m.close()


def test_a_multi_message_add_is_embedded_in_one_model_call(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    m = _without_indexer(tmp_path / "s.db", embedder)
    embedder.calls.clear()
    texts = ["We ship billing on Thursdays.", "Staging lives on host db-7.", "The on-call rota changes Monday."]
    m.add([{"role": "user", "content": t} for t in texts], user_id="u")
    assert embedder.calls == []
    m.search("billing release day", user_id="u")
    assert sorted(embedder.calls[0]) == sorted(texts) and embedder.calls[1] == ["billing release day"]
    m.close()


def test_a_repeated_message_is_confirmed_without_a_vector(tmp_path: Path) -> None:
    m = _without_indexer(tmp_path / "s.db", HashEmbedder(64))
    first = m.add("I take the 7:40 train to work.", user_id="u")["results"]
    again = m.add("i take the  7:40 train to work.", user_id="u")["results"]
    assert [r["event"] for r in again] == ["NOOP"] and again[0]["id"] == first[0]["id"]
    m.close()


def test_vectors_a_closed_or_killed_process_left_are_embedded_by_the_next_one(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first = _without_indexer(path, HashEmbedder(64))
    for i in range(5):
        first.add(f"Note {i}: the greenhouse needs watering on day {i}.", user_id="u")
    assert len(_unembedded(first)) == 5
    first._core.store.close()  # gone without indexing: the marks are rows of each add's own transaction
    second = Memory(path, writer="raw", embedder=HashEmbedder(64))
    second.add("A later session starts.", user_id="u")  # the first use finds the backlog and resumes it
    second._indexer.join()
    assert _unembedded(second) == [] and second._core.store.check() == []
    hits = second.search("greenhouse watering", user_id="u", limit=10)["results"]
    assert sum("greenhouse" in h["memory"] for h in hits) == 5
    second.close()


def test_another_memory_on_the_same_store_searches_what_one_left_unembedded(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    writer = _without_indexer(path, HashEmbedder(64))
    writer.add("Jolene's rescue dog is called Biscuit.", user_id="u")
    reader = Memory(path, writer="raw", embedder=HashEmbedder(64))
    hits = reader.search("what is the dog called", user_id="u")["results"]
    assert hits[0]["memory"] == "Jolene's rescue dog is called Biscuit." and hits[0]["scores"]["vector"] is not None
    reader.close()
    writer.close()


def test_forget_and_purge_remove_the_marks_of_memories_not_yet_embedded(tmp_path: Path) -> None:
    m = _without_indexer(tmp_path / "s.db", HashEmbedder(64))
    gone = m.add("My locker code is behind the poster.", user_id="u")["results"][0]["id"]
    m.add("Sam collects vinyl records.", user_id="sam")
    assert len(_unembedded(m)) == 2
    m.forget(gone, user_id="u")
    assert [text for _, _, text in _unembedded(m)] == ["Sam collects vinyl records."]
    report = m.purge("sam")
    assert report["verified"] and _unembedded(m) == []
    m.close()


def test_a_retired_memory_gets_its_vector_but_never_enters_the_current_index(tmp_path: Path) -> None:
    m = _without_indexer(tmp_path / "s.db", HashEmbedder(64))
    memory_id = m.add("The team standup is at 9:15.", user_id="u")["results"][0]["id"]
    m.delete(memory_id, user_id="u")  # retracted before the indexer ran
    assert memory_id not in [h["id"] for h in m.search("standup time", user_id="u")["results"]]
    assert _unembedded(m) == [] and m._core.store.check() == []
    m.close()


def test_close_computes_the_vectors_its_adds_left(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    m = _without_indexer(path, HashEmbedder(64))
    m.add("Short-lived processes leave nothing to embed.", user_id="u")
    assert len(_unembedded(m)) == 1
    m.close()
    store = SQLiteStore(path)
    assert store.unembedded(limit=10) == [] and store.check() == []
    store.close()


def test_the_memory_class_imports_without_numpy() -> None:
    import subprocess
    import sys

    code = "import sys, memscribe; memscribe.Memory; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"  # numpy loads with the first store or embedder, not with the class
