"""An answer keeps and cites the question asked just before it by someone else in the chat."""

from __future__ import annotations

from pathlib import Path

from memscribe import Memory


def _provenance(tmp_path: Path, messages: list[dict[str, str]]) -> dict[str, list[int]]:
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    memory.add(messages, user_id="u", timestamp="2024-03-02T10:00:00Z")
    rows = {r["memory"]: r["provenance"]["message_indices"] for r in memory.list(user_id="u")["results"]}
    memory.close()
    return rows


def test_the_answer_cites_the_question_it_answers(tmp_path: Path) -> None:
    rows = _provenance(tmp_path, [
        {"role": "user", "name": "Ivo", "content": "Wow! How long have you been drawing?"},
        {"role": "user", "name": "Noor", "content": "Since I was 12 or so. It calms me down after work."},
    ])  # fmt: skip
    assert rows['Asked "How long have you been drawing?": Since I was 12 or so. It calms me down after work.'] == [0, 1]


def test_an_assistants_question_and_ones_own_question_are_not_cited(tmp_path: Path) -> None:
    rows = _provenance(tmp_path, [
        {"role": "assistant", "content": "How long have you been drawing?"},
        {"role": "user", "name": "Noor", "content": "Since I was 12 or so. It calms me down after work."},
        {"role": "user", "name": "Noor", "content": "Do you think charcoal is worth trying?"},
        {"role": "user", "name": "Noor", "content": "I bought a set of charcoal pencils on Saturday."},
    ])  # fmt: skip
    assert all(len(indices) == 1 for indices in rows.values())


def test_catching_up_gives_no_context_to_keep(tmp_path: Path) -> None:
    rows = _provenance(tmp_path, [
        {"role": "user", "name": "Ivo", "content": "Hey Noor, what's up? How have you been?"},
        {"role": "user", "name": "Noor", "content": "I started a pottery course at the community college."},
    ])  # fmt: skip
    assert not any(text.startswith("Asked") for text in rows)
