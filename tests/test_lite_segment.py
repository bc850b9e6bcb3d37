"""Segmentation, speaker attribution, the memorability filter and third-person rewriting."""

from __future__ import annotations

import pytest
from test_lite_support import ListCandidates, at, episode, propose, say

from memscribe.core.records import Owner
from memscribe.write.lite.memorable import drop_reason, question_head, strip_preamble
from memscribe.write.lite.person import Referents, expand_contractions, find_subject, restore_subject
from memscribe.write.lite.rewrite import conjugate_third, to_third_person
from memscribe.write.lite.segment import Speaker, segment_episode, split_clauses, split_sentences

USER = Speaker("user", "User", Owner.USER)


def test_sentences_split_on_punctuation_but_not_abbreviations() -> None:
    text = "I saw Dr. Smith today. He said e.g. rest helps! Then I went home? Yes."
    assert split_sentences(text) == [
        "I saw Dr. Smith today.",
        "He said e.g. rest helps!",
        "Then I went home?",
        "Yes.",
    ]


def test_bullets_and_newlines_separate_statements() -> None:
    assert split_sentences("My plans:\n- adopt a dog\n- move to Lisbon") == [
        "My plans:",
        "adopt a dog",
        "move to Lisbon",
    ]


def test_a_dash_inside_a_line_joins_and_an_inline_bullet_glyph_separates() -> None:
    said = "I'm working on a new project - a thriller set in a small Midwestern town."
    assert split_sentences(said) == [said]
    assert split_sentences("Packing list • boots • a rain jacket") == ["Packing list", "boots", "a rain jacket"]


def test_first_person_clauses_split_but_compound_subjects_do_not() -> None:
    assert split_clauses("I moved to Sydney and I started at Atlassian") == [
        "I moved to Sydney",
        "I started at Atlassian",
    ]
    assert split_clauses("My sister and I went to Rome") == ["My sister and I went to Rome"]
    assert split_clauses("My mom is from Sweden and she moved here") == [
        "My mom is from Sweden",
        "She moved here",
    ]


def test_named_speakers_in_a_group_chat_are_the_subjects() -> None:
    ep = episode(("user", "Caroline", "I went hiking."), ("assistant", "Melanie", "I painted a lake."))
    statements = list(segment_episode(ep))
    assert [(s.speaker.subject, s.speaker.owner) for s in statements] == [
        ("caroline", Owner.USER),
        ("melanie", Owner.USER),
    ]
    assert statements[0].speaker.addressee == "Melanie"


def test_roles_decide_when_speakers_are_unnamed() -> None:
    ep = episode(("system", "Be nice."), ("user", "I live in Oslo."), ("assistant", "Great."), ("tool", "{}"))
    speakers = [(s.message_index, s.speaker.subject, s.speaker.owner) for s in segment_episode(ep)]
    assert speakers == [(1, "user", Owner.USER), (2, "assistant", Owner.AGENT)]


def test_lower_case_i_and_curly_quotes_are_normalised() -> None:
    ep = episode(("user", "i\u2019m from Lisbon and i love it"))
    assert [s.text for s in segment_episode(ep)] == ["I'm from Lisbon", "I love it"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Hi!", "empty"),
        ("Hey, how are you?", "question"),
        ("Good morning", "greeting"),
        ("See you later", "greeting"),
        ("Thanks so much!", "thanks"),
        ("Thank you, that helps a lot", "thanks"),
        ("What's your favourite movie?", "question"),
        ("Can you recommend a book", "question"),
        ("how do i boil an egg for a jammy yolk", "question"),
        ("what I should do about my visa", "question"),
        ("Okay", "filler"),
        ("Got it", "filler"),
        ("Sounds good", "filler"),
        ("lol", "filler"),
        ("That's awesome!", "filler"),
        ("I'm so happy for you!", "filler"),
        ("Good luck with the move!", "filler"),
        ("The concert in the park was amazing", "not about anyone"),
        ("My password is [REDACTED]", "secret"),
        ("ok 🙃 is that even legal?", "question"),  # too little before the emoji to be a statement
        ("what should I get her 🎁 any ideas?", "question"),
    ],
)
def test_greetings_thanks_questions_and_filler_are_dropped(text: str, reason: str) -> None:
    assert drop_reason(strip_preamble(text)) == reason


@pytest.mark.parametrize(
    "text",
    [
        "I live in Seattle",
        "My brother lives in Rome",
        "Priya works at Siemens",
        "I'm planning to adopt a dog",
        "We decided to get married next spring",
        "I love this band",
        "When I'm away from the court, cooking is therapy for me.",  # a clause, not a question
        "What I love most about Lisbon is the light",
        # a statement closed by an emoji, then the question it raises
        "my rent's going up to 1,975 starting august 🙃 that's like 7%??",
    ],
)
def test_facts_preferences_plans_and_relationships_are_kept(text: str) -> None:
    assert drop_reason(text) is None


