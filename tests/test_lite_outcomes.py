"""Lite rules for plans carried out, dated jobs, uncategorised favourites and everyday phrasings of facts."""

from __future__ import annotations

from pathlib import Path

from test_lite_support import ListCandidates, at, kinds, propose, record, say

from memscribe import Memory
from memscribe.core.records import Layer, OpKind
from memscribe.write.lite.plans import accomplishment, fulfils


def test_wrapping_up_a_renovation_marks_the_plan_to_renovate_done() -> None:
    store = ListCandidates()
    say(store, "My goal this year is to renovate the kitchen.", at(2023, 1, 5))
    ops = say(store, "I finally wrapped up the kitchen renovation!", at(2023, 6, 3))
    assert kinds(ops) == [OpKind.ADD, OpKind.UPDATE] and "carried out" in ops[1].reason
    assert store.current_values("user/plan") == []  # no longer an open intention
    outcome, plan = ops[0].draft, ops[1].draft
    assert outcome is not None and outcome.slot is None and "wrapped up the kitchen renovation" in outcome.text
    # The plan stays current, as what was planned: "when was she planning to renovate?" still finds it.
    assert plan is not None and plan.text == "My goal in 2023 is to renovate the kitchen."
    assert plan.layer is Layer.FACT and "plan-done" in plan.tags and plan.metadata["carried_out_on"] == "2023-06-03"
    assert any("renovate the kitchen" in r.text for r in store._current())


def test_getting_back_from_a_trip_closes_the_plan_to_visit() -> None:
    store = ListCandidates()
    say(store, "I'm hoping to visit Peru.", at(2023, 1, 5))
    say(store, "I got back from my trip to Peru last month.", at(2023, 6, 3))
    assert store.current_values("user/plan") == []


def test_an_accomplishment_about_something_else_leaves_the_plan_open() -> None:
    assert accomplishment("I finished my coffee") and not fulfils(
        "visit coffee farm colombia", None, "I finished my coffee"
    )
    store = ListCandidates()
    say(store, "I'm planning to run a marathon.", at(2023, 1, 5))
    say(store, "I finally finished the first draft of my novel!", at(2023, 6, 3))
    assert store.current_values("user/plan") == ["run marathon"]


def test_a_plan_said_as_a_wish_is_kept_as_a_plan() -> None:
    ops = propose(ListCandidates(), ("user", "My goal this year is to learn Japanese."), when=at(2023, 1, 5))
    assert ops[0].draft is not None and ops[0].draft.text == "My goal in 2023 is to learn Japanese."
    assert ops[0].draft.slot == "user/plan" and ops[0].draft.value == "learn japanese"
    ops = propose(ListCandidates(), ("user", "I really want to run a marathon soon."))
    assert ops[0].draft is not None and ops[0].draft.text == "I really want to run a marathon soon."
    assert ops[0].draft.slot == "user/plan"
    ops = propose(ListCandidates(), ("user", "I'm planning to adopt a dog."))
    assert ops[0].draft is not None and ops[0].draft.text == "I'm planning to adopt a dog."


def test_the_employer_memory_keeps_when_the_job_began() -> None:
    ops = propose(ListCandidates(), ("user", "I've been at Litware since 2021."))
    assert ops[0].draft is not None and ops[0].draft.text == "I've been at Litware since 2021."
    assert ops[0].draft.slot == "user/employer" and ops[0].draft.value == "litware"


def test_a_start_date_for_the_same_employer_updates_the_memory() -> None:
    store = ListCandidates()
    say(store, "I work at Litware.", at(2023, 1, 5))
    ops = say(store, "I joined Litware back in 2019.", at(2023, 6, 3))
    assert kinds(ops) == [OpKind.UPDATE]
    assert [r.text for r in store.by_slot("user/employer")] == ["I joined Litware back in 2019."]
    assert kinds(say(store, "I still work at Litware.", at(2023, 9, 1)))[0] is OpKind.NOOP
    assert store.current_values("user/employer") == ["litware"]


def test_a_favourite_food_replaces_a_favourite_said_without_a_category() -> None:
    store = ListCandidates()
    say(store, "Nothing beats risotto for me.", at(2023, 1, 5))
    ops = say(store, "My favourite food is pho.", at(2023, 6, 3))
    assert kinds(ops) == [OpKind.SUPERSEDE]
    assert store.current_values("user/favorite") == [] and store.current_values("user/favorite_food") == ["pho"]


def test_a_favourite_of_another_category_keeps_the_uncategorised_one() -> None:
    movie = record("User's favourite movie is Alien", slot="user/favorite_movie", value="alien")
    risotto = record("User's favourite is risotto", slot="user/favorite", value="risotto")
    store = ListCandidates([movie, risotto])
    assert kinds(say(store, "My favourite food is pho.", at(2023, 6, 3))) == [OpKind.ADD]
    assert store.current_values("user/favorite") == ["risotto"]  # which category it was is unknown


def test_a_favourite_is_not_also_kept_as_a_like() -> None:
    store = ListCandidates()
    say(store, "My favourite food is pho.", at(2023, 1, 5))
    ops = say(store, "Still obsessed with pho.", at(2023, 6, 3))
    assert kinds(ops) == [OpKind.NOOP, OpKind.ADD]  # the favourite is confirmed; the words are kept as said
    assert ops[1].draft is not None and ops[1].draft.slot is None
    assert store.current_values("user/likes") == []


def test_my_partners_name_is_the_partner() -> None:
    ops = propose(ListCandidates(), ("user", "My partner's name is Noor."))
    assert [(op.draft.subject, op.draft.slot, op.draft.value) for op in ops if op.draft] == [
        ("user", "user/partner", "noor")
    ]


def _facts(text: str) -> list[tuple[str | None, str | None]]:
    ops = propose(ListCandidates(), ("user", text))
    return [(op.draft.slot, op.draft.value) for op in ops if op.draft is not None and op.draft.slot]


def test_everyday_phrasings_of_facts() -> None:
    assert _facts("My diet is paleo.") == [("user/diet", "paleo")]
    assert _facts("Still at Globex, nothing new on the job front.") == [("user/employer", "globex")]
    assert _facts("I could eat falafel every day.") == [("user/favorite_food", "falafel")]
    assert _facts("I picked up archery as a new hobby.") == [("user/hobbies", "archery")]
    assert _facts("Tomas is with Jordan.") == [("tomas/partner", "jordan")]
    assert _facts("New wheels: a Prius.") == [("user/vehicle", "prius")]
    assert _facts("Priya traded in her car for a Prius.") == [("priya/vehicle", "prius")]


def test_being_with_someone_at_a_place_is_no_partner() -> None:
    assert _facts("I'm with Jordan at the cinema.") == []


def test_a_plan_marked_done_keeps_the_episode_it_was_said_in(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    said = [{"role": "user", "content": "Rain again today.", "name": "Noor"},
            {"role": "user", "content": "I'm planning to adopt a rabbit.", "name": "Noor"}]  # fmt: skip
    first = memory.add(said, user_id="u", timestamp="2023-01-05T10:00:00Z")
    later = [{"role": "user", "content": "We adopted a rabbit last week!", "name": "Noor"}]
    assert any(
        r["event"] == "UPDATE" for r in memory.add(later, user_id="u", timestamp="2023-03-01T10:00:00Z")["results"]
    )
    rows = {r["memory"]: r["provenance"] for r in memory.list(user_id="u")["results"]}
    plan = rows["I'm planning to adopt a rabbit."]
    assert plan["episode_id"] == first["episode_id"] and plan["message_indices"] == [1]
    memory.close()
