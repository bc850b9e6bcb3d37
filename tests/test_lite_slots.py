"""Slot facts read from single statements: subject + attribute + value, with cardinality and kind."""

from __future__ import annotations

import pytest

from memscribe.core.records import Owner
from memscribe.write.lite.person import Referents, expand_contractions, find_subject
from memscribe.write.lite.segment import Speaker
from memscribe.write.lite.slots import FactKind, extract_facts, first_verb, plan_value
from memscribe.write.lite.tense import detect_tense

USER = Speaker("user", "User", Owner.USER)


def facts(text: str) -> set[tuple[str, str | None, str]]:
    expanded = expand_contractions(text)
    mention = find_subject(expanded, USER, Referents())
    found = extract_facts(expanded, mention, USER.subject, detect_tense(expanded))
    return {(f.slot, f.value, f.kind.value) for f in found}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Seattle", ("user/residence", "seattle")),
        ("I moved to Sydney last month", ("user/residence", "sydney")),
        ("We've been living in New York City since 2019", ("user/residence", "new york city")),
        ("I'm originally from Lisbon", ("user/hometown", "lisbon")),
        ("I'm in Madrid for ten days", ("user/location", "madrid")),
        ("I work at Google", ("user/employer", "google")),
        ("I just joined Stripe", ("user/employer", "stripe")),
        ("I work as a nurse", ("user/job_title", "nurse")),
        ("I'm a senior software engineer", ("user/job_title", "senior software engineer")),
        ("I got promoted to engineering manager", ("user/job_title", "engineering manager")),
        ("I'm single", ("user/relationship_status", "single")),
        ("I got engaged", ("user/relationship_status", "engaged")),
        ("I'm married to Tom", ("user/partner", "tom")),
        ("My wife Anna is a doctor", ("user/partner", "anna")),
        ("I have a son named Leo", ("user/children", "son leo")),
        ("I have two kids", ("user/children_count", "two")),
        ("I have a dog named Max", ("user/pets", "dog max")),
        ("We adopted a puppy", ("user/pets", "dog")),
        ("My name is Priya", ("user/name", "priya")),
        ("Call me Sam", ("user/name", "sam")),
        ("My last name is Okafor", ("user/surname", "okafor")),
        ("I'm 34 years old", ("user/age", "34")),
        ("I just turned 40", ("user/age", "40")),
        ("I'm vegetarian", ("user/diet", "vegetarian")),
        ("I went vegan last year", ("user/diet", "vegan")),
        ("I don't eat meat", ("user/diet", "vegetarian")),
        ("I drive a Tesla Model 3", ("user/vehicle", "tesla model 3")),
        ("My favourite food is sushi", ("user/favorite_food", "sushi")),
        ("Blue is my favorite color", ("user/favorite_color", "blue")),
        ("I study at MIT", ("user/school", "mit")),
        ("I'm a student at the University of Washington", ("user/school", "university of washington")),
        ("I was diagnosed with type 2 diabetes", ("user/health", "diabetes")),
        ("I have asthma", ("user/health", "asthma")),
        ("I'm allergic to peanuts", ("user/allergies", "peanuts")),
        ("I speak Portuguese", ("user/languages", "portuguese")),
        ("I'm learning Japanese", ("user/learning", "japanese")),
        ("I love hiking", ("user/hobbies", "hiking")),
        ("I play the guitar", ("user/hobbies", "guitar")),
        ("I do yoga every morning", ("user/hobbies", "yoga")),
        ("I love jazz", ("user/likes", "jazz")),
        ("I can't stand cilantro", ("user/dislikes", "cilantro")),
        ("My birthday is on March 3rd", ("user/birthday", "march 3rd")),
        ("My email is priya@example.com", ("user/email", "priya@example.com")),
        ("I'm planning to adopt a dog", ("user/plan", "adopt dog")),
        ("I want to learn the piano", ("user/plan", "learn piano")),
        ("I'm thinking about moving to Lisbon", ("user/plan", "moving to lisbon")),
        ("I'm going to Paris next week", ("user/plan", "go to paris")),
    ],
)
def test_state_and_plan_facts(text: str, expected: tuple[str, str]) -> None:
    kinds = {(slot, value) for slot, value, _ in facts(text)}
    assert expected in kinds


def test_lists_become_one_fact_per_item() -> None:
    assert {v for s, v, _ in facts("My hobbies are reading, painting and hiking") if s == "user/hobbies"} == {
        "reading",
        "painting",
        "hiking",
    }
    assert {v for _, v, _ in facts("I'm allergic to peanuts and shellfish")} == {"peanuts", "shellfish"}


