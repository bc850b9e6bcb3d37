"""What a statement says ended closes the older statements that name it, and leaves the current text."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_lite_support import ListCandidates, at, say, told_in_turn

from memscribe.write.lite.residue import drop_old_values, ended_values


def _current(store: ListCandidates) -> list[str]:
    return [r.text for r in store.records if r.retired_at is None and r.valid_to is None]


def test_the_words_just_after_an_end_cue_name_what_ended() -> None:
    assert ended_values("last day at target was on 28 April 2023, le wagon starts monday") == {"target"}
    assert ended_values("sold the civic to my neighbour's kid for $4k") == {"civic"}
    assert ended_values("not sure about this one") == set()
    assert ended_values("we had to put Clover to sleep on 4 September") == {"clover"}


def test_a_last_day_closes_the_statement_of_the_job_and_leaves_the_new_one() -> None:
    store = ListCandidates()
    say(store, "store manager at Brightmart for 6 years.", at(2023, 1, 10))
    say(store, "ok I did it. last day at brightmart was on 28 April 2023, I joined the bootcamp.", at(2023, 5, 1))
    current = _current(store)
    assert not any("store manager" in t for t in current)
    assert any("bootcamp" in t and "brightmart" not in t.lower() for t in current)


def test_the_date_an_end_is_said_with_is_no_new_value() -> None:
    older = ["SDE at Northwind."]
    said = "said bye to my northwind team on 1 August 2023, they got me a cake. first day at Contoso is monday"
    assert drop_old_values(said, older, [], older) == "they got me a cake. first day at Contoso is monday"


def test_an_end_joined_to_a_switch_by_and_leaves_the_current_text() -> None:
    older = ["learning portuguese on duolingo every night"]
    assert drop_old_values("ok I gave up on portuguese and switched to italian.", older, [], older) == (
        "switched to italian."
    )


def test_a_thing_that_is_dead_is_over() -> None:
    older = ["gym at 6am before work, every weekday"]
    said = "starting the new job monday, shift is 7 to 3:30, so the 6am gym thing is dead."
    assert drop_old_values(said, older, [], older) == "starting the new job monday, shift is 7 to 3:30."


def test_they_acting_on_the_speaker_is_the_speakers_own_news() -> None:
    from memscribe.write.lite.language import someone_else

    assert someone_else("they cancelled the search and gave me the job for real") is None
    assert someone_else("they moved to Leeds last year") == "someone"
    assert someone_else("she's all settled, sent me pics of her place") == "someone"
    assert someone_else("says madrid is growing on her") == "someone"  # a dropped "she"


def test_a_phone_by_its_platform_is_on_the_phone_topic() -> None:
    from memscribe.read.topics import topics_of

    assert "phone" in topics_of("switched to android!! a pixel now")
    assert "phone" in topics_of("my iphone battery dies by 2pm")


def test_what_something_was_gives_way_to_what_it_is_now() -> None:
    said = "my starter was called Doughy but my partner vetoed it so he's Crumb now"
    assert drop_old_values(said, [], [], []) == "my partner vetoed it so he's Crumb now"
    assert drop_old_values("I was a teacher but now I'm a nurse", [], [], []) == "now I'm a nurse"
    assert drop_old_values("it was great, now I'm tired", [], [], []) == "it was great, now I'm tired"


def test_a_streak_without_a_habit_ends_it() -> None:
    from memscribe.write.lite.cues import ends

    assert ends("5 months no cigarettes. I can smell things again")
    assert ends("3 weeks smoke free!! patches are helping") and ends("two years sober today")
    assert not ends("I had no time for the gym this week")


def test_an_ending_of_a_value_held_in_another_slot_ends_that_slot() -> None:
    store = ListCandidates()
    say(store, "My husband Mark is an auditor at PwC.", at(2023, 1, 10))
    ops = say(store, "mark finally quit pwc!! no more busy season", at(2023, 6, 12))
    held = [r for r in store.records if r.retired_at is None and r.valid_to is None]
    assert not any(r.slot == "mark/employer" for r in held)  # typed in lowercase, still his employer
    assert not any(r.slot and r.slot.endswith("/hobbies") for r in held)  # not a hobby called "pwc"
    assert any("employer 'pwc' of mark ended" in op.reason for op in ops)


def test_a_flat_given_back_in_chinese_ends_the_city_it_was_in() -> None:
    kept = drop_old_values("终于把北京的房子退了！现在住在成都", [], ["从望京坐地铁回家，北京的地铁晚上真挤"])
    assert "北京" not in kept and "成都" in kept


def test_an_interview_in_chinese_is_no_job_yet() -> None:
    from memscribe.write.lite.cues import hypothetical

    assert hypothetical("字节那个面试我最后没去，想想还是算了")
    assert not hypothetical("我在奥美上海做平面设计")


@pytest.mark.parametrize(
    "text",
    ["got a final round at monzo next thursday, it's a system design one", "next round with the Wise team is friday",
     "been daydreaming about packing it all in and moving to lisbon tbh"],
)  # fmt: skip
def test_an_interview_round_or_a_daydream_is_no_change_yet(text: str) -> None:
    from memscribe.write.lite.cues import hypothetical

    assert hypothetical(text)


@pytest.mark.parametrize(
    ("text", "wish"),
    [("falls ich nach Berlin ziehe, brauche ich eine Wohnung", True), ("je pense déménager à Lyon", True),
     ("context: I'm a frontend eng at Atlassian, and our lead is on leave so it falls on me.", False),
     ("we keep the servers in the eu region", False)],
)  # fmt: skip
def test_other_languages_wish_words_are_whole_words(text: str, wish: bool) -> None:
    """"falls" is German's "in case" before a subject, and the English verb elsewhere."""
    from memscribe.write.lite.cues import hypothetical

    assert hypothetical(text) is wish


@pytest.mark.parametrize(
    ("text", "ended"),
    [("biscuit died on sunday. 14 good years.", {"biscuit"}), ("our old cat Milo passed away last night", {"milo"}),
     ("pepper ran away :(", {"pepper"}), ("I almost died laughing at that", set())],
)  # fmt: skip
def test_what_died_or_ran_away_is_said_before_the_cue(text: str, ended: set[str]) -> None:
    assert ended_values(text) == ended


def test_a_language_dropped_ends_the_older_statements_of_it(tmp_path: Path) -> None:
    current, _ = told_in_turn(
        tmp_path, "duolingo spanish streak is at 200 days and I still panic ordering coffee",
        "ok update, dropped spanish tbh. all in on japanese now, hiragana done",
    )  # fmt: skip
    assert not any("spanish" in t for t in current) and any("japanese" in t for t in current)


def test_a_name_it_had_before_the_one_it_is_called_now_is_left_out() -> None:
    text = "we adopted a retired greyhound!!! his racing name was 'Swift Lightning' but we call him pilot."
    assert drop_old_values(text, []) == "we adopted a retired greyhound!!! we call him pilot."
