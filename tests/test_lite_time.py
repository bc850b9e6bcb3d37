"""Relative times resolved against the episode time (session of Saturday 3 June 2023)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memscribe.write.lite.rewrite import lead_with_date
from memscribe.write.lite.tense import Tense, detect_tense, lemmas
from memscribe.write.lite.timeref import format_day, resolve_times

SESSION = datetime(2023, 6, 3, 14, 0, tzinfo=UTC)  # a Saturday


def resolve(text: str, when: datetime = SESSION):
    return resolve_times(text, when, detect_tense(text))


@pytest.mark.parametrize(
    ("text", "day", "phrase"),
    [
        ("I went to a LGBTQ support group yesterday", date(2023, 6, 2), "on 2 June 2023"),
        ("I visited Japan last year", date(2022, 1, 1), "in 2022"),
        ("I'm flying to Tokyo next Friday", date(2023, 6, 9), "on 9 June 2023"),
        ("We went camping two weeks ago", date(2023, 5, 20), "around 20 May 2023"),
        ("I went to Japan in April", date(2023, 4, 1), "in April 2023"),
        ("I'm going to Japan in April", date(2024, 4, 1), "in April 2024"),
        ("I was sick last week", date(2023, 5, 22), "the week before 3 June 2023"),
        ("I have an interview tomorrow", date(2023, 6, 4), "on 4 June 2023"),
        ("I moved to Berlin in 2019", date(2019, 1, 1), "in 2019"),
        ("I started a new job three days ago", date(2023, 5, 31), "on 31 May 2023"),
        ("I moved to Sydney last month", date(2023, 5, 1), "in May 2023"),
        ("We went to Spain last summer", date(2022, 6, 1), "in summer 2022"),
        ("I saw her last Friday", date(2023, 6, 2), "on 2 June 2023"),
        ("My exam is on June 10", date(2023, 6, 10), "on 10 June 2023"),
        ("I'll be there in two days", date(2023, 6, 5), "on 5 June 2023"),
        ("I went hiking a few days ago", date(2023, 5, 31), "around 31 May 2023"),
        ("We went camping last weekend", date(2023, 5, 27), "the weekend of 27 May 2023"),
        # counted from a day word: a day, never "three weeks from 3 June 2023"
        ("my interview is three weeks from today, 9am", date(2023, 6, 24), "is on 24 June 2023, 9am"),
        ("two weeks from now I fly out", date(2023, 6, 17), "on 17 June 2023 I fly out"),
        ("the results come 10 days from tomorrow", date(2023, 6, 14), "on 14 June 2023"),
        ("the lease ends three months from today", date(2023, 9, 3), "on 3 September 2023"),
    ],
)
def test_relative_expressions_resolve_against_the_session(text: str, day: date, phrase: str) -> None:
    timing = resolve(text)
    assert timing.day == day
    assert phrase in timing.text


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("I have an interview tomorrow", date(2023, 6, 5)),
        ("I'm going to Japan in April", date(2024, 5, 1)),
        ("We're getting married next summer", date(2024, 9, 1)),
        ("We plan to move next year", date(2025, 1, 1)),
        ("I moved to Berlin in 2019", date(2020, 1, 1)),
        ("I start the new job next week", date(2023, 6, 12)),
        ("We go camping next weekend", date(2023, 6, 12)),
        ("We move in two months", date(2023, 9, 1)),
        ("I moved to Sydney last month", date(2023, 6, 1)),
        ("We went camping two weeks ago", date(2023, 5, 21)),
    ],
)
def test_a_period_ends_after_its_last_day(text: str, ends: date) -> None:
    assert resolve(text).ends == ends


def test_yesterday_in_a_session_of_3_june_2023_is_2_june_2023() -> None:
    timing = resolve("I went to a LGBTQ support group yesterday")
    assert timing.day == date(2023, 6, 2)
    assert timing.text == "I went to a LGBTQ support group on 2 June 2023"


@pytest.mark.parametrize(
    ("text", "resolved"),
    [
        ("starting at the end of august", "starting at the end of August 2023"),
        ("starting at the end of next month", "starting at the end of July 2023"),
        ("at the start of next month", "at the start of July 2023"),
        ("I'll send the binder by friday", "I'll send the binder by 9 June 2023"),
        ("I'm off from tomorrow", "I'm off from 4 June 2023"),
    ],
)
def test_a_period_after_a_preposition_reads_without_a_second_one(text: str, resolved: str) -> None:
    assert resolve(text).text == resolved


def test_a_sentence_without_times_is_unchanged() -> None:
    timing = resolve("I live in Seattle")
    assert timing.text == "I live in Seattle" and timing.day is None and timing.until is None


@pytest.mark.parametrize("text", ["I may move to Denver", "We march on", "I love Mondays", "Friday is pizza night"])
def test_words_that_only_look_like_dates_are_left_alone(text: str) -> None:
    assert resolve(text).refs == ()


@pytest.mark.parametrize(
    "text", ["haven't had a drink in 60 days", "first time in 3 years I slept through", "not been back in 2 weeks"]
)
def test_in_after_a_negation_or_first_says_how_long_not_when(text: str) -> None:
    assert resolve(text).text == text


def test_temporary_state_gets_an_end() -> None:
    timing = resolve("I'm in Madrid for ten days")
    assert timing.until == datetime(2023, 6, 13, tzinfo=UTC)
    assert timing.text == "I'm in Madrid for ten days"  # the end is kept beside the words, not in them


def test_temporary_state_starting_later_ends_after_its_start() -> None:
    timing = resolve("I'll be in Rome for two weeks from next Monday")
    assert timing.until == datetime(2023, 6, 19, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    ["I've lived in Oslo for ten years", "I was in Madrid for ten days", "I have known her for 4 years"],
)
def test_durations_of_past_or_lasting_states_do_not_end_anything(text: str) -> None:
    assert resolve(text).until is None


def test_a_past_date_closing_the_first_clause_leads_the_memory() -> None:
    text = "I went to a LGBTQ support group yesterday and it was so powerful"
    timing = resolve(text)
    assert lead_with_date(timing.text, timing, SESSION.date()) == (
        "On 2 June 2023 I went to a LGBTQ support group and it was so powerful"
    )


def test_future_and_later_clause_dates_stay_in_place() -> None:
    future = resolve("I'm adopting a dog next month")
    assert lead_with_date(future.text, future, SESSION.date()) == future.text
    later = resolve("My mom is from Sweden and she moved here in 1990")
    assert lead_with_date(later.text, later, SESSION.date()) == later.text


def test_format_day_is_day_month_year() -> None:
    assert format_day(date(2023, 6, 2)) == "2 June 2023"


def test_tense_and_lemmas() -> None:
    assert detect_tense("I adopted a dog").past
    assert detect_tense("I'm going to adopt a dog").future
    assert not detect_tense("I'm excited").past
    assert "adopt" in lemmas("adopted") and "move" in lemmas("moved") and "stop" in lemmas("stopped")
    assert "go" in lemmas("went") and "move" in lemmas("moving")


def test_a_memory_of_several_sentences_reads_times_in_the_tenses_of_all_of_them() -> None:
    from test_lite_support import ListCandidates, at, propose

    ops = propose(ListCandidates(), ("user", "she's here!!! Ana, born tuesday at 3am, 3.4kg."), when=at(2024, 2, 15))
    texts = [op.draft.text for op in ops if op.draft is not None]
    assert texts and all("13 February 2024" in t and "tuesday" not in t.lower() for t in texts)


def test_each_clause_of_a_memory_reads_its_times_in_its_own_tense() -> None:
    from memscribe.write.lite.retime import resolve_by_clause

    tuesday = datetime(2023, 8, 1, 12, tzinfo=UTC)  # a Tuesday
    said = "handed back my badge today, they threw me a party. first day at the new lab is monday"
    assert resolve_by_clause(said, tuesday) == (
        "handed back my badge on 1 August 2023, they threw me a party. first day at the new lab is on 7 August 2023"
    )
    # A clause with no tense of its own takes its sentence's; a present clause is not read in the past.
    assert resolve_by_clause("on sunday, we had a barbecue", tuesday) == "on 30 July 2023, we had a barbecue"
    assert resolve_by_clause("lost my keys yesterday. yoga is on saturday", tuesday) == (
        "lost my keys on 31 July 2023. yoga is on 5 August 2023"
    )
    assert resolve_by_clause("our cat passed away on friday.", tuesday) == "our cat passed away on 28 July 2023."


def test_a_period_after_a_full_month_name_ends_the_sentence() -> None:
    present = Tense(past=False, future=False)
    anchor = datetime(2023, 8, 1, 12, tzinfo=UTC)
    assert resolve_times("oslo in january. 20 below zero", anchor, present).text == (
        "oslo in January 2023. 20 below zero"
    )
    assert resolve_times("see you on Jan. 5", anchor, present).text == "see you on 5 January 2023"


def test_a_kind_of_day_is_not_rewritten_as_a_date() -> None:
    text = "I spent an entire Saturday repainting the fence last month"
    assert "an entire Saturday" in resolve(text).text


def test_a_weekday_with_a_part_of_the_day_reads_as_one_phrase() -> None:
    timing = resolve("I went to the farmers market on Saturday afternoon")
    assert "on the afternoon of 27 May 2023" in timing.text
    assert "afternoon afternoon" not in timing.text and "2023 afternoon" not in timing.text
    assert timing.day == date(2023, 5, 27)


def test_a_day_said_alone_takes_the_month_last_dated_in_the_message() -> None:
    from memscribe.write.lite.retime import complete_days

    assert complete_days("the 14th is my brother Imran's", "wait did I say 14? on 16 June 2023.") == (
        "the 14th of June is my brother Imran's"
    )
    assert complete_days("Le 12 c'est l'anniversaire de ma mère.", "Non pardon, c'est le 21 mai !") == (
        "Le 12 mai c'est l'anniversaire de ma mère."
    )
    assert complete_days("on 3 May we met. the 9th was worse", "") == "on 3 May we met. the 9th of May was worse"
    # No month dated before it, or a day that is not one (a floor, an ordinal): left as said.
    assert complete_days("the 14th is fine", "we talked on tuesday") == "the 14th is fine"
    assert complete_days("we live on the 14th floor", "on 16 June") == "we live on the 14th floor"
    assert complete_days("the 40th was fun", "on 16 June") == "the 40th was fun"


def test_a_day_word_said_twice_over_is_a_title_not_a_day() -> None:
    text = "finished tomorrow and tomorrow and tomorrow, cried on the bus like an idiot"
    assert resolve_times(text, datetime(2023, 5, 3, tzinfo=UTC), detect_tense(text)).text == text
    other = "I did it yesterday, and tomorrow I rest"
    assert resolve_times(other, datetime(2023, 5, 3, tzinfo=UTC), detect_tense(other)).text == (
        "I did it on 2 May 2023, and on 4 May 2023 I rest"
    )


def test_a_date_after_the_reads_without_a_preposition() -> None:
    text = "the anniversary is the 8th not the 3rd of march"
    resolved = resolve_times(text, datetime(2024, 2, 1, tzinfo=UTC), detect_tense(text)).text
    assert "the on" not in resolved and "the 3 March" in resolved


def test_months_from_a_day_stop_at_the_months_last_day() -> None:
    assert resolve("a month from today", datetime(2024, 1, 31, 9, tzinfo=UTC)).day == date(2024, 2, 29)
    assert resolve("two years from now", datetime(2024, 1, 31, 9, tzinfo=UTC)).day == date(2026, 1, 31)
