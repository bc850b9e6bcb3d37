"""A change leaves the old value out of the current memory; forgets, measures and Chinese stays.

Chats written for these tests: a statement that replaces a value often names the old one ("sad to leave
Milan"), and that clause must not make the current memory carry the stale value.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from test_lite_support import ListCandidates, at, propose, say, told_in_turn

from memscribe import Memory
from memscribe.core.records import OpKind
from memscribe.types import MemoryItem
from memscribe.write.lite.cjk_time import cjk_stay_until
from memscribe.write.lite.residue import drop_old_values
from memscribe.write.lite.writer import without_old_value


def test_a_clause_that_ends_an_older_value_is_left_out() -> None:
    text = "new job in Porto starts soon!! found a flat in Bonfim. sad to leave Lyon but the rent is half"
    assert drop_old_values(text, ["I live in Lyon, near the river"]) == (
        "new job in Porto starts soon!! found a flat in Bonfim. the rent is half"
    )


def test_a_negated_old_value_is_left_out_and_the_new_one_kept() -> None:
    kept = drop_old_values("tests are in: it's coeliac, not lactose at all. so I'm off gluten now",
                           ["I'm lactose intolerant"])  # fmt: skip
    assert "lactose" not in kept and "coeliac" in kept and "off gluten" in kept


def test_the_left_side_of_an_arrow_is_the_old_value() -> None:
    assert drop_old_values("back to my maiden name. so Ana Reis → Ana Costa.", []) == (
        "back to my maiden name. Ana Costa."
    )


def test_a_clause_with_a_new_day_or_number_is_kept() -> None:
    text = "new schedule: I get them mondays and thursdays now, plus alternate weekends"
    assert drop_old_values(text, ["I pick them up on thursdays, not mondays"]) == text


def test_nothing_is_left_out_without_an_end_or_without_anything_new() -> None:
    assert drop_old_values("I still love Lyon, the food is great", ["I live in Lyon"]) == (
        "I still love Lyon, the food is great"
    )
    assert drop_old_values("I left Lyon", ["I live in Lyon"]) == "I left Lyon"
    assert drop_old_values("I gave up knitting, it just wasn't for me", [], [], ["I love knitting"]) == (
        "I gave up knitting, it just wasn't for me"
    )


def test_a_chinese_clause_that_ends_an_older_value_is_left_out() -> None:
    kept = drop_old_values("跟你说，我已经从腾讯离职了，下个月去美团报到", [], ["在腾讯做后端两年了"])
    assert "腾讯" not in kept and "美团" in kept


def test_leaving_one_employer_for_another_keeps_only_the_new_one() -> None:
    assert without_old_value("I left Acme Corp for a job at Globex") == "I left for a job at Globex"
    assert without_old_value("she quit telefónica and went to a startup, Cabify.") == (
        "she quit and went to a startup, Cabify."
    )
    assert without_old_value("he quit his job at PwC and joined Unilever") == "he quit and joined Unilever"


def test_a_place_left_gives_way_to_the_one_named_next() -> None:
    assert without_old_value("we finally got out of South San Francisco — we're in Cambridge now") == (
        "we finally got out — we're in Cambridge now"
    )
    assert without_old_value("left Boston, now in Denver and loving it") == "left, now in Denver and loving it"
    assert without_old_value("I left Google, now at Meta") == "I left, now at Meta"
    # Nothing named where the speaker is now: the place stays.
    assert without_old_value("I left Paris, now I miss it") == "I left Paris, now I miss it"
    assert without_old_value("I left the party, now in bed") == "I left the party, now in bed"


def test_a_value_set_against_the_one_meant_is_left_out() -> None:
    assert without_old_value("haha I'm in aarhus, not copenhagen! the IKEA here is fine") == (
        "haha I'm in aarhus! the IKEA here is fine"
    )
    assert without_old_value("it's on the 21st, not the 12th.") == "it's on the 21st."
    # A judgement after "not" is no value set against another.
    for text in ("it was fine, not bad.", "we moved to Leeds, not really by choice!", "it's a lot, not enough"):
        assert without_old_value(text) == text


def test_what_a_new_favourite_displaced_is_left_out() -> None:
    text = "saw them live last night and ngl they've overtaken the national as my favourite band, unreal"
    assert "national" not in without_old_value(text) and "my favourite band" in without_old_value(text)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("phone q: just got a pixel 8, finally ditching my iphone 12 after 3 years.", "phone q: just got a pixel 8."),
        ("ivo started at the big school on monday, no more nursery!", "ivo started at the big school on monday!"),
        ("gave up coffee, green tea only now", "green tea only now"),
    ],
)
def test_what_is_given_up_beside_what_replaces_it_is_left_out(text: str, kept: str) -> None:
    # Named for the first time in the very statement that replaces it: no older statement holds the old value.
    assert drop_old_values(text, []) == kept


@pytest.mark.parametrize(
    "text",
    ["I quit smoking, it was hard", "sold the octavia, end of an era", "no more excuses, I start running monday",
     "I never gave up on the violin, I play every day"],
)  # fmt: skip
def test_an_ending_with_nothing_in_its_place_stays(text: str) -> None:
    assert drop_old_values(text, []) == text


@pytest.mark.parametrize(
    "text",
    ["I quit smoking and started running", "I left the party and went home", "I left Google and joined a startup."],
)
def test_what_was_left_stays_when_nothing_named_replaces_it(text: str) -> None:
    assert without_old_value(text) == text


def test_the_current_memory_holds_the_new_value_and_the_words_as_said_stay_beside_it() -> None:
    store = ListCandidates()
    say(store, "I work at Acme Corp as a chemist.", at(2023, 1, 5))
    ops = say(store, "big news: I left Acme Corp for a role at Globex, we're in Denver now", at(2023, 6, 3))
    drafts = [op.draft for op in ops if op.draft is not None and op.kind is not OpKind.DELETE]
    assert drafts and all("Acme" not in d.text for d in drafts)
    assert any("Globex" in d.text for d in drafts)
    said = [d.metadata.get("said") for d in drafts]
    assert any(isinstance(s, str) and "Acme Corp" in s for s in said)


def test_what_a_message_asks_to_forget_is_not_kept_from_it() -> None:
    store = ListCandidates()
    say(store, "my boyfriend Theo and I are going to Rome in may", at(2023, 1, 5))
    ops = propose(store, ("user", "theo and I broke up. please just forget about him"), when=at(2023, 6, 3))
    assert ops and all(op.draft is None or "theo" not in op.draft.text.lower() for op in ops)
    assert any(op.kind is OpKind.DELETE for op in ops)


def test_a_new_measure_of_the_same_thing_closes_the_old_one() -> None:
    store = ListCandidates()
    say(store, "I sleep like 5 hours a night, I wake up at 3am every night", at(2023, 1, 5))
    say(store, "good news, I'm getting 7 hours most nights now", at(2023, 6, 3))
    current = [r.text for r in store.records if r.retired_at is None and r.valid_to is None]
    assert not any("5 hours" in t for t in current) and any("7 hours" in t for t in current)


def test_a_new_weight_in_chinese_closes_the_old_one(tmp_path: Path) -> None:
    current, _ = told_in_turn(tmp_path, "开始健身了！现在82公斤，教练说先练核心", "两个月降到76公斤了，开心")
    assert any("76公斤" in t for t in current) and not any("82公斤" in t for t in current)


def test_a_chinese_stay_of_a_stated_length_ends() -> None:
    assert cjk_stay_until("在大阪出差三天，住在难波的酒店", date(2023, 9, 1)) == date(2023, 9, 4)
    assert cjk_stay_until("在大阪出差，下周回来", date(2023, 9, 1)) is None
    assert cjk_stay_until("我在上海住了两年", date(2023, 9, 1)) is None


def test_a_plain_ending_leaves_out_what_the_speaker_said_before_on_any_topic() -> None:
    kept = drop_old_values("welp, the denver experiment is over. moved back to austin last week", [], [],
                           ["denver is fun but I don't know anybody yet"])  # fmt: skip
    assert "denver" not in kept and "austin" in kept


def _said(memory: Memory, *texts: str) -> list[MemoryItem]:
    """Each text added a month after the one before; the current memories after the last."""
    for month, text in enumerate(texts, 5):
        memory.add(text, user_id="u", timestamp=f"2023-{month:02d}-06T12:00:00Z")
    return memory.list(user_id="u")["results"]


def test_what_a_replaced_statement_still_says_stays_current(tmp_path: Path) -> None:
    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        current = _said(memory, "adopting a rescue greyhound next week! the shelter calls him Dusty",
                        "the greyhound is home!! we renamed him Dash, he sleeps 20 hours a day")  # fmt: skip
        assert not any("Dusty" in r["memory"] for r in current)
        [kept] = [r for r in current if r["memory"].startswith("adopting a rescue")]
        versions = memory.history(kept["id"])
        assert [v["version"] for v in versions] == [1, 2] and "Dusty" in versions[0]["memory"]
        assert "Dusty" in kept["metadata"]["said"]  # the words as said stay beside the text


def test_a_new_reading_closes_the_whole_statement_it_was_read_in(tmp_path: Path) -> None:
    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        current = _said(memory, "I sleep like 5 hours a night, I wake up at 3am and can't get back to sleep",
                        "CBT-I actually worked?? I'm getting 7 hours of sleep most nights now")  # fmt: skip
        assert not any("5 hours" in r["memory"] or "3am" in r["memory"] for r in current)


def test_a_lead_in_word_goes_with_the_clause_it_led_into() -> None:
    said = "Less than before. Also, I gave up coffee last month. I only drink green tea now."
    older = ["I drink three cups of coffee a day"]
    assert drop_old_values(said, older, older, older) == "Less than before. I only drink green tea now."


def test_an_old_value_in_a_clause_run_on_without_punctuation_is_left_out() -> None:
    said = "did the thing: stepped down from team lead I'm a senior backend engineer again"
    assert drop_old_values(said, ["team lead for 7 backend devs now"]) == (
        "did the thing: I'm a senior backend engineer again"
    )


def test_in_text_typed_without_capitals_the_place_words_stand_in_for_names() -> None:
    said = "new job in turin starts in june. sad to leave milan but the rent is literally half"
    # An older statement of the same owner on another topic names the city only after "from".
    older = ["my parents want me home every other week, but from milan that's 4 hours each way"]
    assert "milan" not in drop_old_values(said, [], others=older)
    # Typed with capitals, only the names count: "from work" names nothing.
    assert drop_old_values("sad to leave work early but the new job in Turin is great", [],
                           others=["I walked home from work with Anna"]) == (
        "sad to leave work early but the new job in Turin is great"
    )  # fmt: skip


def test_no_conjunction_is_left_dangling_where_a_clause_went() -> None:
    said = "we bought a house so no more landlord!"
    assert drop_old_values(said, ["our landlord is Mr. Patel, he never fixes anything"]) == "we bought a house!"
