"""The lite writer says why a message stored nothing: on its operations (``skipped``) and in the add result."""

from __future__ import annotations

from pathlib import Path

from test_lite_support import ListCandidates, propose

from memscribe import Memory
from memscribe.write.ports import writer_skips


def test_the_writer_gives_a_reason_for_each_message_it_kept_nothing_from() -> None:
    ops = propose(
        ListCandidates(),
        ("user", "hi!"),
        ("user", "what should I cook tonight?"),
        ("user", "I live in Lisbon with my partner Ana."),
        ("assistant", "Lisbon is lovely in spring."),
        ("user", "Please forget my phone number."),
    )
    reasons = dict(writer_skips(ops))
    assert set(reasons) == {0, 1, 3, 4}  # message 2 is stored, so it has no skip reason
    assert reasons[0] == "filler: a greeting"
    assert reasons[1] == "a question"
    assert "assistant" in reasons[3]
    assert "forget" in reasons[4]
    assert any(2 in op.draft.message_indices for op in ops if op.draft is not None)


def test_the_add_result_carries_the_lite_reasons(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", writer="lite", embedder="hash") as memory:
        result = memory.add(
            [
                {"role": "user", "content": "thanks so much!"},
                {"role": "user", "content": "I adopted a beagle named Max."},
            ],
            user_id="u",
        )
    outcomes = [(m["outcome"], m["reason"]) for m in result["messages"]]
    assert outcomes[0] == ("skipped", "filler: thanks")
    assert outcomes[1][0] == "stored"
