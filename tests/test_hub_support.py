"""Shared helpers for the hub tests (fixtures materialised into a temporary home), and their own checks."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memscribe import Memory
from memscribe.hub import Hub, HubEnv

FIXTURES = Path(__file__).parent / "fixtures" / "hub"
sys.path.insert(0, str(FIXTURES))
from build import materialize  # noqa: E402

# source name -> the fixture folder and where its data root is inside it
ROOTS: dict[str, str] = {
    "aider": ".",
    "claude-code": ".",
    "cline": "User",
    "codebuddy": ".",
    "codex": ".",
    "cursor": ".",
    "deepseek-harness": ".",
    "gemini-cli": ".",
    "hermes": ".",
    "openclaw": ".",
    "opencode": ".",
    "pi": ".",
    "qwen-code": ".",
    "workbuddy": ".",
}


def fixture_env(tmp: Path, names: Iterable[str]) -> HubEnv:
    paths = {}
    for name in names:
        root = materialize(name, tmp / "fixtures")
        paths[name] = (root / ROOTS[name],)
    return HubEnv(home=tmp / "home", paths=paths)


def open_hub(tmp: Path, names: Iterable[str], *, writer: str = "raw", env: HubEnv | None = None) -> tuple[Memory, Hub]:
    memory = Memory(tmp / "store.db", writer=writer, embedder="hash")
    hub = Hub(memory, tmp / "store.hub.db", env or fixture_env(tmp, names), user="ada")
    return memory, hub


def episodes(memory: Memory, user: str = "ada") -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in memory.export(user) or []]
    return [r for r in rows if r["kind"] == "episode"]


def turns_by_session(memory: Memory) -> dict[str, list[dict[str, Any]]]:
    """Engine messages of every imported episode, per scope session, in time order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for ep in sorted(episodes(memory), key=lambda e: e["timestamp"]):
        out.setdefault(ep["scope"]["session_id"], []).extend(ep["messages"])
    return out


def test_materialize_builds_databases_and_zstd_frames(tmp_path: Path) -> None:
    root = materialize("opencode", tmp_path)
    conn = sqlite3.connect(root / "opencode.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT count(*) FROM session").fetchone()[0] == 3
    conn.close()
    dsh = materialize("deepseek-harness", tmp_path)
    frames = sorted(dsh.rglob("*.zstd"))
    assert frames and all(p.read_bytes()[:4] == b"\x28\xb5\x2f\xfd" for p in frames)  # the zstd frame magic
    assert not list(dsh.rglob("*.frames"))


def store_bytes(tmp: Path) -> bytes:
    """Every byte of every file the engine and the hub own under ``tmp`` (the store, its indexes, hub state)."""
    owned = [p for p in tmp.iterdir() if p.name.startswith("store.")]
    files = [f for p in owned for f in ([p] if p.is_file() else sorted(p.rglob("*"))) if f.is_file()]
    assert files, "no store files found"
    return b"".join(f.read_bytes() for f in files)


def test_growing_jsonl_is_parsed_incrementally_and_rewrites_are_noticed(tmp_path: Path, monkeypatch: Any) -> None:
    from memscribe.hub import ReadResult, reading

    monkeypatch.setattr(reading, "MIN_CACHED_BYTES", 0)
    path = tmp_path / "log.jsonl"
    path.write_text('{"n": 0}\n{"n": 1}\nnot json\n{"n": 2')
    first = ReadResult()
    assert [r["n"] for _, r in reading.json_lines(path, first)] == [0, 1]
    assert first.partial_tail and first.malformed == 1 and first.consumed == len('{"n": 0}\n{"n": 1}\nnot json\n')
    with path.open("a") as fh:
        fh.write('}\n{"n": 3}\n')
    again = ReadResult()
    assert [(i, r["n"]) for i, r in reading.json_lines(path, again)] == [(0, 0), (1, 1), (3, 2), (4, 3)]
    assert not again.partial_tail and again.malformed == 1
    path.write_text('{"n": 9}\n')  # rewritten in place: parsed afresh
    assert [r["n"] for _, r in reading.json_lines(path, ReadResult())] == [9]
