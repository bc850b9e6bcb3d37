"""Changes said without the usual cues: "did I say X? it's Y", a clause that says "instead", and one activity of
a routine moved to another weekday."""

from __future__ import annotations

from pathlib import Path

from test_lite_support import ListCandidates, at, propose, say

from memscribe.core.records import OpKind
from memscribe.write.lite.phrases import drop_replaced_clause
from memscribe.write.lite.requests import Correction, parse_embedded_correction, parse_self_check
from memscribe.write.lite.schedule import moved_days, without_old_day


def _current(store: ListCandidates) -> list[str]:
    return [r.text for r in store._current()]


def test_did_i_say_then_the_value_meant_is_a_correction() -> None:
    assert parse_self_check("hmm did I say 9?", "it's the 19th.") is not None
    fixed = parse_self_check(" oh wait, did I say Tuesday?", "I meant Thursday")
    assert fixed is not None and (fixed.new, fixed.old) == ("Thursday", "Tuesday")
    assert parse_self_check("did I say 9?", "the 9th is my sister's") is None  # no value meant
    assert parse_self_check("I said 9.", "it's the 19th.") is None  # not asked


def test_a_self_check_corrects_the_stored_date() -> None:
    store = ListCandidates()
    say(store, "fyi my anniversary is on 9 March, we always do dinner", at(2024, 1, 2))
    ops = say(store, "hmm did I say 9? it's the 19th. the 9th is my sister's", at(2024, 1, 3))
    assert any(op.kind is OpKind.UPDATE and op.draft and "19 March" in op.draft.text for op in ops)
    assert not any("on 9 March" in t for t in _current(store))
    fixed = next(op.draft for op in ops if op.kind is OpKind.UPDATE and op.draft)
    # The date keeps its start and notes when it was corrected, the newest word on it for the read path.
    assert fixed.metadata["corrected_at"] == at(2024, 1, 3).isoformat()


def test_a_day_corrected_inside_a_long_message_moves_the_stored_date() -> None:
    store = ListCandidates()
    say(store, "need dinner ideas for our anniversary, it's march 3rd and I'm cooking at home", at(2024, 2, 10))
    ops = say(store, "lol not vegetarian, I eat fish! ALSO wait I'm an idiot, the anniversary is the 8th not the 3rd, "
                     "the 3rd is when we first met. good thing I checked", at(2024, 2, 11))  # fmt: skip
    assert any(op.kind is OpKind.UPDATE and op.draft and "8 March" in op.draft.text for op in ops)
    current = " | ".join(_current(store))
    assert "3 March" not in current and "not vegetarian" not in current and "I eat fish" in current


def test_a_clause_that_says_instead_leaves_out_the_old_value_named_beside_it() -> None:
    older = ["week 3 of the paleo diet, going strong"]
    said = "blood sugar was weird after a month of paleo 😬 my dietitian put me on a low gi diet instead."
    assert drop_replaced_clause(said, older) == "my dietitian put me on a low gi diet instead."
    # Nothing older on the topic, or no "instead": the statement stays whole.
    assert drop_replaced_clause(said, []) == said
    assert (
        drop_replaced_clause("after a month of paleo 😬 I feel great", older)
        == "after a month of paleo 😬 I feel great"
    )


def test_the_replacing_statement_keeps_the_words_as_said_beside_its_text() -> None:
    store = ListCandidates()
    say(store, "week 3 of the paleo diet, going strong", at(2024, 1, 2))
    ops = say(store, "blood sugar was weird after a month of paleo 😬 my dietitian put me on a low gi diet instead.",
              at(2024, 2, 2))  # fmt: skip
    drafts = [op.draft for op in ops if op.draft is not None]
    assert any("paleo" not in d.text and "paleo" in str(d.metadata.get("said")) for d in drafts)


def test_one_activity_moved_to_another_weekday() -> None:
    assert moved_days("the vet moved to the 3rd and choir moved to tuesdays") == [("choir", "tuesday")]
    assert moved_days("spin class is now on fridays now") == [("spin", "friday")]
    week = "my week: choir on mondays, swimming fridays, and saturday is for the allotment."
    assert without_old_day(week, "choir", "tuesday") == "my week: swimming fridays, and saturday is for the allotment."
    assert without_old_day(week, "choir", "monday") is None  # already that day
    assert without_old_day("choir on mondays", "choir", "tuesday") == ""
    assert without_old_day(week, "pottery", "tuesday") is None


def test_the_older_routine_keeps_its_other_activities() -> None:
    store = ListCandidates()
    say(store, "my week: choir on mondays, swimming fridays, and saturday is for the allotment.", at(2024, 1, 2))
    ops = say(store, "so much going on: choir moved to tuesdays since the hall is booked", at(2024, 2, 2))
    assert any(op.kind is OpKind.UPDATE for op in ops)
    current = _current(store)
    assert "my week: swimming fridays, and saturday is for the allotment." in current
    assert not any("mondays" in t for t in current)
    # The next version is on the topics of what it still says, not of the activity that moved out of it.
    said = "my week: pottery class on mondays, physio on fridays, and saturday is for the allotment."
    store = ListCandidates()
    say(store, said, at(2024, 1, 2))
    ops = say(store, "so much going on: pottery moved to tuesdays since the studio is booked", at(2024, 2, 2))
    kept = next(op.draft for op in ops if op.kind is OpKind.UPDATE and op.draft)
    assert "hobby" not in kept.metadata["topics"] and kept.metadata["said"] == said


