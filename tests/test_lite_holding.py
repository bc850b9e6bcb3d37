"""A unit that says something for good and something for a while keeps two memories."""

from __future__ import annotations

from test_lite_support import ListCandidates, propose

from memscribe.write.lite.holding import split_by_holding


def test_a_stay_is_kept_apart_from_the_home_it_leaves() -> None:
    said = "our flat in Leeds is getting a new roof so we're staying at my aunt's in York for 3 weeks."
    ops = propose(ListCandidates(), ("user", said))
    drafts = [op.draft for op in ops if op.draft is not None]
    home = [d for d in drafts if "Leeds" in d.text]
    stay = [d for d in drafts if "York" in d.text]
    assert home and stay
    assert all("York" not in d.text and "temporary" not in d.tags for d in home)
    assert all("Leeds" not in d.text and "temporary" in d.tags for d in stay)


def test_a_message_that_is_all_stay_stays_whole() -> None:
    said = "in Lisbon for two weeks for work. the hotel has a rooftop pool."
    ops = propose(ListCandidates(), ("user", said))
    drafts = [op.draft for op in ops if op.draft is not None and op.draft.slot is None]
    assert len(drafts) == 1 and "Lisbon" in drafts[0].text and "rooftop" in drafts[0].text


def test_fragments_stay_with_the_lasting_statements() -> None:
    items = [("ok so", False), ("I live in Leeds", True), ("staying in York for a week", True)]
    groups = split_by_holding(items, text=lambda i: i[0], substantial=lambda i: i[1])
    assert groups == [[items[0], items[1]], [items[2]]]
    assert split_by_holding(items[:2], text=lambda i: i[0], substantial=lambda i: i[1]) == [items[:2]]


def test_a_remark_about_the_place_of_a_stay_that_holds_is_part_of_the_stay() -> None:
    from dataclasses import replace

    from test_lite_support import at, record

    from memscribe.write.lite.holding import during_stay
    from memscribe.write.lite.ledger import Ledger

    stay = replace(record("work is sending me to the porto office for this quarter", valid_from=at(2023, 4, 3)),
                   tags=("temporary",))  # fmt: skip
    ledger = Ledger(ListCandidates([stay]))
    assert during_stay(ledger, "porto is dreamy, the food is a crime", "user", at(2023, 5, 14))
    assert not during_stay(ledger, "porto is dreamy, the food is a crime", "user", at(2024, 5, 14))  # long over
    assert not during_stay(ledger, "we're moving to porto for real now", "user", at(2023, 5, 14))
    assert not during_stay(ledger, "porto is dreamy", "user's sister", at(2023, 5, 14))


def test_a_trip_told_as_over_is_a_story_not_a_stay() -> None:
    said = "Max and I had a blast on our camping trip last summer. We hiked, swam, and made great memories."
    ops = propose(ListCandidates(), ("user", said))
    drafts = [op.draft for op in ops if op.draft is not None and op.draft.slot is None]
    assert len(drafts) == 1 and "camping trip" in drafts[0].text and "hiked, swam" in drafts[0].text
    assert "temporary" not in drafts[0].tags


def test_a_trip_that_still_holds_or_is_coming_is_a_stay() -> None:
    from memscribe.write.lite.cues import temporary

    assert temporary("I went on a work trip to Oslo and I'm still there")
    assert temporary("going on a trip to Japan next month")
    assert temporary("I'm on a business trip in Berlin this week")
    assert not temporary("the conference was great")
    # Staying where one is, is not a stay: "I'm staying in utrecht obviously", "staying put, renewed the lease"
    assert not temporary("I'm staying in utrecht obviously, someone has to keep an eye on mum")
    assert not temporary("so staying put, just renewed the lease on my place in chorlton")
    assert temporary("staying in lisbon for two weeks") and temporary("staying at my mum's while the floors dry")


def test_what_is_left_to_do_is_not_someone_leaving() -> None:
    from memscribe.write.lite.cues import ends

    for remaining in ("passed AUD and REG over the summer. only BEC left", "two weeks left to go", "no money left"):
        assert not ends(remaining)
    for leaving in ("I left Google", "she left.", "he left for Paris", "two of them left in March"):
        assert ends(leaving)
