"""The LongMemEval loader and scorer, on a tiny haystack written here in the official format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memscribe.bench.harness import sdk_factory
from memscribe.bench.longmemeval import gold_answer, load_longmemeval, parse_haystack_date, run_longmemeval
from memscribe.cli.main import cli

FILLER = [
    {"role": "user", "content": "Can you suggest a quick pasta recipe for tonight?"},
    {"role": "assistant", "content": "Try spaghetti aglio e olio: garlic, olive oil, chilli and parsley."},
]
DEGREE = [
    {"role": "user", "content": "I graduated with a degree in marine biology, so tide pools excite me."},
    {"role": "assistant", "content": "Marine biology is a great background for coastal volunteering."},
    {"role": "user", "content": "My commute to the aquarium takes 40 minutes each way.", "has_answer": True},
]
MOVE = [{"role": "user", "content": "We adopted a greyhound called Biscuit last spring.", "has_answer": True}]
DEGREE[0]["has_answer"] = True


def _question(qid: str, qtype: str, question: str, answer: Any, answers: list[str]) -> dict[str, Any]:
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": question,
        "answer": answer,
        "question_date": "2023/06/01 (Thu) 10:00",
        "haystack_session_ids": ["s-filler", "answer_degree", "answer_dog"],
        "haystack_dates": ["2023/05/01 (Mon) 09:00", "2023/05/10 (Wed) 18:30", "2023/05/20 (Sat) 02:21"],
        "haystack_sessions": [FILLER, DEGREE, MOVE],
        "answer_session_ids": answers,
    }


def _write(tmp_path: Path) -> Path:
    data = [
        _question("q1", "single-session-user", "What degree did I graduate with?", "Marine biology", ["answer_degree"]),
        _question(
            "q2",
            "single-session-user",
            "How long is my commute to the aquarium?",
            "40 minutes each way. 45 is also fine.",
            ["answer_degree"],
        ),
        _question("q3", "multi-session", "What is the name of the greyhound we adopted?", "Biscuit", ["answer_dog"]),
        _question("q4_abs", "single-session-user", "What is my sister's name?", "Not mentioned", []),
    ]
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_loader_reads_the_official_format(tmp_path: Path) -> None:
    questions = load_longmemeval(_write(tmp_path))
    assert [q.question_id for q in questions] == ["q1", "q2", "q3", "q4_abs"]
    q1 = questions[0]
    assert q1.sessions[1].timestamp is not None and q1.sessions[1].timestamp.hour == 18
    assert q1.evidence_turns == {"answer_degree#0", "answer_degree#2"}  # only its own answer sessions
    assert questions[3].abstention and not questions[0].abstention
    assert parse_haystack_date("2023/05/20 (Sat) 02:21") is not None and parse_haystack_date("soon") is None
    assert gold_answer("7 days. 8 days (including the last day) is also acceptable.") == "7 days"
    assert gold_answer("25 minutes and 50 seconds (or 25:50)") == "25 minutes and 50 seconds"


def test_malformed_files_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"not": "a list"}))
    with pytest.raises(ValueError, match="list"):
        load_longmemeval(bad)
    bad.write_text(json.dumps([{"question_id": "x"}]))
    with pytest.raises(ValueError, match="lacks"):
        load_longmemeval(bad)


def test_raw_writer_recalls_sessions_and_turns_from_provenance(tmp_path: Path) -> None:
    results = run_longmemeval(sdk_factory(embedder="hash"), "raw", _write(tmp_path), tmp_path / "work")
    counts, metrics = results["counts"], results["metrics"]
    assert counts["haystacks"] == 1 and counts["sessions"] == 3 and counts["abstention"] == 1
    assert counts["unresolved_results"] == 0
    assert metrics["recall_any@10"] == 1.0 and metrics["turn_recall_any@10"] == 1.0
    assert metrics["contain@10"] == 1.0  # "40 minutes each way" is found once the judge's note is cut
    assert set(results["by_type"]) == {"single-session-user", "multi-session"}
    assert results["by_type"]["single-session-user"]["n"] == 2


def test_the_cli_command_writes_a_report(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = ["bench", "longmemeval", "--data", str(_write(tmp_path)), "--writer", "raw", "--embedder", "hash"]
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "single-session-user" in result.output and "writers side by side" in result.output
    assert json.loads(out.read_text())["runs"][0]["benchmark"] == "longmemeval"
