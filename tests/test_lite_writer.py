"""The lite writer end to end against a fake candidate source: reconciliation by rules."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from test_lite_support import SCOPE, ListCandidates, at, kinds, propose, record, say

from memscribe.core.clock import FrozenClock
from memscribe.core.records import Episode, Layer, Message, Operation, OpKind, Owner
from memscribe.write.lite import LiteWriter
from memscribe.write.ports import WriteContext, Writer


def only(ops: list[Operation], kind: OpKind) -> Operation:
    matching = [op for op in ops if op.kind is kind]
    assert len(matching) == 1, ops
    return matching[0]


def test_lite_writer_implements_the_writer_port() -> None:
    writer = LiteWriter()
    assert isinstance(writer, Writer)
    assert writer.name == "lite" and writer.version


def test_moving_from_seattle_to_sydney_supersedes_the_old_residence() -> None:
    seattle = record("User lives in Seattle", slot="user/residence", value="seattle", valid_from=at(2023, 1, 5))
    store = ListCandidates([seattle])
    ops = propose(store, ("user", "I moved to Sydney last month!"), when=at(2023, 6, 3))
    op = only(ops, OpKind.SUPERSEDE)
    assert op.target == seattle.id and seattle.id in op.candidates
    assert op.draft is not None
    assert (op.draft.subject, op.draft.slot, op.draft.value) == ("user", "user/residence", "sydney")
    assert op.draft.valid_from is not None and op.draft.valid_from >= seattle.valid_from
    assert "seattle" in op.reason and "sydney" in op.reason
    assert op.draft.text == "I moved to Sydney in May 2023!"


def test_the_same_value_again_is_a_noop() -> None:
    seattle = record("User lives in Seattle", slot="user/residence", value="seattle")
    ops = propose(ListCandidates([seattle]), ("user", "I live in Seattle"))
    assert kinds(ops) == [OpKind.NOOP] and ops[0].target == seattle.id


def test_an_older_statement_never_supersedes_a_newer_one() -> None:
    sydney = record("User lives in Sydney", slot="user/residence", value="sydney", valid_from=at(2023, 6, 3))
    ops = propose(ListCandidates([sydney]), ("user", "I live in Seattle"), when=at(2023, 1, 5))
    op = only(ops, OpKind.ADD)
    assert OpKind.SUPERSEDE not in kinds(ops)
    assert op.target == sydney.id  # stored as history already superseded by the newer fact
    assert op.draft is not None and op.draft.valid_to == sydney.valid_from
    assert op.draft.valid_from is not None and op.draft.valid_from < sydney.valid_from


def test_facts_about_different_subjects_never_supersede_each_other() -> None:
    store = ListCandidates()
    say(store, "My brother lives in Rome", at(2023, 1, 5))
    ops = say(store, "I live in Oslo", at(2023, 2, 5))
    assert kinds(ops) == [OpKind.ADD]
    assert store.current_values("user's brother/residence") == ["rome"]
    assert store.current_values("user/residence") == ["oslo"]
    ops = say(store, "My brother moved to Milan", at(2023, 3, 5))
    assert kinds(ops) == [OpKind.SUPERSEDE]
    assert store.current_values("user/residence") == ["oslo"]
    assert store.current_values("user's brother/residence") == ["milan"]


def test_named_third_person_slots() -> None:
    priya = record("Priya lives in Lisbon", subject="priya", slot="priya/residence", value="lisbon")
    ops = propose(ListCandidates([priya]), ("user", "Priya moved to Porto"))
    assert only(ops, OpKind.SUPERSEDE).target == priya.id


def test_user_facts_never_supersede_agent_memories() -> None:
    agent = record("Assistant noted Seattle", slot="user/residence", value="seattle", owner=Owner.AGENT)
    ops = propose(ListCandidates([agent]), ("user", "I live in Sydney"))
    assert kinds(ops) == [OpKind.ADD]


def test_yesterday_is_resolved_and_kept_in_the_memory_text() -> None:
    ops = propose(
        ListCandidates(),
        ("user", "Caroline", "I went to a LGBTQ support group yesterday."),
        ("assistant", "Melanie", "Wow, that's great!"),
        when=datetime(2023, 6, 3, 13, 56, tzinfo=UTC),
    )
    op = only(ops, OpKind.ADD)
    assert op.draft is not None
    assert op.draft.text == "I went to a LGBTQ support group on 2 June 2023."  # her words; she is the subject
    assert op.draft.subject == "caroline" and op.draft.owner is Owner.USER
    assert op.draft.valid_from == datetime(2023, 6, 2, tzinfo=UTC)
    assert op.draft.message_indices == (0,)


def test_a_temporary_stay_gets_a_valid_to_and_leaves_the_residence_alone() -> None:
    home = record("User lives in Seattle", slot="user/residence", value="seattle")
    ops = propose(ListCandidates([home]), ("user", "I'm in Madrid for ten days."), when=at(2023, 6, 3))
    op = only(ops, OpKind.ADD)
    assert op.draft is not None and op.draft.slot == "user/location"
    assert op.draft.valid_to == datetime(2023, 6, 13, tzinfo=UTC)
    assert OpKind.SUPERSEDE not in kinds(ops)


def test_sorry_i_meant_2017_not_2018_updates_the_memory() -> None:
    grad = record("In 2018 User graduated from college", valid_from=datetime(2018, 1, 1, tzinfo=UTC))
    ops = propose(ListCandidates([grad]), ("user", "Hi!"), ("user", "Sorry, I meant 2017, not 2018."))
    op = only(ops, OpKind.UPDATE)
    assert op.target == grad.id and op.draft is not None
    assert op.draft.message_indices == (1,)  # the new version cites the correcting message
    assert op.draft.text == "In 2017 User graduated from college"
    assert op.draft.valid_from == datetime(2017, 1, 1, tzinfo=UTC)
    assert "2018" in op.reason and "2017" in op.reason


def test_a_correction_in_the_same_episode_fixes_the_pending_memory() -> None:
    ops = propose(ListCandidates(), ("user", "I graduated in 2018."), ("user", "Oops, I meant 2017."))
    op = only(ops, OpKind.ADD)
    assert op.draft is not None and "2017" in op.draft.text and "2018" not in op.draft.text


def test_actually_x_not_y_corrects_a_slot_value() -> None:
    porto = record("User lives in Porto", slot="user/residence", value="porto", valid_from=at(2023, 1, 5))
    ops = propose(ListCandidates([porto]), ("user", "Actually, I live in Lisbon, not Porto."))
    op = only(ops, OpKind.UPDATE)
    assert op.target == porto.id and op.draft is not None and op.draft.value == "lisbon"
    assert op.draft.valid_from == porto.valid_from  # it was always Lisbon


def test_actually_its_x_not_y_rewrites_the_value() -> None:
    colour = record("User's favorite color is blue", slot="user/favorite_color", value="blue")
    ops = propose(ListCandidates([colour]), ("user", "Actually it's green, not blue."))
    op = only(ops, OpKind.UPDATE)
    assert op.target == colour.id and op.draft is not None
    assert (op.draft.text, op.draft.value) == ("User's favorite color is green", "green")


def test_a_correction_with_nothing_to_correct_stores_nothing() -> None:
    assert propose(ListCandidates(), ("user", "Sorry, I meant 2017, not 2018.")) == []


def test_please_dont_keep_my_phone_number_deletes_it() -> None:
    phone = record("User's phone number is 5551234567", slot="user/phone", value="5551234567")
    city = record("User lives in Oslo", slot="user/residence", value="oslo")
    ops = propose(ListCandidates([phone, city]), ("user", "Please don't keep my phone number."))
    assert kinds(ops) == [OpKind.DELETE]
    assert ops[0].target == phone.id and "phone number" in ops[0].reason


def test_forget_that_i_like_jazz_deletes_only_that() -> None:
    store = ListCandidates()
    say(store, "I like jazz.", at(2023, 1, 5))
    say(store, "I like hiking in the Alps.", at(2023, 1, 5))
    ops = say(store, "Forget that I like jazz.", at(2023, 1, 6))
    assert kinds(ops) == [OpKind.DELETE]
    assert store.current_values("user/likes") == []
    assert store.current_values("user/hobbies") == ["hiking"]


def test_forgetting_something_said_earlier_in_the_same_episode_drops_it() -> None:
    ops = propose(ListCandidates(), ("user", "My phone number is 555 123 4567."), ("user", "Actually, forget that."))
    assert ops == []


def test_near_duplicates_are_noops() -> None:
    store = ListCandidates()
    say(store, "I went to Paris with my sister last week.", at(2023, 3, 5))
    ops = say(store, "I went to Paris with my sister last week!", at(2023, 3, 5))
    assert kinds(ops) == [OpKind.NOOP]


def test_a_refinement_of_a_plain_memory_is_an_update() -> None:
    trip = record("User went to a pottery class")
    ops = propose(ListCandidates([trip]), ("user", "I went to a pottery class with my sister Anna."))
    assert only(ops, OpKind.UPDATE).target == trip.id


def test_multi_valued_pets_accumulate() -> None:
    store = ListCandidates()
    say(store, "I have a dog named Max.", at(2023, 1, 5))
    ops = say(store, "We adopted a cat.", at(2023, 2, 5))
    assert kinds(ops) == [OpKind.ADD]
    assert kinds(say(store, "I have a dog.", at(2023, 3, 5))) == [OpKind.NOOP]
    assert kinds(say(store, "My cat Luna is so cute.", at(2023, 4, 5))) == [OpKind.UPDATE]
    assert sorted(v or "" for v in store.current_values("user/pets")) == ["cat luna", "dog max"]


def test_a_completed_plan_closes_the_intention() -> None:
    store = ListCandidates()
    plan_ops = say(store, "I'm planning to adopt a dog.", at(2023, 1, 5))
    assert plan_ops[0].draft is not None and plan_ops[0].draft.layer is Layer.INTENTION
    plan_id = store.by_slot("user/plan")[0].id
    ops = say(store, "I adopted a dog last week!", at(2023, 3, 1))
    op = only(ops, OpKind.UPDATE)
    assert op.target == plan_id and "carried out" in op.reason
    assert op.draft is not None and op.draft.layer is Layer.FACT and "plan-done" in op.draft.tags
    assert only(ops, OpKind.ADD).draft.slot == "user/pets"  # type: ignore[union-attr]
    assert store.current_values("user/plan") == []


def test_i_adopted_a_dog_closes_i_am_planning_to_adopt_a_dog() -> None:
    store = ListCandidates()
    say(store, "I'm planning to adopt a dog", at(2023, 1, 5))
    ops = say(store, "I adopted a dog", at(2023, 2, 5))
    assert kinds(ops) == [OpKind.ADD, OpKind.UPDATE] and store.current_values("user/pets") == ["dog"]
    assert store.current_values("user/plan") == []


def test_a_dated_plan_carries_its_expiry() -> None:
    ops = propose(ListCandidates(), ("user", "I'm flying to Tokyo next Friday."), when=at(2023, 6, 3))
    draft = only(ops, OpKind.ADD).draft
    assert draft is not None and draft.slot == "user/plan" and draft.layer is Layer.INTENTION
    assert draft.metadata == {"event_date": "2023-06-09", "valid_until": "2023-06-10"}
    assert draft.text == "I'm flying to Tokyo on 9 June 2023."


@pytest.mark.parametrize(
    ("said", "until"),
    [
        ("We're planning to get married next summer.", "2024-09-01"),
        ("We plan to move to Lisbon in March.", "2024-04-01"),
    ],
)
def test_a_plan_for_a_period_expires_after_the_period_not_its_first_day(said: str, until: str) -> None:
    draft = only(propose(ListCandidates(), ("user", said), when=at(2023, 6, 3)), OpKind.ADD).draft
    assert draft is not None and draft.layer is Layer.INTENTION and draft.metadata["valid_until"] == until


def test_a_completed_move_supersedes_the_old_city_and_marks_the_plan_done() -> None:
    store = ListCandidates()
    say(store, "I live in Seattle.", at(2023, 1, 5))
    say(store, "I'm thinking about moving to Sydney.", at(2023, 2, 5))
    ops = say(store, "I finally moved to Sydney!", at(2023, 6, 3))
    assert kinds(ops) == [OpKind.SUPERSEDE, OpKind.UPDATE]
    assert store.current_values("user/residence") == ["sydney"]
    assert store.current_values("user/plan") == []


def test_two_statements_about_one_slot_in_one_episode() -> None:
    ops = propose(
        ListCandidates(),
        ("user", "I work at Google."),
        ("user", "Wait, no, I left Google. I work at Meta now."),
    )
    employers = [op.draft.value for op in ops if op.draft is not None and op.draft.slot == "user/employer"]
    assert employers == ["meta"]


def test_an_earlier_value_in_the_same_episode_becomes_history() -> None:
    messages = (
        Message("user", "I live in Seattle.", timestamp=at(2023, 1, 5)),
        Message("user", "Update: I live in Sydney now.", timestamp=at(2023, 6, 3)),
    )
    ep = Episode("e2", SCOPE, messages, at(2023, 6, 3), "import", "k2")
    ops = LiteWriter().propose(ep, ListCandidates(), WriteContext(), FrozenClock(at(2023, 6, 3)))
    history, current = [op.draft for op in ops if op.draft is not None]
    assert kinds(ops) == [OpKind.ADD, OpKind.ADD]
    assert history.slot is None and "history" in history.tags and history.valid_to == at(2023, 6, 3)
    assert current.value == "sydney" and current.slot == "user/residence"


def test_a_reversed_preference_supersedes_the_old_one() -> None:
    store = ListCandidates()
    say(store, "I hate coffee.", at(2023, 1, 5))
    ops = say(store, "I love coffee now.", at(2023, 5, 5))
    assert kinds(ops) == [OpKind.SUPERSEDE]
    assert store.current_values("user/dislikes") == [] and store.current_values("user/likes") == ["coffee"]


def test_quitting_a_job_closes_the_employer() -> None:
    store = ListCandidates()
    say(store, "I work at Google as a data scientist.", at(2023, 1, 5))
    ops = say(store, "I quit my job at Google.", at(2023, 5, 5))
    assert kinds(ops) == [OpKind.SUPERSEDE]
    assert store.current_values("user/employer") == []
    say(store, "I started working at Meta as a product manager.", at(2023, 7, 5))
    assert store.current_values("user/employer") == ["meta"]
    assert store.current_values("user/job_title") == ["product manager"]


def test_assistant_recommendations_are_agent_owned() -> None:
    ops = propose(
        ListCandidates(),
        ("user", "I need ideas for a weekend in Lisbon."),
        ("assistant", "I recommend the tram 28 ride through Alfama. Have a great trip!"),
    )
    recommendation = only([op for op in ops if op.draft and op.draft.owner is Owner.AGENT], OpKind.ADD)
    assert recommendation.draft is not None
    assert recommendation.draft.subject == "assistant" and "recommendation" in recommendation.draft.tags
    assert all(op.draft is None or op.draft.owner is Owner.USER for op in ops if op is not recommendation)


def test_small_talk_produces_no_operations() -> None:
    ops = propose(
        ListCandidates(),
        ("user", "Hi there!"),
        ("assistant", "Hello! How can I help you today?"),
        ("user", "What's the weather like?"),
        ("assistant", "I can't check the weather, sorry."),
        ("user", "Okay, thanks! Bye."),
    )
    assert ops == []


def test_group_chat_speakers_keep_their_own_facts() -> None:
    store = ListCandidates()
    ops = propose(
        store,
        ("user", "Caroline", "I live in Boston."),
        ("assistant", "Melanie", "Nice! I live in Denver."),
    )
    residences = {(op.draft.subject, op.draft.value) for op in ops if op.draft is not None}
    assert residences == {("caroline", "boston"), ("melanie", "denver")}
    assert kinds(ops) == [OpKind.ADD, OpKind.ADD]


def test_every_operation_has_a_reason_provenance_and_usage() -> None:
    store = ListCandidates([record("User lives in Seattle", slot="user/residence", value="seattle")])
    ops = propose(store, ("user", "I moved to Denver. I'm a nurse and I have two cats."))
    assert len(ops) == 3
    for op in ops:
        assert op.reason and op.usage.prompt_version == "lite-rules-1.0" and op.usage.calls == 0
        assert op.draft is not None and op.draft.message_indices == (0,) and op.draft.valid_from is not None
