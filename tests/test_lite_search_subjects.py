"""Read path: who a query is about is a third ranking signal (first person → the user; a name → that person)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.read.search import about_subjects

SUBJECTS = ["user", "chloe", "user's sister"]


def test_a_first_person_query_is_about_the_user() -> None:
    assert about_subjects("What is my job title now?", SUBJECTS) == {"user"}
    assert about_subjects("Where am I staying?", SUBJECTS) == {"user"}


def test_a_named_person_or_relative_wins_over_the_first_person() -> None:
    assert about_subjects("What does Chloe do for a living?", SUBJECTS) == {"chloe"}
    assert about_subjects("What is my older sister's favourite food?", SUBJECTS) == {"user's sister"}


def test_an_impersonal_query_prefers_no_one() -> None:
    assert about_subjects("Which jobs came up?", SUBJECTS) == set()


def test_a_first_person_query_ranks_the_users_memory_over_a_friends(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    when = datetime(2023, 6, 3, 12, tzinfo=UTC)
    memory.add([{"role": "user", "content": "Chloe works as a journalist."}], user_id="u", timestamp=when)
    memory.add([{"role": "user", "content": "I work as an architect."}], user_id="u", timestamp=when)
    mine = memory.search("What is my job now?", user_id="u", limit=2)["results"]
    assert mine[0]["subject"] == "user" and "architect" in mine[0]["memory"]
    hers = memory.search("What is Chloe's job now?", user_id="u", limit=2)["results"]
    assert hers[0]["subject"] == "chloe"
    memory.close()


@pytest.mark.parametrize(
    ("said", "question", "answer"),
    [
        # A wife still called the fiancée she was when her name was said.
        (["engaged since christmas! my fiancée Charlotte wants a ceilidh at the reception",
          "we're married!!! it rained all day and nobody cared",
          "married life update: we still argue over whose turn to wash up"],
         "What is the name of Hugh's wife?", "Charlotte"),
        # A person the user only mentions is who a question naming them is about.
        (["I'm a senior analyst on the pricing team at Best Buy HQ.",
          "my coworker priyanka got promoted to director, so now she's my skip-level",
          "I'm still a senior analyst, my promo cycle is spring"],
         "What is Priyanka's role?", "director"),
    ],
    ids=["fiancee-then-wife", "mentioned-person"],
)  # fmt: skip
def test_a_question_reaches_who_it_names_under_the_words_the_user_used(
    tmp_path: Path, said: list[str], question: str, answer: str
) -> None:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    for month, text in enumerate(said, start=1):
        when = datetime(2023, month, 3, 12, tzinfo=UTC)
        memory.add([{"role": "user", "content": text}], user_id="u", timestamp=when)
    found = memory.search(question, user_id="u", limit=3)["results"]
    assert answer in found[0]["memory"]
    memory.close()


def test_partner_and_child_words_bring_their_other_names() -> None:
    from memscribe.read.kin import with_aliases

    assert with_aliases(["name", "wife"]) == [
        "name", "wife", "fiancée", "fiancee", "spouse", "partner", "girlfriend", "wifey"
    ]  # fmt: skip
    assert "gf" in with_aliases(["girlfriend"])  # as chat writes it: "my gf Leah"
    assert "boy" in with_aliases(["son"]) and with_aliases(["garden"]) == ["garden"]


def test_a_possessive_query_word_also_finds_the_bare_name() -> None:
    from memscribe.read.search import inflected

    assert inflected(["priyanka's", "role"])[:3] == ["priyanka's", "role", "priyanka"]


def test_a_relative_is_also_whoever_the_user_named_as_them() -> None:
    from test_lite_support import record

    from memscribe.read.search import _owner_unless_relative

    husband = record("My husband Mark is an auditor at PwC", slot="user/partner", value="Mark")
    marks = record("mark is loving unilever.", subject="mark")
    sister = record("my sister is called Ana", slot="user's sister/name", value="ana")
    anas = record("ana moved to Porto", subject="ana")
    pool = [husband, marks, sister, anas]
    subjects = [r.subject for r in pool]
    assert _owner_unless_relative("Where does Claire's husband work?", subjects, pool) == {"mark"}
    assert _owner_unless_relative("Where does Claire's sister live?", subjects, pool) == {"ana"}
    assert _owner_unless_relative("Where does Claire's brother live?", subjects, pool) == set()
