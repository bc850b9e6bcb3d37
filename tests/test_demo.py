"""``python -m memscribe.demo`` with the hash embedder, and the sample conversation it ships."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from memscribe.demo import load_sample, main


def test_sample_conversation_is_well_formed() -> None:
    sample = load_sample()
    times = [datetime.fromisoformat(s["timestamp"]) for s in sample["sessions"]]
    assert times == sorted(times) and (times[-1] - times[0]).days > 180  # several months
    for session in sample["sessions"]:
        assert session["messages"][0]["role"] == "user"
        assert all(m["role"] in ("user", "assistant") and m["content"].strip() for m in session["messages"])
    text = " ".join(m["content"] for s in sample["sessions"] for m in s["messages"])
    for fact in ("Seattle", "moved to Sydney", "nurse", "master's in public health", "green tea"):
        assert fact in text  # a move, a job change, a changed preference
    assert sample["queries"] and sample["history_query"] and sample["correction"]


@pytest.mark.parametrize("writer", ["raw", "lite"])
def test_demo_runs_in_a_temporary_store(monkeypatch: pytest.MonkeyPatch, writer: str) -> None:
    monkeypatch.delenv("MEMSCRIBE_HOME", raising=False)
    result = CliRunner().invoke(main, ["--embedder", "hash", "--writer", writer])
    assert result.exit_code == 0, result.output
    for heading in ("1 · ingest", "2 · search", "3 · history", "Try it yourself"):
        assert heading in result.output
    assert "Where does Caroline live?" in result.output and "ADD" in result.output
    assert "current" in result.output and "retired" in result.output  # a version chain is shown


def test_demo_keeps_its_store_under_memscribe_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSCRIBE_HOME", str(tmp_path))
    first = CliRunner().invoke(main, ["--embedder", "hash"])
    assert first.exit_code == 0, first.output
    assert (tmp_path / "memscribe.db").is_file() and "--db" in first.output
    again = CliRunner().invoke(main, ["--embedder", "hash"])
    assert again.exit_code == 0, again.output
    assert "already stored" in again.output
