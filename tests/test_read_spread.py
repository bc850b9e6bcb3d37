"""Read path: names are matched through the subject, not the words, and one message does not fill the top."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_lite_support import record

from memscribe import Memory
from memscribe.read.rank import spread_sources
from memscribe.read.search import _without_names
from memscribe.read.traits import _fragment


def test_a_second_memory_of_one_message_ranks_after_another_messages_memory() -> None:
    first = record("I adopted a border collie named Biscuit in March.")
    beside = replace(record("I adopted a border collie."), episode_id=first.episode_id)
    other = replace(record("My sister has two cats."), episode_id="e1")
    records = {r.version_id: r for r in (first, beside, other)}
    ranked = [(first.version_id, 0.9), (beside.version_id, 0.8), (other.version_id, 0.6)]
    out = [vid for vid, _ in spread_sources(ranked, records)]
    assert out == [first.version_id, other.version_id, beside.version_id]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.floats(0.0, 1.0)), max_size=12))
def test_spreading_is_a_permutation(rows: list[tuple[int, int, float]]) -> None:
    records, ranked = {}, []
    for i, (episode, message, score) in enumerate(rows):
        r = replace(record(f"statement number {i}"), episode_id=f"e{episode}", message_indices=(message,))
        records[r.version_id] = r
        ranked.append((r.version_id, score))
    ranked.sort(key=lambda item: -item[1])
    out = spread_sources(ranked, records)
    assert sorted(vid for vid, _ in out) == sorted(vid for vid, _ in ranked)


def test_a_named_subjects_name_leaves_the_keyword_terms() -> None:
    terms = ["melanie", "melanie's", "camped", "camp"]
    assert _without_names(terms, {"melanie"}) == ["camped", "camp"]
    assert _without_names(terms, {"user"}) == terms
    assert _without_names(terms, set()) == terms


def test_greetings_that_address_someone_are_fragments() -> None:
    assert _fragment("Hey Melanie! Just wanted to say hi!")
    assert _fragment("Wow, Caroline, that looks amazing!")
    assert not _fragment("I painted that lake sunrise last year!")
    assert not _fragment("Melanie took her kids camping in the mountains.")


def test_a_question_naming_someone_finds_their_statement_not_greetings_to_them(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "store.db", writer="raw", embedder="hash")
    when = datetime(2023, 6, 3, 12, tzinfo=UTC)
    turns = [("Caroline", "Hey Melanie! Just wanted to say hi!"), ("Caroline", "Thanks, Melanie!"),
             ("Caroline", "Melanie, good to see you!"), ("Melanie", "We went camping at the beach last summer."),
             ("Caroline", "I went to a pride parade last week.")]  # fmt: skip
    for name, text in turns:
        memory.add([{"role": "user", "name": name, "content": text}], user_id="u", timestamp=when)
    hits = memory.search("Where did Melanie go camping?", user_id="u", limit=3)["results"]
    assert hits[0]["memory"] == "We went camping at the beach last summer."
    memory.close()
