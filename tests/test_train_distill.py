"""Token-level on-policy distillation between two tiny models that share a tokenizer (needs the train extra)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the train extra is not installed")

from memscribe.bench.scenarios import generate_scenarios
from memscribe.train import export_rows
from memscribe.train.stages import distill
from memscribe.train.tiny import tiny_model, tiny_tokenizer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def test_the_student_trains_on_its_own_answers_towards_the_teacher(tmp_path: Path) -> None:
    rows = [r for r in export_rows(generate_scenarios(1, 5), tmp_path / "work") if r["kind"] == "rl"][:2]
    tokenizer = tiny_tokenizer([m["content"] for m in rows[0]["prompt"]] + [rows[0]["reference"]])
    student, teacher = tiny_model(tokenizer, seed=0), tiny_model(tokenizer, seed=1)
    before = [p.detach().clone() for p in student.parameters()]
    losses = distill(student, teacher, tokenizer, rows, tmp_path / "run", steps=2, lr=1e-2, max_completion_length=8)
    assert len(losses) == 2 and all(math.isfinite(x) and x >= 0 for x in losses)
    assert any(not (a == b).all() for a, b in zip(before, student.parameters(), strict=True))
