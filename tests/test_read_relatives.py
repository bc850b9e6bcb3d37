"""A question about a relative finds what the speaker said of them under any word for the relation ("my dad …"
asked as "Sam's father"), and retiring is an end of work."""

from __future__ import annotations

from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.providers.hashing import HashEmbedder
from memscribe.read.topics import topics_of


@pytest.mark.parametrize(
    "text",
    ["dad officially retired yesterday!!", "my mum is retiring in June", "爸爸上个月退休了", "mi padre está jubilado"],
)
def test_retiring_is_said_of_work(text: str) -> None:
    assert "work" in topics_of(text)


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("dad", "Is Sam's father still working?"),
        ("mum", "Is Sam's mother still working?"),
        ("mom", "Is Sam's mum still working?"),
    ],
)
def test_a_relative_is_found_under_another_word_for_them(tmp_path: Path, said: str, asked: str) -> None:
    with Memory(tmp_path / "m.db", writer="lite", embedder=HashEmbedder(64)) as m:
        m.add(f"my {said} has worked at the post office for 30 years", user_id="sam", timestamp="2023-03-01T10:00:00Z")
        m.add(f"{said} officially retired yesterday!!", user_id="sam", timestamp="2024-04-02T10:00:00Z")
        m.add("I got a job at a bank in Leeds", user_id="sam", timestamp="2024-06-01T10:00:00Z")  # newer, mine
        top = m.search(asked, user_id="sam", limit=3)["results"]
    assert "retired" in top[0]["memory"], [r["memory"] for r in top]


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("the 14th is my brother Imran's, I always mix them up", "brother"),
        ("Le 12 mai c'est l'anniversaire de ma mère. Je suis nul avec les dates", "mother"),
        ("El 3 es el cumpleaños de mi hermana", "sister"),
        ("that car is my dad's", "father"),
    ],
)
def test_what_is_said_to_be_a_relatives_is_about_them(text: str, relation: str) -> None:
    from memscribe.write.lite.language import someone_else

    assert someone_else(text) == relation


def test_this_is_my_friends_dog_is_still_the_speakers_statement() -> None:
    from memscribe.write.lite.language import someone_else

    assert someone_else("This is my friend's dog, I'm dog-sitting all week") is None


@pytest.mark.parametrize(
    "question",
    ["Quand est l'anniversaire de la mère de Mathieu ?", "¿Cuándo es el cumpleaños de la madre de Ana?",
     "Wann hat Jonas' Mutter Geburtstag?", "When is Sam's mum's birthday?"],
)
def test_a_question_about_a_relative_in_any_language_is_about_them(question: str) -> None:
    from memscribe.read.search import _owner_unless_relative

    assert _owner_unless_relative(question, ["user", "user's mother", "user's sister"]) == {"user's mother"}
