"""A statement kept once per slot fact: when one value changes, the others stop naming the old value."""

from __future__ import annotations

from test_lite_support import ListCandidates, at, say

from memscribe.core.records import OpKind
from memscribe.write.lite.siblings import without_value


def _current(store: ListCandidates) -> list[str]:
    return [r.text for r in store.records if r.retired_at is None and r.valid_to is None]


def test_the_phrase_naming_the_old_value_goes_when_it_closes_a_clause() -> None:
    assert without_value("My husband Mark is an auditor at PwC, so jan–mar", "pwc") == (
        "My husband Mark is an auditor, so jan–mar"
    )
    assert without_value("I work as a physio with the NHS.", "NHS") == "I work as a physio."
    # In the middle of a clause, or not after a preposition, or nothing left: as said.
    assert without_value("she lives in Boston and works at MIT", "boston") is None
    assert without_value("PwC is where Mark works", "pwc") is None
    assert without_value("at PwC", "pwc") is None
    # A partner who no longer is one keeps their name, not the relation.
    assert without_value("My girlfriend Priya lives in Pune.", "priya", "partner") == "Priya lives in Pune."
    assert without_value("I'm a nurse at St. Mary's hospital.", "st. mary's hospital") == "I'm a nurse."
    # where at the value goes with it when the clause ends there; not past "and"
    assert without_value("I'm a UX researcher at Spotify in the stockholm office", "spotify") == "I'm a UX researcher"
    assert without_value("works at MIT in Boston and lives in Cambridge", "mit") is None


def test_a_changed_employer_leaves_the_job_title_said_with_it() -> None:
    store = ListCandidates()
    say(store, "My husband Mark is an auditor at PwC, so jan–mar is busy", at(2023, 1, 30))
    slots = {r.slot for r in store.records}
    assert {"mark/employer", "mark/job_title"} <= slots  # one memory per fact, in the same words
    ops = say(store, "Mark quit PwC and joined Unilever.", at(2023, 6, 12))
    assert any(op.kind is OpKind.UPDATE and "the old value left out" in op.reason for op in ops)
    current = _current(store)
    assert not any("PwC" in text for text in current), current
    assert any(text.startswith("My husband Mark is an auditor, so") for text in current)
    revised = next(op.draft for op in ops if op.kind is OpKind.UPDATE and op.draft is not None)
    assert revised.metadata["said"] == "My husband Mark is an auditor at PwC, so jan–mar is busy"  # as said


def test_an_ending_told_in_lowercase_leaves_the_old_employer_out_of_the_partner_memory(tmp_path) -> None:
    from memscribe import Memory

    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        memory.add("My wife Elena is a lawyer at Baker McKenzie.", user_id="u", timestamp="2024-01-10T10:00:00Z")
        memory.add("elena left baker mckenzie, she's in-house at Google now", user_id="u",
                   timestamp="2024-03-10T10:00:00Z")  # fmt: skip
        current = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert "My wife Elena is a lawyer." in current  # her job and that she is the wife still hold
    assert not any("Baker" in text for text in current), current


def test_a_job_title_said_inside_a_longer_memory_leaves_the_old_employer_out(tmp_path) -> None:
    """The memory of the whole message holds the employer; the job title is kept in the words of its own
    statement, a part of that memory: the change of employer reaches it too."""
    from memscribe import Memory

    with Memory(tmp_path / "store.db", writer="lite", embedder="hash") as memory:
        memory.add("can u help me with a cover letter? i'm a UX researcher at Spotify in the stockholm office and "
                   "i'm looking at research roles in london", user_id="u", timestamp="2024-05-02T10:00:00Z")
        memory.add("ok i did the thing!!! started at Monzo last week, their london office is all hot pink",
                   user_id="u", timestamp="2024-09-10T10:00:00Z")  # fmt: skip
        current = [row["memory"] for row in memory.list(user_id="u")["results"]]
    assert not any("Spotify" in text for text in current), current
    assert "I'm a UX researcher" in current
