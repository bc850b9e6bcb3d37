"""Everyday phrasings of slot facts, the memory text a slot fact gets, and the read path's inflections."""

from __future__ import annotations

import pytest
from test_lite_slots import facts
from test_lite_support import ListCandidates, at, kinds, propose, record, say

from memscribe.core.records import OpKind
from memscribe.read.search import inflected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Home for me is Dublin.", ("user/residence", "dublin")),
        ("I finally finished unpacking at my new place in Austin.", ("user/residence", "austin")),
        ("My dad packed up and moved to Krakow.", ("user's dad/residence", "krakow")),
        ("My mom has a job at Soylent.", ("user's mom/employer", "soylent")),
        ("I've been at Cyberdyne for about two years.", ("user/employer", "cyberdyne")),
        ("My employer is Adatum.", ("user/employer", "adatum")),
        ("I left my old job and joined Globex.", ("user/employer", "globex")),
        ("I got promoted, I'm a chef now!", ("user/job_title", "chef")),
        ("I switched careers and now work as a dentist.", ("user/job_title", "dentist")),
        ("I've been eating Mediterranean for years.", ("user/diet", "mediterranean")),
        ("Marcus eats vegetarian.", ("marcus/diet", "vegetarian")),
        ("I get around in a Volvo.", ("user/vehicle", "volvo")),
        ("I sold my old car and bought a Prius.", ("user/vehicle", "prius")),
        ("I'm seeing someone new, Morgan.", ("user/partner", "morgan")),
        ("Rafael and I got together last month.", ("user/partner", "rafael")),
        ("Lena's partner is Elliot.", ("lena/partner", "elliot")),
        ("I study at Ridgemont.", ("user/school", "ridgemont")),
        ("I got into the master's program at Maplewood!", ("user/school", "maplewood")),
        ("My new hobby is archery.", ("user/hobbies", "archery")),
        ("I've gotten into pottery lately.", ("user/hobbies", "pottery")),
        ("Meet Olive, my new dog!", ("user/pets", "dog olive")),
        ("You can reach me at 555-8533, that's my cell.", ("user/phone", "5558533")),
        ("I'm at 21 Alder Street if you need to send anything.", ("user/address", "21 alder street")),
        ("My goal this year is to learn the cello.", ("user/plan", "learn cello")),
        ("I just had my birthday, 55 now.", ("user/age", "55")),
        ("My brother told me they're married now.", ("user's brother/relationship_status", "married")),
    ],
)
def test_everyday_phrasings_name_their_slot(text: str, expected: tuple[str, str]) -> None:
    assert expected in {(slot, value) for slot, value, _ in facts(text)}


def test_studying_at_a_school_is_no_field_of_study() -> None:
    assert {slot for slot, _, _ in facts("I study at Lakeside University.")} == {"user/school"}


def test_a_pet_that_died_by_name_ends_that_pet() -> None:
    assert ("user/pets", "olive", "end") in facts("Olive passed away last week.")


@pytest.mark.parametrize(
    "text",
    ["For context, I'm 46.", "Life update: I'm 46 now.", "Still 46 for a few more months."],
)
def test_headings_and_dropped_subjects_do_not_hide_a_fact(text: str) -> None:
    ops = propose(ListCandidates(), ("user", text))
    assert [op.draft.slot for op in ops if op.draft] == ["user/age"]


def test_a_fact_said_in_other_words_keeps_the_words_and_carries_the_fact() -> None:
    ops = propose(ListCandidates(), ("user", "Nothing beats ramen for me."))
    assert ops[0].draft is not None and ops[0].draft.text == "Nothing beats ramen for me."
    assert (ops[0].draft.slot, ops[0].draft.value) == ("user/favorite", "ramen")


def test_several_facts_in_one_statement_get_one_memory_each_in_the_speakers_words() -> None:
    ops = propose(ListCandidates(), ("user", "I moved to Oslo and joined Equinor."))
    texts = {op.draft.slot: op.draft.text for op in ops if op.draft}
    said = "I moved to Oslo and joined Equinor."
    assert texts == {"user/residence": said, "user/employer": said}


def test_a_favourite_without_a_category_takes_the_one_known() -> None:
    food = record("User's favourite food is sushi", slot="user/favorite_food", value="sushi", valid_from=at(2023, 1, 5))
    ops = propose(ListCandidates([food]), ("user", "Honestly ramen is my favourite now."), when=at(2023, 6, 3))
    assert kinds(ops) == [OpKind.SUPERSEDE] and ops[0].target == food.id


def test_being_still_in_the_home_city_confirms_the_residence() -> None:
    store = ListCandidates()
    say(store, "I live in Lisbon.", at(2023, 1, 5))
    assert kinds(say(store, "Yep, I'm still in Lisbon.", at(2023, 6, 3))) == [OpKind.NOOP]


def test_remarks_about_earlier_statements_are_not_memories() -> None:
    assert propose(ListCandidates(), ("user", "I got something wrong last time.")) == []


def test_query_terms_match_their_inflections() -> None:
    assert {"lives", "living"} <= set(inflected(["live"]))
    assert "studies" in inflected(["study"]) and "hobby" in inflected(["hobbies"])
    assert "plan" in inflected(["planning"]) and "now" not in inflected(["now", "live"])
