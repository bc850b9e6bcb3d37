"""Readings that used to go wrong: a comparison read as liking, a time unit read as a topic, an unnamed "he"
in the speaker's own story read as someone else."""

from __future__ import annotations

from test_lite_support import ListCandidates, propose

from memscribe.read.topics import topics_of


def test_is_like_compares_and_is_not_liking() -> None:
    ops = propose(ListCandidates(), ("user", "nope, staff nurse now. partner is like 2 years off, maybe"))
    drafts = [op.draft for op in ops if op.draft is not None]
    assert drafts and all("likes" not in (d.slot or "") for d in drafts)
    assert all(d.subject == "user" for d in drafts)


def test_a_time_unit_names_no_topic() -> None:
    assert "education" not in topics_of("we got a 3 year old beagle mix from the rescue")
    assert "education" in topics_of("I transferred to a new university this semester")


def test_an_unnamed_he_in_the_speakers_story_is_the_speakers_memory() -> None:
    ops = propose(ListCandidates(), ("user", "he's back!! we named him Biscuit, and I think he likes the garden."))
    drafts = [op.draft for op in ops if op.draft is not None and "Biscuit" in op.draft.text]
    assert drafts and drafts[0].subject == "user"
    alone = propose(ListCandidates(), ("user", "she's all settled in the new flat."))
    assert any(op.draft is not None and op.draft.subject != "user" for op in alone)


def test_where_the_speaker_is_now_named_is_said_of_home() -> None:
    assert "home" in topics_of("we finally got out — we're in Cambridge now, the Massachusetts one")
    assert "home" in topics_of("now based in Lisbon, the light here is unreal")
    assert "home" not in topics_of("I'm in Paris for the conference")  # a visit, by its purpose
    # A place typed lowercase, in any of the languages read: where the speaker is
    assert "home" in topics_of("haha we're in wellington 😅 (lower hutt to be precise)")
    assert "home" in topics_of("I'm in manchester atm and the rain is really getting to me")
    assert "home" in topics_of("ah non je suis à grenoble moi")
    for not_a_place in ("I'm in love", "we're in the middle of packing", "I'm in bed already", "I'm in March"):
        assert "home" not in topics_of(not_a_place)
    assert "home" not in topics_of("we're in lisbon till friday, then porto")
    assert "language" not in topics_of("explain what a VPN does in plain english")


def test_an_answer_naming_no_topic_takes_the_topic_of_what_it_answers() -> None:
    ops = propose(ListCandidates(), ("user", "we did it. we actually moved."),
                  ("assistant", "Oh wow, congratulations! Where did you end up?"),
                  ("user", "vancouver! well, burnaby technically, but close enough."))  # fmt: skip
    answer = next(op.draft for op in ops if op.draft is not None and "burnaby" in op.draft.text)
    assert answer.metadata.get("topics") == ["home"]
    asked = propose(ListCandidates(), ("assistant", "What kind of place are you looking for?"),
                    ("user", "two bedrooms near a park, ideally"))  # fmt: skip
    assert all("topics" not in op.draft.metadata for op in asked if op.draft is not None)  # nothing to inherit
    told = propose(ListCandidates(), ("assistant", "Nice! Anything else new?"), ("user", "I adopted a cat"))
    assert [op.draft.metadata.get("topics") for op in told if op.draft is not None] == [["pet"]]  # its own


def test_a_word_of_another_language_that_is_also_english_names_no_topic() -> None:
    assert "children" not in topics_of("she's so kind, and what kind of place is it")
    assert "pet" not in topics_of("let's chat later about the trip")
    assert "children" in topics_of("mein Sohn ist fünf") and "pet" in topics_of("mon chien s'appelle Rex")


def test_an_english_word_among_chinese_names_its_topic() -> None:
    assert "work" in topics_of("妹妹毕业啦！拿到了腾讯的offer")


def test_a_home_told_by_moving_in_or_by_being_a_resident_is_on_the_home_topic() -> None:
    for text in ("my commute is 9 minutes now that I'm in the new place by the park", "we made it!! unpacking is hell",
                 "officially a Leeds resident now lol"):  # fmt: skip
        assert "home" in topics_of(text), text
    assert "home" not in topics_of("a new place for brunch opened by the station")
