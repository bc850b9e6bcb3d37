"""One message about two people, names written in lower case, the old value inside the replacing clause, and
someone else's wish: each keeps the speaker's own current memories true."""

from __future__ import annotations

from test_lite_support import ListCandidates, at, say

from memscribe.core.records import OpKind
from memscribe.write.lite.cues import hypothetical
from memscribe.write.lite.phrases import drop_old_phrases
from memscribe.write.lite.subjects import split_by_subject


def _current(store: ListCandidates) -> list[str]:
    return [r.text for r in store._current()]


def test_a_message_about_a_coworker_and_the_speaker_keeps_one_memory_each() -> None:
    store = ListCandidates()
    say(store, "I'm a line cook at the Harbour Diner and I love the early shifts.", at(2023, 2, 1))
    ops = say(
        store,
        "my neighbour otto got promoted to head chef, so now he runs the whole kitchen. I'm still a line cook.",
        at(2023, 6, 1),
    )
    texts = [op.draft.text for op in ops if op.draft is not None]
    assert any("head chef" in t and "line cook" not in t for t in texts)
    assert not any("head chef" in t and "line cook" in t for t in texts)
    mine = [t for t in _current(store) if "line cook" in t]
    assert mine and not any("head chef" in t for t in mine)
    assert not any(op.kind is OpKind.SUPERSEDE for op in ops)  # nothing of the speaker's was replaced


def test_statements_that_name_nobody_stay_with_the_person_before() -> None:
    items = [("sister", "my sister got a job at Tesco"), (None, "she loves it"), ("user", "I'm at Lidl")]
    groups = split_by_subject(items, who=lambda i: i[0], speaker="user", substantial=lambda i: True)
    assert [[text for _, text in g] for g in groups] == [
        ["my sister got a job at Tesco", "she loves it"],
        ["I'm at Lidl"],
    ]
    alone = [("sister", "my sister got a job"), (None, "she loves it")]
    assert split_by_subject(alone, who=lambda i: i[0], speaker="user", substantial=lambda i: True) == [alone]


def test_a_chinese_message_about_a_brother_and_the_speaker_is_split() -> None:
    store = ListCandidates()
    ops = say(store, "哥哥在杭州买了一套房子，离西湖很近。 我在成都租房住，房租一个月三千。", at(2024, 3, 1))
    texts = [op.draft.text for op in ops if op.draft is not None]
    assert any("杭州" in t and "成都" not in t for t in texts)
    assert any("成都" in t and "杭州" not in t for t in texts)


def test_a_lower_case_name_written_before_as_a_name_is_that_person() -> None:
    store = ListCandidates()
    say(store, "My partner Ines works as a pharmacist at Boots, I work from home.", at(2023, 1, 5))
    ops = say(store, "ines is loving the new pharmacy in town. me, not so much with my commute.", at(2023, 5, 5))
    subjects = {op.draft.text: op.draft.subject for op in ops if op.draft is not None}
    assert subjects.get("ines is loving the new pharmacy in town.") == "ines"
    assert any(s == "user" and "commute" in t for t, s in subjects.items())


def test_a_word_never_written_as_a_name_before_is_not_taken_for_a_person() -> None:
    ops = say(ListCandidates(), "ines is loving the new pharmacy in town.", at(2023, 5, 5))
    assert ops and all(op.draft is None or op.draft.subject == "user" for op in ops)


def test_the_old_value_named_inside_the_replacing_clause_is_left_out() -> None:
    older = ["the wire is the best show of all time", "my leeds flat has a tiny kitchen", "I drink black tea"]
    assert (
        drop_old_phrases("honestly severance has replaced the wire as my favourite show", older)
        == "honestly severance is now my favourite show"
    )
    assert drop_old_phrases("moved into a flat in york for less than my leeds one, so happy", older) == (
        "moved into a flat in york, so happy"
    )
    assert drop_old_phrases("having green tea instead of black tea, sleeping better", older) == (
        "having green tea, sleeping better"
    )
    assert drop_old_phrases("these boots have replaced the wire as my favourite thing", older) == (
        "these boots are now my favourite thing"
    )
    # A comparison with something never said before stays as written.
    said = "a flat in york for less than my sister's place"
    assert drop_old_phrases(said, older) == said


def test_a_replacement_keeps_the_words_as_said_beside_the_current_text() -> None:
    store = ListCandidates()
    say(store, "the wire is the best show of all time, fight me", at(2023, 1, 1))
    ops = say(store, "ok severance has replaced the wire as my favourite show", at(2023, 4, 1))
    drafts = [op.draft for op in ops if op.draft is not None]
    assert any("the wire" not in d.text.lower() and "severance" in d.text for d in drafts)
    assert any("replaced the wire" in str(d.metadata.get("said", "")) for d in drafts)


def test_someone_elses_wish_is_hypothetical() -> None:
    assert hypothetical("my son has decided he wants a puppy named Biscuit")
    assert hypothetical("they would like us to move closer to them")
    assert not hypothetical("she adopted a puppy named Biscuit")


def test_a_question_closing_a_statement_leaves_the_fact_a_fact() -> None:
    assert not hypothetical("we're taking home two guinea pigs 🐹🐹 what veg is safe and what should I avoid")
    assert not hypothetical("my rabbit has started thumping at night, is that normal??")
    # A question that is all there is, or a plan in the statement itself, stays hypothetical.
    assert hypothetical("should I move to berlin?")
    assert hypothetical("thinking seriously about moving to berlin.")
    assert hypothetical("I'm interviewing at Google. if I got the offer would it be dumb to turn down meta?")


def test_a_partner_or_a_mate_named_as_chat_writes_them_is_their_own_subject() -> None:
    store = ListCandidates()
    say(store, "I'm at work fri (unilever, kingston office, no way out of it)", at(2023, 2, 1))
    say(store, "luca (hubby) just accepted an offer at monzo!!! he's been miserable at hsbc", at(2023, 3, 1))
    say(store, "my mate Dmitri just got made CTO at his startup lol", at(2023, 4, 1))
    records = {r.text: r for r in store._current()}
    assert records["I'm at work fri (unilever, kingston office, no way out of it)"].subject == "user"
    assert {r.subject for t, r in records.items() if "monzo" in t} == {"luca"}
    assert {r.subject for t, r in records.items() if "CTO" in t} == {"dmitri"}
