"""Corrections and forget requests recognised in a statement."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_lite_support import ListCandidates, at, say, told_in_turn

from memscribe.core.records import OpKind
from memscribe.write.lite.matching import stem
from memscribe.write.lite.requests import Correction, forget_attributes, parse_correction, parse_forget


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sorry, I meant 2017, not 2018", Correction("2017", "2018")),
        ("Sorry, I meant 2017", Correction("2017", None)),
        ("Actually it's Lisbon not Porto", Correction("Lisbon", "Porto")),
        ("Actually, I live in Lisbon, not Porto.", Correction("I live in Lisbon", "Porto")),
        ("No, not Tuesday, Wednesday", Correction("Wednesday", "Tuesday")),
        ("Correction: make that 3 kids", Correction("3 kids", None)),
        ("I meant Anna, not Anne", Correction("Anna", "Anne")),
        ("turns out it's not peanuts, it's tree nuts", Correction("tree nuts", "peanuts")),
        ("no, it was not Paris, it was Lyon", Correction("Lyon", "Paris")),
        ("actually they're not cats, they're rabbits", Correction("rabbits", "cats")),
        # what the speaker did before the dash is an aside; the value meant follows it
        ("wait no, just checked the letter — it's thursday the 16th, not tuesday.", Correction("thursday the 16th",
                                                                                           "tuesday")),
    ],
)
def test_corrections(text: str, expected: Correction) -> None:
    assert parse_correction(text) == expected


@pytest.mark.parametrize(
    "text",
    ["I like tea, not coffee", "Actually, I'm not a fan of sushi", "No, not really", "I went to Paris",
     "it's not the money, it's the principle", "turns out I love sushi", "turns out it's not that bad"],
)
def test_statements_that_are_not_corrections(text: str) -> None:
    assert parse_correction(text) is None


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("please don't keep my phone number", "my phone number"),
        ("Forget that I live in Oslo.", "I live in Oslo"),
        ("Can you forget about my ex?", "my ex"),
        ("Don't remember my address", "my address"),
        ("I don't want you to remember that I was sick", "I was sick"),
        ("Please delete what I said about my job.", "my job"),
        ("Oh, and forget that.", "that"),
        # after a short lead clause; the topic without what only points at it
        ("hey so kind of a weird one, can you forget the medication thing i said in that radiator convo?",
         "medication"),
        ("please forget everything I told you about my meds", "my meds"),
        ("ok, delete the diet stuff", "diet"),
        ("i don't really want that saved anywhere, felt weird after.", "that"),
        ("ei, esquece aquilo do meu aniversário, por favor?", "meu aniversário"),
        ("não quero isso salvo em lugar nenhum.", "that"),
        ("olvida lo de mi cumpleaños", "mi cumpleaños"),
        ("oublie ce que je t'ai dit sur mon salaire", "mon salaire"),
        ("vergiss das mit meinem geburtstag bitte", "meinem geburtstag"),
    ],
)
def test_forget_requests(text: str, topic: str) -> None:
    assert parse_forget(text) == topic


@pytest.mark.parametrize(
    "text",
    ["Forget it", "Don't forget to buy milk", "I forgot my keys", "Remember that I'm vegan",
     "I forget things, my memory is bad", "honestly i never forget a face, it is my thing",
     "the flat/address stuff is fine to keep",
     "we talked for hours about the new office, I said I'd forget the commute for a day"],
)
def test_statements_that_are_not_forget_requests(text: str) -> None:
    assert parse_forget(text) is None


def test_forget_topics_name_attributes() -> None:
    assert forget_attributes("my phone number") == ("phone",)
    assert forget_attributes("where I live") == ("residence",)
    assert forget_attributes("my job") == ("employer", "job_title")


@pytest.mark.parametrize(
    ("said", "stored"),
    [("plans", "planning"), ("stop", "stopped"), ("shop", "shopping"), ("fall", "falling"), ("add", "adding")],
)
def test_a_consonant_doubled_before_an_ending_stems_like_the_word(said: str, stored: str) -> None:
    assert stem(said) == stem(stored)


def test_forgetting_plans_reaches_what_is_being_planned() -> None:
    store = ListCandidates()
    say(store, "planning a surprise 40th for Marcel at the boathouse on the lake", at(2024, 3, 1))
    ops = say(store, "ok forget everything about the party plans", at(2024, 3, 5))
    assert [op.kind for op in ops] == [OpKind.DELETE]
    assert not store._current()


def test_a_forget_naming_part_of_a_memory_keeps_the_rest_in_its_words() -> None:
    store = ListCandidates()
    say(store, "I'm an architect, work is fine, but the panic attacks are back. my GP put me on sertraline 50mg, "
               "I'm on week one.", at(2024, 3, 1))  # fmt: skip
    ops = say(store, "please forget my meds and the panic stuff", at(2024, 3, 5))
    assert {op.kind for op in ops} == {OpKind.UPDATE}
    texts = [r.text for r in store._current()]
    assert any("architect" in t for t in texts)
    kept = " ".join(texts).lower()
    assert "panic" not in kept and "sertraline" not in kept and "50mg" not in kept
    for record in store._current():  # nor do the words as said or their topics travel with the new version
        assert "sertraline" not in str(record.metadata).lower() and "panic" not in str(record.metadata).lower()


def test_a_fact_the_forget_does_not_name_is_kept_in_the_words_that_name_it() -> None:
    store = ListCandidates()
    say(store, "planning a surprise 40th for my husband Marcel on 20 April at the boathouse.", at(2024, 3, 1))
    say(store, "ok forget the party plans", at(2024, 3, 5))
    texts = [r.text for r in store._current()]
    assert texts == ["my husband Marcel"]
    store = ListCandidates()
    say(store, "my son Theo just started 1st grade at Maplewood Elementary. his teacher seems great", at(2024, 3, 1))
    say(store, "can you forget which school Theo goes to?", at(2024, 3, 5))
    kept = " ".join(r.text for r in store._current())
    assert "Maplewood" not in kept and "my son Theo" in kept and "teacher seems great" in kept


@pytest.mark.parametrize(
    ("request_said", "left"),
    [
        ("please forget everything about my brother", ["I love hiking in the Peak District."]),
        ("forget about my brother tom", ["I love hiking in the Peak District."]),
        # Only what the request names: his job stays.
        ("forget that my brother lives in Leeds",
         ["I love hiking in the Peak District.", "Tom got a new job at IBM, so proud of him"]),
    ],
)  # fmt: skip
def test_forgetting_a_relative_reaches_the_memories_of_the_name_they_were_given(
    tmp_path, request_said: str, left: list[str]
) -> None:
    from memscribe import Memory

    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        memory.add("My brother Tom lives in Leeds.", user_id="u", timestamp="2024-01-10T10:00:00Z")
        memory.add("Tom got a new job at IBM, so proud of him", user_id="u", timestamp="2024-02-10T10:00:00Z")
        memory.add("I love hiking in the Peak District.", user_id="u", timestamp="2024-02-11T10:00:00Z")
        memory.add(request_said, user_id="u", timestamp="2024-03-10T10:00:00Z")
        current = sorted(row["memory"] for row in memory.list(user_id="u")["results"])
    assert current == sorted(left)


def test_a_correction_replaces_the_day_and_its_date_together(tmp_path: Path) -> None:
    current, _ = told_in_turn(tmp_path, "dentist appointment is tuesday the 14th at 3pm",
                              "wait no, just checked the letter — it's thursday the 16th, not tuesday.")  # fmt: skip
    assert any("thursday the 16th at 3pm" in text for text in current), current
    assert not any("14th" in text or "tuesday" in text for text in current), current


def test_a_chinese_forget_of_everything_about_someone_finds_them_by_character_pairs(tmp_path: Path) -> None:
    current, _ = told_in_turn(
        tmp_path, "救命，我前任陈凯又给我发消息了，说想复合", "对了我家柯基布丁最近掉毛掉疯了",
        "能不能把我前任的事都忘掉啊，名字啥的都别记了",
    )  # fmt: skip
    assert not any("陈凯" in t for t in current) and any("布丁" in t for t in current)


def test_a_forget_said_again_as_that_keeps_what_the_first_request_kept() -> None:
    """"esquece aquilo do meu aniversário. não quero isso salvo": the second sentence is the same request,
    not a second one about whatever was said last, and must not undo what the first kept."""
    store = ListCandidates()
    say(store, "tô fazendo low carb e sou alérgico a camarão, então nada de frutos do mar pfv. ah e meu "
               "aniversário é dia 22 de julho, quero fazer um churrasco", at(2024, 3, 1))  # fmt: skip
    ops = say(store, "ei, esquece aquilo do meu aniversário, por favor? não quero isso salvo em lugar nenhum.",
              at(2024, 3, 5))  # fmt: skip
    assert [op.kind for op in ops] == [OpKind.UPDATE]
    kept = " ".join(r.text for r in store._current())
    assert "camarão" in kept and "22 de julho" not in kept and "aniversário" not in kept
