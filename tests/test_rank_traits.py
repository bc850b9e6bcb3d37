"""The read path reads each memory version's traits (topics, fragment, date, number, name) from its text once:
reused while the version's text is the same, read again for a new version or another text, and dropped on every
erasure."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_lite_support import record

from memscribe import Memory
from memscribe.providers.hashing import HashEmbedder
from memscribe.read import rank, traits


@pytest.fixture
def topic_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the rerank reads topics from, in order (the real ``topics_of`` answers)."""
    reads: list[str] = []
    real = traits.topics_of

    def counting(text: str) -> frozenset[str]:
        reads.append(text)
        return real(text)

    monkeypatch.setattr(traits, "topics_of", counting)
    traits.forget_traits()
    return reads


def _order(query: str, records: list[object]) -> list[str]:
    by_id = {r.version_id: r for r in records}  # type: ignore[attr-defined]
    fused = [(vid, 0.03 - i * 0.001) for i, vid in enumerate(by_id)]
    return [vid for vid, _ in rank.rerank_hits(query, fused, by_id, {"user"})]  # type: ignore[arg-type]


def test_a_version_topics_are_read_once_across_reranks(topic_reads: list[str]) -> None:
    pet = record("We adopted a rescue dog last week.")
    trip = record("The ferry to the island left at noon.")
    for _ in range(3):
        assert _order("Do I have a pet?", [trip, pet]) == [pet.version_id, trip.version_id]
    assert topic_reads.count(pet.text) == 1 and topic_reads.count(trip.text) == 1


def test_another_text_under_the_same_version_id_is_read_again(topic_reads: list[str]) -> None:
    pet = record("We adopted a rescue dog last week.")
    trip = record("The ferry to the island left at noon.")
    assert _order("Do I have a pet?", [trip, pet]) == [pet.version_id, trip.version_id]
    # The same ids with the texts swapped: the cache must not keep the old topics.
    swapped_pet, swapped_trip = replace(pet, text=trip.text), replace(trip, text=pet.text)
    assert _order("Do I have a pet?", [swapped_pet, swapped_trip]) == [trip.version_id, pet.version_id]
    assert topic_reads.count(pet.text) == 2


def test_an_updated_memory_is_ranked_by_its_new_topics(tmp_path: Path) -> None:
    traits.forget_traits()
    with Memory(tmp_path / "m.db", writer="raw", embedder=HashEmbedder(64)) as m:
        work = m.add("I work at the bakery on Elm street.", user_id="u")["results"][0]["id"]
        m.add("The bakery on Elm street sells rye bread.", user_id="u")
        assert m.search("Where do I work?", user_id="u")["results"][0]["id"] == work
        m.update(work, "I adopted a dog from the Elm street shelter.", user_id="u")
        first = m.search("Do I have a pet?", user_id="u")["results"][0]
        assert first["id"] == work and "dog" in first["memory"]
        versions = {v["version_id"]: v["memory"] for v in m.history(work, user_id="u")}
        held = {vid: traits._cache[vid][1].topics for vid in versions if vid in traits._cache}
        new = next(vid for vid, text in versions.items() if "dog" in text)
        assert "pet" in held[new] and "work" not in held[new]  # read from the new text, not the old version's


def test_forget_and_purge_empty_the_cache(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", writer="raw", embedder=HashEmbedder(64)) as m:
        gone = m.add("My locker code is behind the blue poster.", user_id="u")["results"][0]["id"]
        m.add("The blue poster shows a lighthouse.", user_id="u")
        m.search("blue poster", user_id="u")
        assert traits._cache
        m.forget(gone, user_id="u")
        assert not traits._cache
        m.search("blue poster", user_id="u")
        assert traits._cache
        m.purge("u")
        assert not traits._cache


def test_the_answer_type_preference_is_unchanged_by_the_cache() -> None:
    traits.forget_traits()
    dated = record("We moved into the flat on 3 March.")
    plain = record("We moved into the flat near the park.")
    rent, high = record("The rent for the flat is 900 a month."), record("The rent for the flat is too high.")
    for _ in range(2):  # first read from the texts, then from the cache
        assert _order("When did we move into the flat?", [plain, dated]) == [dated.version_id, plain.version_id]
        assert _order("How much is the rent?", [high, rent]) == [rent.version_id, high.version_id]


def test_a_purge_leaves_no_text_in_the_topic_or_writer_caches(tmp_path: Path) -> None:
    from memscribe.read.topics import topics_of
    from memscribe.write.lite.matching import content_tokens

    secret = "I adopted a greyhound called Biscuit from the Leeds shelter."
    with Memory(tmp_path / "m.db", writer="lite", embedder=HashEmbedder(64)) as m:
        m.add(secret, user_id="u")
        assert m.search("Do I have a pet?", user_id="u")["results"]
        assert topics_of.cache_info().currsize > 0 and content_tokens.cache_info().currsize > 0
        m.purge("u")
    assert topics_of.cache_info().currsize == 0 and content_tokens.cache_info().currsize == 0
