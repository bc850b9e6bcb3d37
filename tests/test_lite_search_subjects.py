"""Read path: who a query is about is a third ranking signal (first person → the user; a name → that person)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

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
