"""Ways people say things that the lite writer reads alike: an organisation after "the", a value set against
the old one with a word between, a message typed in capitals."""

from __future__ import annotations

from test_lite_support import ListCandidates, at, say

from memscribe.write.lite.language import someone_else
from memscribe.write.lite.requests import Correction, parse_embedded_correction


def _facts(store: ListCandidates) -> set[tuple[str, str | None, str | None]]:
    return {(r.subject, r.slot, r.value) for r in store._current() if r.slot}


def _said_alone(said: str) -> set[tuple[str, str | None, str | None]]:
    store = ListCandidates()
    say(store, said, at(2024, 3, 5))
    return _facts(store)


def _reads(slot: str, cases: tuple[tuple[str, str], ...], never: tuple[str, ...]) -> None:
    """Each statement of ``cases``, said alone, holds the user's ``slot`` fact; none of ``never`` holds any."""
    for said, value in cases:
        assert ("user", f"user/{slot}", value) in _said_alone(said), said
    for said in never:
        assert not any(s == f"user/{slot}" for _, s, _ in _said_alone(said)), said


def test_an_employer_named_with_the_article_is_an_employer() -> None:
    _reads("employer", (("I got a job at the BBC", "bbc"), ("I joined the NHS in march", "nhs"),
                        ("just got hired by the World Bank!!", "world bank"), ("I got the job at Arup 🎉", "arup"),
                        ("finally accepted the position at Deloitte", "deloitte")),
           never=("I joined the gym last week",))  # fmt: skip


def test_a_partners_new_job_is_theirs() -> None:
    store = ListCandidates()
    say(store, "my husband Tom got the job at the BBC in Salford!!! he starts in May", at(2023, 4, 4))
    facts = _facts(store)
    assert ("tom", "tom/employer", "bbc") in facts and ("user", "user/partner", "tom") in facts
    assert not any(slot == "user/employer" for _, slot, _ in facts)


def test_a_value_set_against_the_old_one_with_a_word_between_is_put_right() -> None:
    fixed = parse_embedded_correction("back in leeds, chapel allerton this time not hyde park, too old for it")
    assert fixed == Correction("chapel allerton", "hyde park")
    assert parse_embedded_correction("we're in wellington now not auckland") == Correction("wellington", "auckland")
    store = ListCandidates()
    say(store, "I live in leeds, hyde park", at(2023, 1, 5))
    say(store, "ok did it lol. back in leeds, chapel allerton this time not hyde park 😂 new flat has a bath!!",
        at(2023, 6, 5))  # fmt: skip
    texts = " | ".join(r.text for r in store._current())
    assert "chapel allerton" in texts and "this time" not in texts.replace("allerton this time", "")


def test_a_message_in_capitals_is_read_as_the_speakers_own() -> None:
    assert someone_else("THEY OFFERED ME A FULL-TIME CONTRACT") is None
    assert someone_else("they called and i'm starting monday") is None
    assert someone_else("they moved to Leeds last year") == "someone"


def test_an_address_is_known_by_its_shape_and_forgotten_by_its_name() -> None:
    from memscribe.read.topics import shaped_topics

    for said in ("new one is 17 Alder Crescent, Hove, BN3 7QX.", "1420 Oak Lane, Portland, OR 97214",
                 "Hauptstraße 12, Berlin", "我住在南京西路1266号", "send it to M5V 2T6 please"):  # fmt: skip
        assert "address" in shaped_topics(said), said
    for said in ("I scored 10 in the DE 12345 test", "the M4 was jammed", "I take 50 mg of it"):
        assert "address" not in shaped_topics(said), said
    store = ListCandidates()
    say(store, "new one is 17 Alder Crescent, Hove, BN3 7QX. me and my cat Biscuit finally have a garden 🐈",
        at(2023, 6, 5))  # fmt: skip
    say(store, "pls forget my actual street address, i shouldnt have typed it. you can keep that i live in hove tho",
        at(2023, 8, 10))  # fmt: skip
    texts = " | ".join(r.text for r in store._current())
    assert "Alder" not in texts and "7QX" not in texts and "Biscuit" in texts


def test_rather_that_was_not_saved_is_a_forget_request_in_each_language() -> None:
    from memscribe.write.lite.requests import parse_forget

    for said in ("Prefiro que isso não fique salvo em lugar nenhum por enquanto.", "i'd rather that wasn't saved tbh",
                 "prefiero que eso no quede guardado", "je préfère que ça ne soit pas enregistré"):  # fmt: skip
        assert parse_forget(said) == "that", said
    for said in ("I'd prefer that it rains", "prefiro que isso não seja um problema", "I'd rather stay in tonight"):
        assert parse_forget(said) is None, said
    store = ListCandidates()
    say(store, "Tô grávida de 10 semanas 🥹 ainda não contei pra ninguém. Prefiro que isso não fique salvo.",
        at(2023, 4, 11))  # fmt: skip
    assert not any("grávida" in r.text for r in store._current())


