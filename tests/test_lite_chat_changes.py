"""Changes told the way people type in chat: slang cues ("rn", "atm", "ditched", "swapped", "dumped"), two
words that end something, a subject left out before "living", a slot value named as ended, coffee by its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.read.topics import topics_of
from memscribe.write.lite.memorable import drop_reason

CASES = [
    ("I drive a Honda Civic, it's old but reliable.", "ditched the civic, biking everywhere", "Honda"),
    ("I live in Austin with my dog.", "living in denver rn, the mountains are unreal", "Austin"),
    ("I live in Austin with my dog.", "moved to denver atm, the mountains are unreal", "Austin"),
    ("My go-to drink is a flat white.", "switched to a cortado, way better", "flat white"),
    ("I'm dating Sam, he's great.", "dumped sam. moving on", "dating Sam"),
    ("I work at Google on the ads team.", "working at stripe now, way less meetings", "Google"),
]


@pytest.mark.parametrize(("before", "after", "stale"), CASES, ids=[c[1][:24] for c in CASES])
def test_a_change_typed_as_in_chat_replaces_the_old_value(tmp_path: Path, before: str, after: str,
                                                          stale: str) -> None:  # fmt: skip
    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        memory.add(before, user_id="u", timestamp="2024-01-10T10:00:00Z")
        result = memory.add(after, user_id="u", timestamp="2024-03-10T10:00:00Z")
        current = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert any(r["event"] == "SUPERSEDE" for r in result["results"]), result
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
