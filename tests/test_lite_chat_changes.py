"""Changes told the way people type in chat: slang cues ("rn", "atm", "ditched", "swapped", "dumped", "upped"),
two words that end something, a subject left out ("living in …", "gave up on …"), a slot value named as ended, a
couple ended by the partner's name, what a doctor does to "my" medication, an employer typed in lowercase, an
activity moved to another time of day, coffee by its name."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_lite_support import told_in_turn

from memscribe import Memory
from memscribe.core.records import Owner
from memscribe.read.topics import topics_of
from memscribe.write.lite.memorable import drop_reason
from memscribe.write.lite.person import Referents, find_subject
from memscribe.write.lite.schedule import moved_days, without_old_day
from memscribe.write.lite.segment import Speaker
from memscribe.write.lite.slots import extract_facts
from memscribe.write.lite.tense import detect_tense

CASES = [
    ("I drive a Honda Civic, it's old but reliable.", "ditched the civic, biking everywhere", "Honda"),
    ("I live in Austin with my dog.", "living in denver rn, the mountains are unreal", "Austin"),
    ("I live in Austin with my dog.", "moved to denver atm, the mountains are unreal", "Austin"),
    ("My go-to drink is a flat white.", "switched to a cortado, way better", "flat white"),
    ("I'm dating Sam, he's great.", "dumped sam. moving on", "dating Sam"),
    ("I work at Google on the ads team.", "working at stripe now, way less meetings", "Google"),
    ("I'm learning Spanish on Duolingo", "gave up on spanish, doing italian instead", "learning Spanish"),
    ("we live in austin", "officially moved to nashville", "austin"),  # "Officially" is no one's name
    ("I'm married to Tom, 8 years this june.", "tom and I are divorced now. it's for the best", "married to"),
    ("My boyfriend is Jake.", "jake and I broke up last week", "boyfriend is Jake"),
    ("I take 20mg of lexapro every morning", "my doctor upped my lexapro to 30mg", "20mg"),  # the news is mine
    ("I'm a nurse at St. Mary's hospital.", "started at kaiser last week, the commute is so much better", "Mary"),
    ("I run every morning before work", "switched my runs to the evening, mornings are too cold", "every morning"),
    ("I go to the gym at 6am", "gym is at 7pm now, new shift", "6am"),
    ("I play soccer on Tuesdays", "soccer moved to thursdays this season", "Tuesdays"),  # "Soccer" is no one
    ("I swim at 7am before work", "swimming at lunchtime now, the pool is emptier", "7am"),
    ("I'm learning the violin", "switched from violin to cello, my teacher suggested it", "learning the violin"),
    ("My dog Pepper is a beagle mix.", "we had to put pepper down yesterday. 13 good years", "beagle mix"),
    ("I drink 3 coffees a day", "cut coffee completely, 2 weeks caffeine free", "3 coffees"),
    ("I weigh 95kg", "down to 88kg!! the running is working", "95kg"),
    ("I'm allergic to penicillin", "my doctor says it's not penicillin, it's amoxicillin", "to penicillin"),
    ("I'm engaged to Marcus!", "Marcus and I got married last weekend!!", "engaged"),
    ("My girlfriend Priya lives in Pune.", "priya and I split up in january", "girlfriend"),
    ("My best friend Kim works at Apple.", "kim got poached by Meta!!", "works at Apple"),
    ("I'm a Lakers fan.", "ok I'm a Celtics fan now, don't judge", "Lakers"),
    ("I have a goldfish named Bubbles.", "RIP bubbles 🐟 he had a good run", "goldfish named"),
    ("My go-to lunch spot is Chipotle.", "sweetgreen is my new go-to, chipotle got too expensive", "spot is Chipotle"),
    ("I'm a sophomore at NYU.", "I'm a junior now, time flies", "sophomore"),
    ("My dad lives in Lagos.", "dad moved back to abuja in october", "Lagos"),  # "dad" without "my"
    ("My fiancée is Grace.", "grace and I called off the wedding. it's over", "fiancée is"),
    ("I'm a product manager at Atlassian.", "new gig: I'm a PM at Canva now", "Atlassian"),
    ("My girlfriend Leah and I have been together 3 years", "leah dumped me. I'm wrecked", "girlfriend Leah"),
    ("I walk my dog Benny twice a day.", "benny crossed the rainbow bridge yesterday", "twice a day"),
    ("I commute by car.", "sold my car, I take the bus now", "by car"),  # what it replaces, read as said
    ("My manager is Ana.", "my new manager is Priya, Ana moved teams", "manager is Ana"),  # one at a time
    ("my favourite band is wolf alice", "boygenius has completely taken over from wolf alice as my #1 band",
     "wolf alice"),  # a favourite by its rank, and the one it took over from left out
]


@pytest.mark.parametrize(("before", "after", "stale"), CASES, ids=[c[1][:24] for c in CASES])
def test_a_change_typed_as_in_chat_replaces_the_old_value(tmp_path: Path, before: str, after: str,
                                                          stale: str) -> None:  # fmt: skip
    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        memory.add(before, user_id="u", timestamp="2024-01-10T10:00:00Z")
        result = memory.add(after, user_id="u", timestamp="2024-03-10T10:00:00Z")
        current = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert any(r["event"] in ("SUPERSEDE", "UPDATE") for r in result["results"]), result  # a correction updates
    assert not any(stale.lower() in text.lower() for text in current), current


def test_two_words_that_end_something_are_not_too_little() -> None:
    assert drop_reason("I quit.") == "too little content"
    assert drop_reason("quit smoking") != "too little content"
    assert drop_reason("dumped sam.") != "too little content"
    assert drop_reason("bad idea") == "too little content"  # nothing ended
    assert drop_reason("sold it") == "too little content"  # nothing named


def test_a_flat_white_is_a_coffee_and_a_flat_tyre_no_home() -> None:
    assert topics_of("my usual is an oat flat white") == {"habit"}
    assert "home" not in topics_of("got a flat tyre on the way")
    assert topics_of("our flat in Leeds is tiny") == {"home"}


def test_an_employer_name_with_an_abbreviation_is_whole() -> None:
    said = "I am a nurse at St. Mary's hospital."
    speaker = Speaker("user", "User", Owner.USER)
    facts = extract_facts(said, find_subject(said, speaker, Referents()), "user", detect_tense(said))
    assert ("employer", "st. mary's hospital") in {(f.attribute, f.value) for f in facts}


def test_a_time_of_day_moved_like_a_weekday() -> None:
    assert moved_days("switched my runs to the evening, mornings are too cold") == [("run", "evening")]
    assert moved_days("gym is at 7pm now, new shift") == [("gym", "7pm")]
    assert without_old_day("I go to the gym at 6am", "gym", "7pm") == ""
    assert without_old_day("I go to the gym at 7 pm", "gym", "7pm") is None  # the same time


def test_a_sentence_opened_by_an_adverb_or_a_name_and_a_date() -> None:
    speaker = Speaker("user", "User", Owner.USER)
    assert find_subject("Officially moved to nashville", speaker, Referents()) is None
    found = find_subject("Emma turned 5 on 9 March 2024, we did a unicorn party", speaker, Referents())
    assert found is not None and found.subject == "emma"


def test_a_count_in_words_is_a_number() -> None:
    from memscribe.read.traits import _read
    from memscribe.write.lite.topical import _measures

    assert _measures("our son was born!! two kids now") == {"kid": "2"}
    assert _read("two kids now").numeric and not _read("one of my friends").numeric


def test_someone_who_only_left_a_note_ends_nothing() -> None:
    from memscribe.write.lite.rules import PRE_RULES

    ended = [r for r in PRE_RULES if r.attribute == "partner" and r.ends]
    assert any(r.pattern.match("Sam left me.") for r in ended)
    assert not any(r.pattern.match("Sam left me a voicemail") for r in ended)


def test_a_title_is_no_name() -> None:
    said = "I am seeing Dr. Owens now"
    speaker = Speaker("user", "User", Owner.USER)
    facts = extract_facts(said, find_subject(said, speaker, Referents()), "user", detect_tense(said))
    assert not any(f.attribute == "partner" for f in facts)  # a doctor seen, no partner called "Dr"


def test_how_long_something_has_held_is_no_stay() -> None:
    from memscribe.write.lite.cues import temporary

    assert not temporary("the record has been on repeat for a month.")
    assert not temporary("vegan for 6 months now")
    assert temporary("she's in lisbon for two weeks")
    assert temporary("been staying with my parents for a few weeks")


@pytest.mark.parametrize(
    ("plan", "declined", "gone"),
    [("recruiter offered me a 13 week travel contract in Phoenix", "turned the phoenix thing down, I'd miss my people",
      "travel contract"),
     ("thinking seriously about moving to berlin.", "decided against berlin in the end", "moving to berlin")],
)  # fmt: skip
def test_a_plan_turned_down_is_no_longer_current(tmp_path: Path, plan: str, declined: str, gone: str) -> None:
    current, result = told_in_turn(tmp_path, "I live in manchester and work as a nurse", plan, declined)
    assert any("turned down" in (r.get("reason") or "") for r in result["results"]), result
    assert not any(gone.lower() in text.lower() for text in current), current
    assert any("manchester" in text for text in current), current


def test_a_refusal_that_names_nothing_of_a_plan_leaves_it(tmp_path: Path) -> None:
    current, _ = told_in_turn(tmp_path, "thinking about moving to berlin",
                              "the neighbours were blasting music so I turned it down for them")  # fmt: skip
    assert any("berlin" in text for text in current), current
