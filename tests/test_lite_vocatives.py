"""Names used only to address a participant are not part of a statement; a photo's caption stays with its
sentence."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.core.records import Episode, Message, Scope
from memscribe.write.lite.segment import group_units, participant_names, segment_episode, without_vocative

NAMES = ("Imogen", "Rafael")


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Wow, Imogen!", "Wow!"),
        ("Wow, Imogen, that's brilliant.", "Wow, that's brilliant."),
        ("Hey Raf, sorry about the ferry.", "Hey, sorry about the ferry."),
        ("Sounds lovely, Imo.", "Sounds lovely."),
        ("Rafael, I got the scholarship!", "I got the scholarship!"),
        ("Thanks, my friend Imogen!", "Thanks!"),
        ("Thank you, Imogen, for everything.", "Thank you for everything."),
        ("Thanks, Raf, for the lift.", "Thanks for the lift."),
    ],
)
def test_a_name_that_only_addresses_someone_is_left_out(said: str, kept: str) -> None:
    assert without_vocative(said, NAMES) == kept


@pytest.mark.parametrize(
    "said", ["Imogen moved to Porto in May.", "I told Rafael about the job.", "I had lunch with Imogen."]
)
def test_a_name_that_is_part_of_what_is_said_stays(said: str) -> None:
    assert without_vocative(said, NAMES) == said


def test_without_participants_nothing_changes() -> None:
    assert without_vocative("Wow, Imogen!", ()) == "Wow, Imogen!"


def _episode(*turns: tuple[str, str]) -> Episode:
    when = datetime(2024, 5, 2, 15, tzinfo=UTC)
    messages = tuple(Message(role="user", content=text, name=name) for name, text in turns)
    return Episode(
        id="e1", scope=Scope(user_id="u"), messages=messages, timestamp=when, source="api", idempotency_key="k1"
    )


def test_participants_go_by_every_word_of_their_names() -> None:
    episode = _episode(("Imogen Hart", "Hi!"), ("Rafael", "Hey!"))
    assert participant_names(episode.messages) == ("Hart", "Imogen", "Rafael")


def test_statements_of_a_chat_leave_the_addressee_out() -> None:
    episode = _episode(
        ("Imogen", "Hi!"), ("Rafael", "Wow, Imogen, that's brilliant. I passed my driving test on Friday, Imo!")
    )
    texts = [s.whole for s in segment_episode(episode)]
    assert texts == ["Hi!", "Wow, that's brilliant.", "I passed my driving test on Friday!"]


def test_a_caption_joins_the_sentence_it_illustrates() -> None:
    long_story = "We spent the whole weekend at the lake house with my cousins and their two dogs."
    episode = _episode(("Imogen", f"{long_story} I finally finished my first oil painting of the pier. "
                                  "[shares a photo: a painting of a wooden pier at sunset]"))  # fmt: skip
    units = group_units(list(segment_episode(episode)))
    caption = "[shares a photo: a painting of a wooden pier at sunset]"
    assert units[-1].text().endswith(f"oil painting of the pier. {caption}")


def test_the_stored_memory_does_not_carry_the_addressee(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    memory.add([{"role": "user", "name": "Imogen", "content": "I adopted a greyhound called Pip last week!"},
                {"role": "user", "name": "Rafael", "content": "Wow, Imogen, that's amazing!"},
                {"role": "user", "name": "Rafael", "content": "Hey Imogen, I started a pottery course in Leeds."}],
               user_id="u", timestamp=datetime(2024, 5, 2, tzinfo=UTC))  # fmt: skip
    texts = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert texts and not any("Imogen" in t for t in texts)
    assert any("pottery course in Leeds" in t for t in texts) and any("greyhound called Pip" in t for t in texts)
    memory.close()


def test_a_story_that_changes_nothing_is_kept_as_one_thought() -> None:
    story = ("We spent the whole weekend at the lake house with my cousins. The kids built a raft out of old "
             "pallets and paddled it to the island. I painted the sunset from the jetty while they swam.")  # fmt: skip
    units = group_units(list(segment_episode(_episode(("Imogen", story)))))
    assert len(units) == 1 and units[0].text() == story


def test_a_story_told_with_change_words_on_no_attribute_stays_whole() -> None:
    # "finally", "made" and "new" say nothing changed in an attribute: the pots stay with the workshop.
    story = ("Hey Rafael, it's been super busy here. So much since we talked! Last Fri I finally took my kids "
             "to a pottery workshop. We all made our own pots, it was fun and therapeutic! Next time I'll try "
             "something new.")  # fmt: skip
    units = group_units(list(segment_episode(_episode(("Imogen", story)))))
    assert len(units) == 1 and "pottery workshop. We all made our own pots" in units[0].text()


def test_the_people_of_the_speakers_story_keep_it_whole_and_someone_else_splits_it() -> None:
    story = ("Last Friday I went to an LGBTQ+ counseling workshop and it was really enlightening for me. "
             "They talked about different therapeutic methods and how to best work with trans people. "
             "I took pages of notes on all of it.")  # fmt: skip
    assert len(group_units(list(segment_episode(_episode(("Imogen", story)))))) == 1
    other = ("She's all settled, she sent me pics of her place in Capitol Hill and it's adorable. "
             "Meanwhile I'm still sweating away here in my tiny un-air-conditioned flat in Providence, "
             "send help.")  # fmt: skip
    assert len(group_units(list(segment_episode(_episode(("Imogen", other)))))) == 2


def test_a_message_that_changes_a_value_is_still_split_by_sentence() -> None:
    story = (
        "We spent the whole weekend at the lake house with my cousins and their two dogs. "
        "Also I moved to Leeds last month and the new flat is tiny but bright and close to the station."
    )
    units = group_units(list(segment_episode(_episode(("Imogen", story)))))
    assert len(units) == 2 and units[1].text().startswith("Also I moved to Leeds")


def test_a_story_about_two_attributes_is_split_so_each_can_be_replaced_alone() -> None:
    story = (
        "The puppy chewed through the sofa cushions again. "
        "Our landlord came round on Sunday to look at the flat and the old boiler. "
        "My manager at the bakery let me leave early so I could be there."
    )
    units = group_units(list(segment_episode(_episode(("Imogen", story)))))
    assert len(units) > 1


def test_a_sentence_that_repeats_a_topic_keeps_the_story_whole() -> None:
    # The first sentence names home ("neighborhood") and money ("paid"), the third money again: one story.
    story = ("I paid for a 5K charity run in our neighborhood. It was all for a good cause - to help out "
             "veterans and their families. We were able to raise some money! Here is a pic from the day.")  # fmt: skip
    units = group_units(list(segment_episode(_episode(("Imogen", story)))))
    assert [u.text() for u in units] == [story]


def test_sentences_on_two_different_attributes_are_kept_apart() -> None:
    story = ("We finally moved into a flat in Leeds close to the station and the canal. "
             "I also started my new job as a nurse at the children's hospital on the other side of town.")  # fmt: skip
    assert len(group_units(list(segment_episode(_episode(("Imogen", story)))))) == 2


def test_lines_kept_in_one_memory_do_not_run_together(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    memory.add("we went hiking in the Alps\nit was amazing, the views were unreal", user_id="u",
               timestamp=datetime(2024, 3, 1, tzinfo=UTC))  # fmt: skip
    texts = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert texts == ["we went hiking in the Alps. it was amazing, the views were unreal"]
    memory.close()