def test_forget_that_at_the_end_of_a_message_takes_back_what_the_message_said() -> None:
    store = ListCandidates()
    say(store, "my sister lives in leeds", at(2023, 4, 1))
    say(store, "I'm 10 weeks pregnant 🥹 haven't told anyone at work yet. please forget that.", at(2023, 4, 11))
    assert [r.text for r in store._current()] == ["my sister lives in leeds"]


def test_a_cue_word_with_an_s_after_its_apostrophe_is_still_the_cue() -> None:
    from memscribe.read.topics import topics_of

    assert "hobby" in topics_of("new schedule: gym's in the evenings after work now")


def test_where_one_is_based_or_found_a_room_is_where_one_lives() -> None:
    _reads("residence", (("ciao! based in turin, I fix bikes at a little shop", "turin"),
                         ("now based in Leeds", "leeds"), ("already found a WG room in neukölln.", "neukölln"),
                         ("got a tiny studio in Brixton", "brixton")),
           never=("I found a place in Paris for the trip", "based on your advice I'll go"))  # fmt: skip


def test_what_the_old_time_or_thing_was_is_left_out_beside_what_is_now() -> None:
    from memscribe.write.lite.residue import drop_old_values

    older = ["gym mornings before work at 6:30"]
    said = "new year new schedule: gym's in the evenings after work now, the 6:30am thing was destroying me lol."
    assert drop_old_values(said, older, older, older) == "new year new schedule: gym's in the evenings after work now."
    older = ["my 2014 VW Golf failed its MOT again 🙃 £900 of work."]
    said = "sold the golf for £3.2k (failed MOT and all lol) and picked up a used Tesla Model 3 ⚡ how do chargers work"
    # the price is no new value, the aside goes with its clause, a number's decimal point ends no clause
    assert drop_old_values(said, older, older, older) == "picked up a used Tesla Model 3 ⚡ how do chargers work"
    older = ["my 2014 fiesta failed its MOT"]
    said = "did it!! sold the fiesta for £2.1k and picked up a 2020 kia e-niro this morning, blue, 27k miles"
    kept = "did it!! picked up a 2020 kia e-niro this morning, blue, 27k miles"
    assert drop_old_values(said, older, older, older) == kept


def test_a_year_of_study_is_about_education() -> None:
    from memscribe.read.topics import topics_of

    for said in ("sophomore mech e at purdue and thermo is destroying me", "my dissertation is due in may",
                 "freshman year was rough"):  # fmt: skip
        assert "education" in topics_of(said), said


def test_what_a_chinese_change_moved_from_is_left_out_of_the_current_text() -> None:
    from memscribe.write.lite.writer import without_old_value

    assert without_old_value("我老公刚从腾讯跳槽去华为了，工资涨了不少") == "我老公刚跳槽去华为了，工资涨了不少"
    assert without_old_value("我从北京搬到成都了") == "我搬到成都了"
    for said in ("从小到大我都喜欢猫", "我是从朋友那里听说的"):  # "from" that leaves nothing behind
        assert without_old_value(said) == said


def test_a_favourite_said_without_my_or_with_where_it_holds_is_a_favourite() -> None:
    said_as = (("fave restaurant in london is Dishoom, we go every birthday", "user/favorite_restaurant", "dishoom"),
               ("favourite band right now is Wet Leg", "user/favorite_band", "wet leg"),
               ("my go-to coffee at work is a flat white", "user/favorite_coffee", "a flat white"))
    for said, slot, value in said_as:
        store = ListCandidates()
        say(store, said, at(2024, 3, 5))
        facts = _facts(store)
        assert any(s == slot and (v or "").endswith(value.split()[-1]) for _, s, v in facts), (said, facts)


def test_a_chinese_statement_closed_by_a_space_before_its_question_is_kept() -> None:
    from memscribe.write.lite.language import statement_drop_reason

    said = "房东说续租要涨到 4200 气死了 😤 算了懒得搬 搬家太累了 重新帮我算算每个月能存多少吧 工资没变"
    assert statement_drop_reason(said) is None
    assert statement_drop_reason("周末去哪玩？") == "question"
    store = ListCandidates()
    say(store, said, at(2024, 2, 20))
    assert any("4200" in r.text for r in store._current())


def test_a_chinese_forget_request_may_name_its_topic_first() -> None:
    from memscribe.write.lite.requests import parse_forget

    assert parse_forget("对了 昨天说的工资能帮我忘掉吗 感觉存着怪怪的 别记住哈 谢啦") == "工资"
    assert parse_forget("能不能把我前任的事都忘掉啊，名字啥的都别记了") == "我前任"
    for said in ("我忘了带伞", "别忘了提醒我明天开会"):
        assert parse_forget(said) is None, said
    store = ListCandidates()
    say(store, "帮我算算到手多少钱呀 我现在在深圳做产品经理 月薪 18k 税前", at(2023, 5, 20))
    say(store, "对了 昨天说的工资能帮我忘掉吗 感觉存着怪怪的", at(2023, 5, 21))
    assert not any("18k" in r.text for r in store._current())