def test_what_was_only_believed_is_corrected_by_what_follows_but() -> None:
    from memscribe.write.lite.phrases import believed_values, drop_old_phrases

    older = ["my tabby Mochi keeps knocking cups off the table"]
    said = "ok so I've always said she's a tabby but the vet says Mochi is actually a bengal mix"
    assert believed_values(said, older) == {"tabby"}
    assert drop_old_phrases(said, older) == "ok so the vet says Mochi is actually a bengal mix"
    assert believed_values("I thought it would rain but it was sunny", older) == set()  # nothing said before


def test_a_correction_by_but_closes_the_older_statement(tmp_path: Path) -> None:
    from memscribe import Memory

    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    try:
        memory.add("my tabby Mochi keeps knocking cups off the table", user_id="u", timestamp="2024-01-02T10:00:00")
        memory.add(
            "ok so I've always said she's a tabby but the vet says Mochi is actually a bengal mix",
            user_id="u",
            timestamp="2024-02-02T10:00:00",
        )
        current = [r["memory"] for r in memory.list(user_id="u")["results"]]
    finally:
        memory.close()
    assert current and not any("tabby" in text for text in current)
    assert any("bengal" in text for text in current)


def test_a_stay_with_a_flight_home_is_temporary() -> None:
    from memscribe.write.lite.cues import temporary

    assert temporary("10 days in portugal!! currently in porto, flying back to leeds on the 12th")
    assert temporary("heading home tomorrow, what a trip")
    assert not temporary("back home in leeds and missing the sun")


def test_a_new_day_alone_moves_the_date_in_the_month_it_was_in() -> None:
    from memscribe.write.lite.requests import Correction, day_in_month

    assert day_in_month(Correction("the 8th", "the 3rd"), "it's on 3 March, dinner at 8") == ("3 March", "8 March")
    assert day_in_month(Correction("8th", "3 March 2024"), "since March 3rd we") == ("March 3rd", "March 8")
    assert day_in_month(Correction("the 8th", "3 April"), "it's on 3 March") is None  # another month said
    assert day_in_month(Correction("Leeds", "York"), "it's on 3 March") is None


def test_a_value_put_right_in_passing_corrects_the_memory_that_holds_it() -> None:
    assert parse_embedded_correction("ugh autocorrect, its ADAEZE not adaze. a-d-a-e-z-e") == Correction(
        "ADAEZE", "adaze"
    )
    assert parse_embedded_correction("and it's the 17th not the 14th 🤦 I keep saying it") == Correction(
        "the 17th", "the 14th"
    )
    for negation in ("I am not sure about it", "that is not really my thing", "I'm a vet nurse, not a doctor",
                     "i do not like it", "it's a want not a need"):  # fmt: skip
        assert parse_embedded_correction(negation) is None
    store = ListCandidates()
    say(store, "my daughter adaze is turning 7 in july and wants a 'science party'", at(2023, 5, 2))
    say(store, "ugh autocorrect, its ADAEZE not adaze. a-d-a-e-z-e. my phone hates igbo names", at(2023, 5, 3))
    current = " | ".join(_current(store))
    assert "daughter ADAEZE is turning 7" in current and "adaze" not in current.lower().replace("adaeze", "")
    # Nothing held the old value: the statement is kept as said, nothing else changes.
    store = ListCandidates()
    say(store, "my sister lives in leeds", at(2023, 5, 2))
    say(store, "honestly it's tea not coffee for me these days", at(2023, 5, 3))
    assert sorted(_current(store)) == ["honestly it's tea not coffee for me these days", "my sister lives in leeds"]


def test_a_guess_of_the_assistant_put_right_leaves_the_memory() -> None:
    store = ListCandidates()
    ops = propose(store, ("user", "party is on a sunday and forecast says rain. any indoor venue ideas?"),
                  ("assistant", "If you're in Auckland, Motat or a community hall could work well."),
                  ("user", "haha we're in wellington not auckland 😅 (lower hutt to be precise)"))  # fmt: skip
    texts = [op.draft.text for op in ops if op.draft is not None]
    assert "haha we're in wellington 😅 (lower hutt to be precise)" in texts
    # What the assistant never said is not dropped: the comparison stays as written.
    ops = propose(ListCandidates(), ("user", "we're in wellington not auckland, it's windier"))
    assert any("not auckland" in op.draft.text for op in ops if op.draft is not None)


def test_a_new_lease_said_in_spanish_replaces_the_home_said_before(tmp_path: Path) -> None:
    """"me salió el laburo en córdoba, ya firmé el alquiler de un depto": signed and a lease are a change of home
    in Spanish as "signed" and "apartment" are in English."""
    from memscribe import Memory

    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        memory.add("che, necesito ideas para un finde largo. vivo en Rosario y no tengo auto", user_id="u",
                   timestamp="2023-05-02T10:00:00Z")  # fmt: skip
        memory.add("bueno, novedades!!! me salió el laburo en córdoba 🙌 ya firmé el alquiler de un depto en Nueva "
                   "Córdoba", user_id="u", timestamp="2023-06-10T10:00:00Z")  # fmt: skip
        current = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert any("Nueva Córdoba" in t for t in current)
    assert not any("Rosario" in t for t in current), current