def test_preambles_are_stripped() -> None:
    assert strip_preamble("Oh, by the way, remember that I'm vegan") == "I'm vegan"
    assert strip_preamble("Hey Mel, I went to a support group") == "I went to a support group"


def test_a_question_keeps_its_declarative_head() -> None:
    assert question_head("I just moved to Sydney, any tips?") == "I just moved to Sydney"
    assert question_head("Where should I go, Paris or Rome?") is None


def test_dropped_subjects_are_restored() -> None:
    assert restore_subject("Gonna check out career options") == "I am going to check out career options"
    assert restore_subject("Just got back from Paris") == "I just got back from Paris"
    assert restore_subject("The park was fun") == "The park was fun"


def _subject(text: str, refs: Referents | None = None) -> tuple[str, str] | None:
    mention = find_subject(expand_contractions(text), USER, refs or Referents())
    return None if mention is None else (mention.subject, mention.rest)


def test_subjects_first_person_relatives_names_and_pronouns() -> None:
    assert _subject("I live in Oslo") == ("user", "live in Oslo")
    assert _subject("My brother lives in Rome") == ("user's brother", "lives in Rome")
    assert _subject("Priya lives in Lisbon") == ("priya", "lives in Lisbon")
    assert _subject("Priya's favourite food is sushi") == ("priya", "my favourite food is sushi")
    assert _subject("Yesterday, I moved") == ("user", "moved")
    assert _subject("The weather is nice") is None


def test_a_holiday_is_nobody() -> None:
    assert _subject("Valentine's dinner ideas for my girlfriend Jess?") is None
    assert _subject("Christmas at my mum's was loud") is None
    refs = Referents()
    assert _subject("My sister Anna lives in Rome", refs) == ("anna", "lives in Rome")
    assert _subject("She works at Fiat", refs) == ("anna", "works at Fiat")
    assert _subject("My sister moved to Milan", refs) == ("anna", "moved to Milan")


def test_first_person_becomes_third_person() -> None:
    assert to_third_person("I live in Seattle", "User") == "User lives in Seattle"
    assert to_third_person("I'm vegan and I love my dog", "Caroline") == "Caroline is vegan and they love their dog"
    assert to_third_person("I really enjoy hiking", "User") == "User really enjoys hiking"
    assert to_third_person("I went to Paris", "User") == "User went to Paris"
    assert to_third_person("My brother visited me", "User") == "User's brother visited them"
    assert to_third_person("We went camping", "Melanie") == "Melanie: We went camping"


def test_you_is_the_other_person_in_a_two_person_chat() -> None:
    assert to_third_person("I saw you at the park", "Caroline", "Melanie") == "Caroline saw Melanie at the park"
    assert to_third_person("You are so kind", "Caroline", "Melanie") == "Melanie is so kind"


def test_conjugation() -> None:
    assert [conjugate_third(v) for v in ("live", "watch", "try", "play", "have", "go", "moved", "can")] == [
        "lives",
        "watches",
        "tries",
        "plays",
        "has",
        "goes",
        "moved",
        "can",
    ]


def test_a_contraction_typed_without_its_apostrophe_gets_it_back() -> None:
    from memscribe.write.lite.segment import normalise_chat

    said = "Im honestly thinking, i didnt know, Shes fine, theyre here, weve moved, DIDNT, dont worry"
    assert normalise_chat(said) == (
        "I'm honestly thinking, I didn't know, She's fine, they're here, we've moved, DIDN'T, don't worry"
    )
    # Words spelt like a contraction stay: "its" before a noun, "cant", "were" after its subject or asking.
    assert normalise_chat("its name, cant say, they were in Paris. Were you there?") == (
        "its name, cant say, they were in Paris. Were you there?"
    )
    # "its" before what only "it's" leads to.
    assert normalise_chat("turns out its not peanuts. its getting late, its officially over, its own thing") == (
        "turns out it's not peanuts. it's getting late, it's officially over, its own thing"
    )
    assert normalise_chat("left South San Francisco — were in Cambridge now") == (
        "left South San Francisco — we're in Cambridge now"
    )


def test_without_apostrophes_the_clause_after_but_is_still_its_own() -> None:
    ep = episode(("user", "I live in Berlin but Im honestly thinking about moving to Lisbon"))
    assert [s.text for s in segment_episode(ep)] == ["I live in Berlin", "I'm honestly thinking about moving to Lisbon"]


def test_a_relatives_name_typed_in_lowercase_gets_its_capital() -> None:
    from memscribe.write.lite.segment import normalise_chat

    assert normalise_chat("my boyfriend jake and I are going") == "my boyfriend Jake and I are going"
    assert normalise_chat("my son finn (4) goes to daycare") == "my son Finn (4) goes to daycare"
    assert normalise_chat("my best friend laia is moving") == "my best friend Laia is moving"
    # No name: a word that is not one, or no person's doing after it.
    for said in ("my son really likes it", "my mom always said so", "my sister is great", "my dad and I went"):
        assert normalise_chat(said) == said


