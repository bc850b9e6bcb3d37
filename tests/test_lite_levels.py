"""A newer step on a ladder (an exam level, a year of study, a grade, a race time) replaces the older step."""

from __future__ import annotations

from test_lite_support import ListCandidates, at, say

from memscribe.write.lite.levels import ladder_steps, stepped_past


def _current(store: ListCandidates) -> list[str]:
    return [r.text for r in store.records if r.retired_at is None and r.valid_to is None]


def test_steps_are_read_by_their_shape() -> None:
    assert ladder_steps("passed JLPT N4!! next is N3") == {"jlpt": frozenset({"4", "3"})}
    assert ladder_steps("2nd year nursing student") == {"year": frozenset({"2"})}
    assert ladder_steps("she started third grade") == {"grade": frozenset({"3"})}
    assert ladder_steps("a 2 year old lab mix, 4 years ago") == {}
    assert stepped_past(ladder_steps("my German is B1 now"), "my German is A2") == ["cefr"]
    assert stepped_past(ladder_steps("still 2nd year"), "2nd year nursing student") == []


def test_a_new_exam_level_closes_the_older_one_without_a_change_cue() -> None:
    store = ListCandidates()
    say(store, "passed JLPT N4!! next is N3 in december, kanji here I come", at(2023, 7, 10))
    say(store, "N3 results came in, PASSED", at(2024, 1, 25))
    current = _current(store)
    assert any("N3 results" in t for t in current)
    assert not any("N4" in t for t in current)


def test_a_level_typed_in_lowercase_counts_where_its_ladder_is_named() -> None:
    assert ladder_steps("passed jlpt n4!! next is n3") == {"jlpt": frozenset({"4", "3"})}
    assert ladder_steps("my german is a2, I need b1") == {"cefr": frozenset({"A2", "B1"})}
    assert ladder_steps("a1 sauce on everything, the n1 bus was late") == {}
    assert ladder_steps("n3 results came in", context="passed jlpt n4") == {"jlpt": frozenset({"3"})}
    store = ListCandidates()
    say(store, "passed jlpt n4!! next is n3 in december, kanji here I come", at(2023, 7, 10))
    say(store, "n3 results came in, passed 🎌", at(2024, 1, 25))
    assert not any("n4" in t for t in _current(store))


def test_a_new_year_of_study_closes_the_older_year_and_keeps_other_ladders() -> None:
    store = ListCandidates()
    say(store, "2nd year nursing student at Temple and clinicals are eating my life.", at(2023, 2, 10))
    say(store, "my half marathon PR is 1:52:10 and I want sub 1:50.", at(2023, 3, 1))
    say(store, "3rd year nursing starts today!! peds rotation first.", at(2023, 9, 5))
    current = _current(store)
    assert not any("2nd year" in t for t in current)
    assert any("1:52:10" in t for t in current) and any("3rd year" in t for t in current)


def test_junior_and_senior_name_a_class_year_as_a_noun_not_before_a_job() -> None:
    assert ladder_steps("junior year starting and I got an RA job") == {"class year": frozenset({"JUNIOR"})}
    assert ladder_steps("I'm a senior at UCLA now") == {"class year": frozenset({"SENIOR"})}
    assert ladder_steps("GUESS WHO'S A SENIOR DATA ANALYST NOW") == {}
    store = ListCandidates()
    say(store, "GUESS WHO'S A SENIOR DATA ANALYST NOW 🎉 my manager told me this morning", at(2023, 12, 12))
    say(store, "help me write a job post for a junior analyst, first time i'm the hiring manager", at(2024, 2, 1))
    assert any("SENIOR DATA ANALYST" in t for t in _current(store))
