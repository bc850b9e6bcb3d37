"""Lossless lite: statements on other matters stay current, whatever words they share.

Each case is a class of wrong supersession seen in long natural chats: two dated events read as two measures of
"July", idioms of "work" and "home" read as a job or a residence, a hobby's class read as schooling.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.read.topics import topics_of
from memscribe.write.lite.memorable import drop_reason, strip_preamble
from memscribe.write.lite.residue import ended_values


def _current(memory: Memory) -> list[str]:
    return [row["memory"] for row in memory.list(user_id="u")["results"]]


def _chat(tmp_path: Path, turns: list[tuple[datetime, str]]) -> Memory:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    for when, text in turns:
        memory.add([{"role": "user", "content": text, "name": "Noor"}, {"role": "user", "content": "Nice!",
                     "name": "Ivo"}], user_id="u", timestamp=when)  # fmt: skip
    return memory


def test_two_dated_events_are_not_two_measures_of_one_month(tmp_path: Path) -> None:
    memory = _chat(
        tmp_path,
        [
            (datetime(2024, 3, 11, tzinfo=UTC), "Last week I went to a jazz festival with the choir group."),
            (datetime(2024, 3, 20, tzinfo=UTC), "Yesterday I joined a mentoring circle for the choir group."),
        ],
    )
    texts = " | ".join(_current(memory))
    assert "jazz festival" in texts and "mentoring circle" in texts
    memory.close()


def test_a_new_measure_still_replaces_the_old_one(tmp_path: Path) -> None:
    memory = _chat(
        tmp_path,
        [
            (datetime(2024, 3, 11, tzinfo=UTC), "I sleep 5 hours a night at the moment."),
            (datetime(2024, 5, 2, tzinfo=UTC), "These days I sleep 7 hours a night, a new routine."),
        ],
    )
    texts = " | ".join(_current(memory))
    assert "7 hours" in texts and "5 hours" not in texts
    memory.close()


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("I carved this wooden spoon in my class, it took some work.", "Now the hard work starts on the boat."),
        ("Researching foster agencies, I want to give a loving home to a child.",
         "I have known these friends since I moved from my home country."),
    ],
)  # fmt: skip
def test_idioms_of_work_and_home_replace_nothing(tmp_path: Path, older: str, newer: str) -> None:
    memory = _chat(tmp_path, [(datetime(2024, 3, 11, tzinfo=UTC), older), (datetime(2024, 4, 1, tzinfo=UTC), newer)])
    assert any(older[:20] in text for text in _current(memory))
    memory.close()


@pytest.mark.parametrize(
    ("older", "newer", "value", "kept"),
    [
        # "the new house" refers back to the house just bought: it names no new value and replaces nothing.
        ("WE CLOSED. we own a house. in oakland (rockridge)!!",
         "first week in the new house and the garden has a lemon tree!!", "oakland", True),
        # A new district is a new value, said outright.
        ("our Kreuzberg flat is on the 5th floor, no lift. Berlin living",
         "the move is DONE. Prenzlauer Berg is so quiet, we have a lift now", "Kreuzberg", False),
        # A move said without where to still says the old home went.
        ("I live in Seattle and honestly love the rain.", "we moved!! it is done, officially", "Seattle", False),
    ],
    ids=["new-house", "new-district", "moved"],
)  # fmt: skip
def test_a_change_that_names_no_new_value_replaces_nothing(
    tmp_path: Path, older: str, newer: str, value: str, kept: bool
) -> None:
    memory = _chat(tmp_path, [(datetime(2024, 3, 11, tzinfo=UTC), older), (datetime(2024, 6, 1, tzinfo=UTC), newer)])
    assert any(value in text for text in _current(memory)) is kept
    memory.close()


def test_idioms_name_no_topic_but_the_plain_cue_still_does() -> None:
    assert "work" not in topics_of("It's still a work in progress, but I'm proud of it")
    assert "work" not in topics_of("It took some work")
    assert "work" in topics_of("I work at a bakery now")
    assert "home" not in topics_of("kids who need a loving home")
    assert "pet" not in topics_of("ok settle this: is a hot dog a sandwich") and "pet" in topics_of("my dog is tired")
    assert "home" in topics_of("We moved into a flat in Porto")
    assert topics_of("I signed up for a pottery class") == {"hobby"}
    assert "education" in topics_of("I transferred to a new university")


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("You can make your bakery work, I'm sure.", "work"),
        ("I'm sure all those late nights will pay off.", "money"),
        ("I won't quit, no matter what.", "habit"),
        ("How is your new job going?", "work"),
    ],
)
def test_figures_of_speech_and_the_listeners_things_name_no_topic(text: str, topic: str) -> None:
    assert topic not in topics_of(text)


def test_the_plain_uses_still_name_their_topics() -> None:
    assert "habit" in topics_of("I quit smoking last month")
    assert "money" in topics_of("They pay me more since the raise")
    assert "work" in topics_of("I lost my job at the depot")


def test_a_negated_or_imagined_end_names_nothing_that_ended() -> None:
    assert ended_values("I won't quit on my dreams.") == set()
    assert ended_values("I never gave up on the violin") == set()
    assert ended_values("anyone else would quit the band by now") == set()
    assert ended_values("I quit Lidl last week") == {"lidl"}


def test_encouragement_does_not_replace_what_was_said_before(tmp_path: Path) -> None:
    memory = _chat(
        tmp_path,
        [
            (datetime(2024, 3, 11, tzinfo=UTC), "I'm not gonna give up on my dream of opening a bakery."),
            (datetime(2024, 4, 1, tzinfo=UTC), "I won't quit on my dream, your words motivate me."),
        ],
    )
    assert any("opening a bakery" in text for text in _current(memory))
    memory.close()


@pytest.mark.parametrize(
    "said",
    ["Long time no talk!", "Hey, great chatting with you again!", "It's so good to talk again.",
     "A lot has happened since we last spoke.", "Haven't talked for a few days."],
)  # fmt: skip
def test_catching_up_is_a_greeting(said: str) -> None:
    assert drop_reason(strip_preamble(said)) == "greeting"


def test_catching_up_before_news_keeps_the_news() -> None:
    assert (
        strip_preamble("Since we last spoke, I took the twins to the aquarium.") == "I took the twins to the aquarium."
    )
    assert drop_reason("Great to chat with you, I moved to Leeds in May and love the flat there.") is None


def test_being_at_home_names_no_residence() -> None:
    assert "home" not in topics_of("Mostly just chilling at home with a film")
    assert "home" in topics_of("We bought a new home in Leeds")


def test_where_someone_was_headed_names_no_job() -> None:
    assert "work" not in topics_of("My van broke down on my way to work")
    assert "work" not in topics_of("It's rewarding to work towards a better future")
    assert "work" in topics_of("I work at the depot")