@pytest.mark.parametrize(
    ("said", "sentences"),
    [
        ("did the thing: stepped down from team lead I'm a senior engineer again as of monday",
         ["did the thing: stepped down from team lead", "I'm a senior engineer again as of monday"]),
        ("the nashville experiment is over moved back to atlanta last weekend",
         ["the nashville experiment is over", "moved back to atlanta last weekend"]),
        ("no coffee for 3 weeks now switched to matcha", ["no coffee for 3 weeks now", "switched to matcha"]),
        ("jake and I broke up please just forget about him", ["jake and I broke up", "please just forget about him"]),
    ],
)  # fmt: skip
def test_a_clause_run_on_without_a_full_stop_is_its_own_sentence(said: str, sentences: list[str]) -> None:
    assert split_sentences(said) == sentences


@pytest.mark.parametrize(
    "said",
    [
        "the car I bought last year is great",  # a relative clause: nothing before it stands alone
        "I think I will go back",  # tied by the word before
        "so glad I went to the show",
        "how do I fit in a run",
        "I've been telling everyone she's a beagle",
        "my sister has moved to Boston",
        "and pottery moved to wednesdays",  # the subject is in the same part
        "dentist at 10, and pottery moved to wednesdays",
        "a lot of people moved here",
        "packing list pls",
    ],
)
def test_a_clause_tied_to_the_words_before_it_is_not_run_on(said: str) -> None:
    assert split_sentences(said) == [said]


def test_run_on_sentences_are_kept_as_said_in_one_memory() -> None:
    ep = episode(("user", "we got a puppy last week I'm so tired lol"))
    statements = list(segment_episode(ep))
    assert [(s.text, s.runs_on) for s in statements] == [
        ("We got a puppy last week", False),
        ("I'm so tired lol", True),
    ]


def test_a_change_run_on_without_punctuation_replaces_the_old_value_and_keeps_the_words(tmp_path) -> None:
    from memscribe import Memory

    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        memory.add("team lead for 7 backend devs now, I barely code", user_id="u")
        memory.add("we adopted a puppy named Biscuit I'm so tired lol", user_id="u")
        memory.add("did the thing: stepped down from team lead I'm a senior backend engineer again", user_id="u")
        current = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert "we adopted a puppy named Biscuit I'm so tired lol" in current  # as said: no full stop put between
    assert any("senior backend engineer" in text for text in current)
    assert not any("team lead" in text for text in current), current


def test_clauses_of_one_sentence_kept_together_read_as_said() -> None:
    from memscribe.write.lite.writer import _clauses_as_said

    ep = episode(("user", "I moved to Leeds so my sister is happy and I started at Asda"))
    statements = list(segment_episode(ep))
    assert [s.text for s in statements] == ["I moved to Leeds", "My sister is happy", "I started at Asda"]
    assert _clauses_as_said(statements, statements[1:]) == "my sister is happy and I started at Asda"
    assert _clauses_as_said(statements, statements[:1]) == "I moved to Leeds"
    # Clauses apart are kept as split, a sentence each.
    assert _clauses_as_said(statements, [statements[0], statements[2]]) == "I moved to Leeds. I started at Asda"


def test_a_name_typed_lowercase_is_a_person_once_named_as_one() -> None:
    # After a relation word, before a verb or a comma: "my boyfriend sem just accepted an offer"
    said = "my boyfriend sem just accepted an offer at philips"
    assert _subject(said) == ("sem", "just accepted an offer at philips")
    assert _subject("my sister lives in leeds") == ("user's sister", "lives in leeds")  # a verb is no name
    assert _subject("my brother tho, he is great")[0] == "user's brother"  # type: ignore[index]
    # At the start of a statement, only someone named before: in the episode or in what is stored
    refs = Referents()
    _subject("my brother kofi, he is 34", refs)
    assert _subject("kofi is moving to toronto!!!", refs) == ("kofi", "is moving to toronto!!!")
    assert _subject("anyway kofi says hi", refs) == ("kofi", "says hi")
    assert _subject("reading is my thing now", refs) is None
    stored = Referents(known=lambda word: word == "saskia")
    said = "also saskia sent a pic from her new balcony"
    assert _subject(said, stored) == ("saskia", "sent a pic from my new balcony")
    assert _subject(said, Referents()) is None


def test_a_person_named_in_an_earlier_session_is_known_in_a_later_one() -> None:
    store = ListCandidates()
    say(store, "need a birthday present for my brother kofi, he's 34, obsessed with f1", at(2022, 3, 1))
    ops = propose(store, ("user", "kofi got a job in toronto!!! mum is devastated"), when=at(2022, 5, 2))
    assert any(op.draft is not None and op.draft.subject == "kofi" and "toronto" in op.draft.text for op in ops)
