"""A change cue replaces a topic's value only where it is said of it: in the same sentence, a few words from a
word of that topic ("new" only before it), outside a shared photo's caption."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memscribe import Memory
from memscribe.read.topics import topics_of
from memscribe.write.lite.cues import ends
from memscribe.write.lite.linked import changed_topics, stated_topics


def test_a_cue_bears_on_the_topic_word_beside_it() -> None:
    assert changed_topics("first week in the new house, the garden is lovely", {"home"}) == {"home"}
    assert changed_topics("promoted to director of sales!!", {"role"}) == {"role"}
    assert changed_topics("officially switched my major to history", {"education"}) == {"education"}
    # Cue and topic apart: another sentence, too many words between, or "new" after the word.
    assert changed_topics("my job is fine. the new puppy is chaos", {"work"}) == set()
    assert changed_topics("I'm working hard on the garden and some new tomato beds", {"work"}) == set()
    assert changed_topics("it made me want to plan my whole week around the city", {"home"}) == set()


def test_a_caption_names_no_topic_and_carries_no_cue() -> None:
    said = "what a day! [shares a photo: a new house on a quiet street]"
    assert changed_topics(said, {"home"}) == set()
    assert stated_topics("loved it [shares a photo: kids outside a house]") == frozenset()


def test_text_without_words_apart_or_a_shaped_value_counts_whole() -> None:
    assert changed_topics("搬到成都啦！！ 房子租在桐梓林", {"home"}) == {"home"}
    assert changed_topics("refinanced!! 5.9% now, saves us about $310 a month", {"money"}) == {"money"}


def test_notice_given_and_a_move_done_are_cues() -> None:
    assert ends("gave my notice at the garden centre today")
    assert changed_topics("the move is done. the new flat is tiny", {"home"}) == {"home"}


def _current(tmp_path: Path, turns: list[tuple[datetime, str]]) -> str:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    for when, text in turns:
        memory.add([{"role": "user", "content": text, "name": "Noor"}], user_id="u", timestamp=when)
    current = " | ".join(row["memory"] for row in memory.list(user_id="u")["results"])
    memory.close()
    return current


def test_a_new_project_leaves_the_older_work_statement_current(tmp_path: Path) -> None:
    current = _current(tmp_path, [
        (datetime(2024, 1, 2, tzinfo=UTC), "My job at the hardware store on Elm is so boring lately."),
        (datetime(2024, 2, 2, tzinfo=UTC), "Hey, I'm working on a new quilt for my niece."),
    ])  # fmt: skip
    assert "hardware store" in current and "quilt" in current


def test_a_new_job_said_outright_still_replaces_the_old_one(tmp_path: Path) -> None:
    current = _current(tmp_path, [
        (datetime(2024, 1, 2, tzinfo=UTC), "My job at the hardware store on Elm is so boring lately."),
        (datetime(2024, 2, 2, tzinfo=UTC), "I got a new job at the county library!"),
    ])  # fmt: skip
    assert "library" in current and "hardware store" not in current


def test_a_job_lost_stays_told_when_a_new_one_starts(tmp_path: Path) -> None:
    current = _current(tmp_path, [
        (datetime(2024, 1, 2, tzinfo=UTC), "I lost my job at the bottling plant on Friday."),
        (datetime(2024, 3, 2, tzinfo=UTC), "Started my new job at the bakery today!"),
    ])  # fmt: skip
    assert "bottling plant" in current and "bakery" in current


def test_taking_up_again_what_had_ended_closes_the_ending(tmp_path: Path) -> None:
    current = _current(tmp_path, [
        (datetime(2024, 1, 2, tzinfo=UTC), "I quit smoking on New Year's Day."),
        (datetime(2024, 3, 2, tzinfo=UTC), "Ugh, I'm smoking again now, the new job is stressful."),
    ])  # fmt: skip
    assert "smoking again" in current and "quit smoking" not in current


def test_working_on_something_and_offering_help_name_no_job() -> None:
    assert "work" not in topics_of("I'm working on a new quilt for my niece")
    assert "work" not in topics_of("now I'm ready to offer them love and support")
    assert "work" in topics_of("I got an offer from the county library")
    assert "work" in topics_of("I'm working on the payments team now")