def test_one_statement_can_state_several_attributes() -> None:
    found = facts("I'm a software engineer at Google")
    assert ("user/employer", "google", "state") in found
    assert ("user/job_title", "software engineer", "state") in found


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("My brother lives in Rome", "user's brother/residence"),
        ("Priya lives in Lisbon", "priya/residence"),
        ("My sister's favourite food is pizza", "user's sister/favorite_food"),
        ("My son is 5", "user's son/age"),
        ("Priya loves her dog Max", "priya/pets"),
    ],
)
def test_third_persons_are_their_own_subjects(text: str, slot: str) -> None:
    assert slot in {s for s, _, _ in facts(text)}


@pytest.mark.parametrize(
    "text",
    [
        "I don't live in Seattle",
        "I used to live in Seattle",
        "I was living in Seattle back then",
        "I would live in Paris if I could",
        "I have a nurse coming over",
        "I have vegan friends",
        "I love you",
        "I moved the couch",
        "I'm 5 minutes away",
        "I live in fear of spiders",
        "I work from home",
        "I work for myself",
        "I have a cat allergy",
        "I love it here",
        "I like to think so",
        "I moved to a new team",
        "I'm a mother of two",
        "my cat keeps puking on the rug at 4am, like she plans it",
    ],
)
def test_negated_past_hypothetical_and_look_alike_statements_have_no_state(text: str) -> None:
    assert not [f for f in facts(text) if f[2] == "state"]


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("I quit my job at Google", "user/employer", "google"),
        ("I don't work at Google anymore", "user/employer", "google"),
        ("I broke up with Sam", "user/partner", "sam"),
        ("My dog Max died", "user/pets", "dog"),
        ("I stopped painting", "user/hobbies", "painting"),
        ("I decided not to move to Lisbon", "user/plan", "move to lisbon"),
    ],
)
def test_endings(text: str, slot: str, value: str) -> None:
    assert (slot, value, FactKind.END.value) in facts(text)


def test_plan_values_drop_times_and_determiners() -> None:
    assert plan_value("adopt a dog from the shelter next month") == "adopt dog from shelter"
    assert first_verb("have finally adopted a dog") == "adopted"


def test_a_value_ends_where_a_resolved_time_begins() -> None:
    """Values are read once dates are absolute: "last week" is "the week before 10 September 2024" by then."""
    said = "I started at Monzo the week before 10 September 2024, their london office is all hot pink"
    assert ("user/employer", "monzo", "state") in facts(said)


def test_working_for_oneself_is_an_employer_and_a_client_is_not() -> None:
    assert ("user/employer", "self-employed", "state") in facts("I went freelance in May")
    assert ("user/employer", "self-employed", "state") in facts("I'm going freelance for a while")
    assert ("user/employer", "self-employed", "state") in facts("I'm self-employed now")
    assert not any(slot == "user/employer" for slot, _, _ in facts("I'm freelancing for Nike this month"))


def test_a_notice_handed_in_without_an_i_ends_the_job() -> None:
    from test_lite_support import ListCandidates, at, say

    from memscribe.core.records import OpKind

    store = ListCandidates()
    say(store, "I'm an analyst at Deloitte", at(2022, 3, 1))
    ops = say(store, "handed in my notice today. going freelance for a while, two clients lined up", at(2022, 11, 20))
    employer = [op for op in ops if op.draft is not None and op.draft.slot == "user/employer"]
    # One memory for the statement: the new value supersedes the old, with no ending written beside it.
    assert [(op.kind, op.draft.value) for op in employer if op.draft] == [(OpKind.SUPERSEDE, "self-employed")]
    assert len({op.draft.text for op in ops if op.draft is not None and op.kind is not OpKind.UPDATE}) == len(
        [op for op in ops if op.draft is not None and op.kind is not OpKind.UPDATE]
    )
    store2 = ListCandidates()
    say(store2, "I'm an analyst at Deloitte", at(2022, 3, 1))
    ended = say(store2, "handed in my notice on friday, exhausted", at(2022, 11, 20))
    assert any(op.kind is OpKind.SUPERSEDE and "ended" in op.reason for op in ended)


def test_a_place_one_has_been_since_a_weekday_is_no_employer() -> None:
    assert not any(slot == "user/employer" for slot, _, _ in facts("I've been at St. Luke's since thursday"))
    assert ("user/employer", "google", "state") in facts("I've been at Google since 2019")
