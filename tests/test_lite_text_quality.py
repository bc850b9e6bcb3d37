"""The lite writer keeps people's words: no rewriting artefacts in what it stores.

Chats written for this test (lowercase, typos, emoji, several facts a message, Chinese) go through the public
``Memory.add``; every stored text must be the speaker's own words, with only relative times made absolute:
no "User:" prefix, no doubled words, no third-person conjugation bolted onto a first-person verb.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from memscribe import Memory
from memscribe.core.clock import FrozenClock

CHATS: list[tuple[str, list[str]]] = [
    (
        "2024-03-14T09:00:00",
        [
            "morning!! so I finally started at Northwind last tuesday, my new manager is great and the office"
            " has a dog",
            "we adopted a cat too, her name is Pepper. she hates the vacuum",
            "I play chess every Tuesday and I ran the chicago marathon in 2019",
        ],
    ),
    (
        "2024-04-02T20:15:00",
        [
            "I got a new Ferrari!! It's a masterpiece on wheels. We have one daughter, she's 4 and obsessed with it",
            "my sister Dana moved to Lisbon two weeks ago, she only drinks green tea now",
            "thinking about moving to Denver next year but honestly not sure yet",
        ],
    ),
    (
        "2024-05-20T18:40:00",
        [
            "搬到成都啦！！公司在高新区，房子租在桐梓林。我们上周五领证了",
            "switched from headspace to the Waking Up app and bumped it to 20 min a day",
        ],
    ),
    (
        "2024-09-02T08:30:00",
        [
            # Changes that name the old value: the current memory leaves the old clause out, words unchanged.
            "ok big one: I left Northwind for a job at Globex, and we're out of Chengdu now, sad to leave Chengdu"
            " but Lisbon is lovely",
            "my favourite podcast is radiolab, I listen on every run",
            "my favourite podcast is reply all now, radiolab has been dethroned",
        ],
    ),
    (
        "2024-10-01T10:00:00",
        [
            # A dash inside a sentence and the lines of a list: kept as written, never run together.
            "working on a new project - a thriller set in a small Midwestern town. it's been a great outlet",
            "this week:\n- adopted a dog called Biscuit\n- signed up for pottery",
        ],
    ),
    (
        "2024-11-05T19:00:00",
        [
            # Old values left out around a price, a decimal point and an aside in brackets.
            "my 2014 VW Golf failed its MOT again, £900 of work",
            "sold the golf for £3.2k (failed MOT and all lol) and picked up a used Tesla Model 3, any charger tips",
            "gym mornings before work at 6:30",
            "new schedule: gym's in the evenings after work now, the 6:30am thing was destroying me lol.",
        ],
    ),
]
_DATE_WORDS = re.compile(
    r"^(?:on|in|around|the|week|of|before|after|weekend|\d+|january|february|march|april|may|june|july|august"
    r"|september|october|november|december|\d+年\d+月\d+日|\d+年\d+月)$"
)
_CJK_DATE = re.compile(r"\d+年\d+月(?:\d+日)?")


def _cjk_said(token: str, said: str) -> bool:
    """Chinese has no spaces: a Chinese token is the speaker's when each of its characters was said."""
    return bool(re.search(r"[\u3400-\u9fff]", token)) and all(ch in said for ch in token)


_TOKEN = re.compile(r"[\w'-]+|[^\w\s]", re.UNICODE)


def _stored(tmp_path: Path) -> tuple[list[str], str]:
    clock = FrozenClock()
    memory = Memory(tmp_path / "m.db", writer="lite", embedder="hash", clock=clock)
    said = []
    for when, messages in CHATS:
        clock.set(datetime.fromisoformat(when))
        for text in messages:
            said.append(text)
            memory.add([{"role": "user", "content": text}], user_id="ana", timestamp=when)
    # Every version, current or closed: history is stored text too.
    rows = memory.list(user_id="ana", limit=200, include_history=True)["results"]
    texts = list(dict.fromkeys(str(r["memory"]) for r in rows))
    memory.close()
    return texts, " ".join(said)


def test_every_stored_text_is_the_speakers_words(tmp_path: Path) -> None:
    texts, said = _stored(tmp_path)
    assert len(texts) >= 8
    heard = {t.lower() for t in _TOKEN.findall(said)}
    for text in texts:
        tokens = _TOKEN.findall(_CJK_DATE.sub("", text.lower()))
        foreign = [t for t in tokens if t not in heard and not _DATE_WORDS.match(t) and not _cjk_said(t, said)]
        assert not foreign, f"{text!r} holds words nobody said: {foreign}"


def test_no_prefixes_doubled_words_or_bolted_on_conjugations(tmp_path: Path) -> None:
    texts, _ = _stored(tmp_path)
    for text in texts:
        assert not re.match(r"^(?:user|assistant|ana)\s*:", text, re.IGNORECASE), text
        assert not re.search(r"\b(\w{2,})\s+\1\b", text, re.IGNORECASE), f"doubled word in {text!r}"
        assert not re.search(r"\b(?:onlies|beens|fears user|user's best friend)\b", text, re.IGNORECASE), text
        assert not re.search(r"\bUser\b", text), f"{text!r} names the speaker in the text"
        # what is left out never cuts a number or an aside in two: "2k (failed MOT and all lol) and picked up …"
        assert not re.match(r"^(?:\d+[a-z]?\b|[).,])", text), f"{text!r} opens inside what was cut"
        assert text.count("(") == text.count(")"), f"{text!r} holds half an aside"


def test_details_and_relative_times_survive(tmp_path: Path) -> None:
    texts, _ = _stored(tmp_path)
    joined = "\n".join(texts)
    for detail in ("Pepper", "chess every Tuesday", "masterpiece on wheels", "chicago marathon in 2019", "桐梓林"):
        assert detail in joined, detail
    assert "on 12 March 2024" in joined and "last tuesday" not in joined.lower()
    assert "2024年5月17日" in joined and "上周五" not in joined
    assert "around 19 March 2024" in joined  # "two weeks ago" is a date, not "two weeks before <date>"
    assert "a new project - a thriller set in a small Midwestern town" in joined
    assert "called Biscuit signed" not in joined and "called Biscuit. signed up for pottery" in joined