def test_what_was_swapped_or_paused_is_no_current_value() -> None:
    from memscribe.write.lite.residue import drop_old_values
    from memscribe.write.lite.writer import without_old_value

    assert without_old_value("update: swapped all my coffees for matcha 🍵 sleeping better") == (
        "update: swapped for matcha 🍵 sleeping better"
    )
    assert without_old_value("I swapped shifts with Jo") == "I swapped shifts with Jo"
    older = ["learning german for a potential job move"]
    said = "the job is in amsterdam 🙃 so I've paused german and switched to dutch on duolingo."
    assert drop_old_values(said, older, older, older) == "the job is in amsterdam 🙃 switched to dutch on duolingo."


def test_a_short_statement_that_holds_a_level_is_no_fragment_and_is_about_languages() -> None:
    from memscribe.read.topics import topics_of
    from memscribe.read.traits import _fragment

    assert not _fragment("passed B1!!!") and not _fragment("got a 2:1") and _fragment("lol ok")
    # the verbless tail of a question is a fragment; a short statement with a verb or a speaker is not
    assert _fragment("broke college kid edition") and not _fragment("adopted a rescue greyhound")
    assert not _fragment("my sister's new flat") and not _fragment("started pottery classes")
    assert "language" in topics_of("passed B1!!!") and "language" in topics_of("JLPT N4 next")
    assert "language" not in topics_of("took the B2 bus") and "language" not in topics_of("A1 sauce")


def test_an_acronym_one_works_at_as_an_analyst_is_no_school_and_here_ends_a_value() -> None:
    store = ListCandidates()
    say(store, "just started at BMW as a junior analyst", at(2022, 8, 15))
    facts = _facts(store)
    assert ("user", "user/employer", "bmw") in facts and not any(s == "user/school" for _, s, _ in facts)
    store = ListCandidates()
    say(store, "I'm a data analyst at Zalando here in Berlin.", at(2024, 2, 10))
    assert ("user", "user/employer", "zalando") in _facts(store)


def test_an_old_chat_imported_late_keeps_what_still_holds_current() -> None:
    store = ListCandidates()
    say(store, "moved to hamburg in April 2024 🙌", at(2024, 5, 1))
    say(store, "I live in munich 🚗 big week: my brother Jonas just got married to Mia!!", at(2022, 8, 15))
    current = [r for r in store._current() if r.valid_to is None]
    assert any("Mia" in r.text and "munich" not in r.text for r in current)
    assert not any("munich" in r.text for r in current)


def test_an_aside_in_brackets_stays_whole() -> None:
    from memscribe.write.lite.phrases import drop_old_phrases
    from memscribe.write.lite.residue import still_holds
    from memscribe.write.lite.segment import split_sentences

    assert split_sentences("our anniversary is on 14 June (tin anniversary apparently?? lol). she loves views.") == [
        "our anniversary is on 14 June (tin anniversary apparently?? lol).", "she loves views."]  # fmt: skip
    said = "at intercom the rota lives in a google sheet (dont ask why, nobody knows) and every monday I copy it"
    rest = still_holds(said, lambda clause: "intercom" in clause)
    assert rest is None or (rest.count("(") == rest.count(")") and not rest.startswith(("dont", "nobody")))
    # "not" opening a statement puts nothing right: only a value before it does
    said = "not planning anything permanent, just a change of scene."
    assert drop_old_phrases(said, ["planning a trip to mexico city"]) == said
    assert drop_old_phrases("ah non je suis à grenoble moi 😅 pas lyon", ["j'habite à lyon"]) == (
        "ah non je suis à grenoble moi 😅")


def test_a_title_without_an_article_and_the_speakers_clause_after_someone_elses() -> None:
    _reads("job_title", (("update: they've made it official, I'm design lead now!!", "design lead"),
                         ("I'm head of design at Monzo", "head of design"), ("I'm senior PM these days", "senior pm")),
           never=("we're in the lead after round two",))  # fmt: skip


def test_an_emoji_closes_the_clause_that_names_what_was_replaced() -> None:
    from memscribe.write.lite.residue import drop_old_values

    said = "ok dishoom has officially been dethroned 👑 kricket is my new favourite, the samphire pakoras omg."
    older = ["fave restaurant in london is Dishoom"]
    assert drop_old_values(said, [], older, []) == "kricket is my new favourite, the samphire pakoras omg."
    said = "we adopted a retired greyhound!!! his racing name was 'Swift Lightning' 💀 but we call him pilot."
    assert drop_old_values(said, [], [], []) == "we adopted a retired greyhound!!! we call him pilot."


def test_an_offer_said_to_be_taken_is_no_what_if() -> None:
    from memscribe.write.lite.cues import hypothetical

    assert not hypothetical("THEY OFFERED ME A FULL-TIME CONTRACT 🎉🎉 not going back to turin, already found a room")
    assert not hypothetical("they offered me a job and I accepted")
    assert hypothetical("they offered me the job but not sure yet")
    assert hypothetical("thinking about moving, they offered me a place")
