"""`train export --store`: rows from an existing store's journal. The store is built here with the shipped
fakes (the lite rules answering in the pro protocol, the lite writer itself); the rows' requests are the ones
the writer sent, and their answers, replayed, rebuild the same memories."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memscribe import Memory
from memscribe.bench.pro import scripted_pro_chat
from memscribe.bench.scenarios import Scenario, generate_scenarios
from memscribe.cli.main import cli
from memscribe.core.clock import FrozenClock
from memscribe.providers.chat import parse_reply
from memscribe.testing.chat import FunctionChat
from memscribe.train import read_rows, scenario_from_dict
from memscribe.train.journal import JournalExport, journal_rows
from memscribe.train.protocols import protocol_writer
from memscribe.write.prompts.pro_schema import PRO_SCHEMA


def _write(path: Path, scenario: Scenario, writer: Any) -> None:
    clock = FrozenClock(scenario.chunks[0].timestamp)
    with Memory(path, writer=writer, embedder="hash", clock=clock) as memory:
        for chunk in scenario.chunks:
            clock.set(chunk.timestamp)
            memory.add(chunk.messages(), user_id=scenario.user_id, timestamp=chunk.timestamp, source="test")


def _current(path: Path, user: str) -> list[tuple[str, Any, Any]]:
    with Memory(path, writer="lite", embedder="hash") as memory:
        items = memory.list(user_id=user)
        rows = items.get("results", []) if isinstance(items, dict) else items
        found = [(str(_get(r, "memory")), _get(r, "slot"), _get(r, "value")) for r in rows]
    return sorted(found, key=str)


def _get(row: Any, key: str) -> Any:
    return row.get(key) if isinstance(row, dict) else getattr(row, key, None)


@pytest.fixture(scope="module")
def pro_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Scenario, list[list[dict[str, Any]]]]:
    """A store written by the pro writer over the scripted model, and the first request of every episode."""
    scenario = generate_scenarios(1, 11)[0]
    sent: list[list[dict[str, Any]]] = []
    inner = scripted_pro_chat()

    def answer(messages: list[dict[str, Any]]) -> Any:
        if len(messages) <= 2:
            sent.append([dict(m) for m in messages])
        return inner.complete(messages, schema=PRO_SCHEMA)

    path = tmp_path_factory.mktemp("pro") / "store.db"
    _write(path, scenario, protocol_writer("pro", FunctionChat(answer, model="teacher")))
    return path, scenario, sent


def test_each_written_episode_is_one_sft_and_one_rl_row_with_the_request_the_writer_sent(
    pro_store: tuple[Path, Scenario, list[list[dict[str, Any]]]],
) -> None:
    path, scenario, sent = pro_store
    report = JournalExport()
    rows = list(journal_rows(path, report=report))
    sft = [r for r in rows if r["kind"] == "sft"]
    rl = [r for r in rows if r["kind"] == "rl"]
    assert len(sft) == len(rl) == report.episodes == len(sent) > 2
    assert report.writers == {"pro": len(sent)}
    # The candidates under their aliases, as the store held them before each episode: the very request.
    assert [r["messages"][:-1] for r in sft] == sent
    assert any('{"n": 1' in r["messages"][1]["content"] for r in sft)
    for row in sft:
        assert row["schema"] == "memscribe-train/1" and row["source"]["writer"] == "pro"
        parse_reply(row["messages"][-1]["content"], PRO_SCHEMA)
    assert {r["source"]["episode"] for r in rl} == {r["source"]["episode"] for r in sft}
    again = scenario_from_dict(rl[0]["scenario"])
    assert len(again.chunks) == len(scenario.chunks) and not any(c.probes for c in again.chunks)


def test_the_exported_answers_replayed_rebuild_the_same_memories(
    pro_store: tuple[Path, Scenario, list[list[dict[str, Any]]]], tmp_path: Path
) -> None:
    path, scenario, _ = pro_store
    answers: Iterator[str] = iter(r["messages"][-1]["content"] for r in journal_rows(path) if r["kind"] == "sft")
    replay = protocol_writer("pro", FunctionChat(lambda messages: next(answers), model="replay"))
    _write(tmp_path / "replay.db", scenario, replay)
    assert _current(tmp_path / "replay.db", scenario.user_id) == _current(path, scenario.user_id)


def test_an_export_left_unfinished_closes_from_another_thread(
    pro_store: tuple[Path, Scenario, list[list[dict[str, Any]]]],
) -> None:
    rows = journal_rows(pro_store[0])
    assert next(rows)["kind"] in {"sft", "rl"}
    failures: list[BaseException] = []

    def close() -> None:
        try:
            rows.close()  # what a garbage collection on another thread does to an unfinished generator
        except BaseException as error:  # reported to the test's thread
            failures.append(error)

    worker = threading.Thread(target=close)
    worker.start()
    worker.join()
    assert failures == []


def test_a_lite_store_exports_its_operations_as_pro_answers_and_says_what_is_lost(tmp_path: Path) -> None:
    scenario = generate_scenarios(1, 12)[0]
    _write(tmp_path / "lite.db", scenario, "lite")
    result = CliRunner().invoke(
        cli, ["--json", "train", "export", "--store", str(tmp_path / "lite.db"), "--out", str(tmp_path / "data")]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["store"]["writers"] == {"lite": summary["sft"]} and summary["sft"] == summary["rl"] > 0
    rows = read_rows(tmp_path / "data" / "sft.jsonl", "sft")
    assert all("the lite writer's own requests (rendered as pro)" in r["source"]["lost"] for r in rows)
    ops = [op for r in rows for op in json.loads(r["messages"][-1]["content"])["operations"]]
    assert any(op["op"] == "ADD" and op["text"] for op in ops)
    assert any(op["op"] in ("UPDATE", "SUPERSEDE") and isinstance(op.get("target"), int) for op in ops)


def test_a_missing_or_foreign_file_is_a_clear_error_and_stays_untouched(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        list(journal_rows(tmp_path / "absent.db"))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ValueError, match="not a readable SQLite store"):
        list(journal_rows(junk))
    assert junk.read_bytes() == b"not a database at all" * 100
    result = CliRunner().invoke(cli, ["train", "export", "--store", str(junk), "--out", str(tmp_path / "o")])
    assert result.exit_code != 0 and "not a readable SQLite store" in result.output
