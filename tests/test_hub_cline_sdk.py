"""Cline's SDK session store (``~/.cline/data/sessions``): root sessions, a sub-agent, a fork, a folder known
only to ``sessions.db``, and a messages file caught half-written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from test_hub_support import episodes, materialize, turns_by_session

from memscribe import Memory
from memscribe.hub import Hub, HubEnv

ROOT = "1796100000000_ab12c"
FORK = "1796200000000_fk34d"
BARE = "1796300000000_nm78q"
TORN = "1796400000000_wr56e"


def _open(tmp: Path) -> tuple[Memory, Hub, Path]:
    home = materialize("cline-sdk", tmp / "fixtures")
    memory = Memory(tmp / "store.db", writer="raw", embedder="hash")
    return memory, Hub(memory, tmp / "store.hub.db", HubEnv(home=home), user="ada"), home


def _roles(messages: list[dict[str, Any]]) -> list[str]:
    return [m["role"] for m in messages]


def test_sdk_sessions_import_with_roles_tools_times_and_projects(tmp_path: Path) -> None:
    memory, hub, _ = _open(tmp_path)
    try:
        report = hub.import_(["cline"])
        found = turns_by_session(memory)
        assert {k: len(v) for k, v in found.items()} == {
            f"cline:{ROOT}": 10,
            f"cline:{ROOT}__researcher": 4,
            f"cline:{FORK}": 2,  # the six messages it carried from its origin are the origin's
            f"cline:{BARE}": 2,
        }
        root = found[f"cline:{ROOT}"]
        first = ["user", "assistant", "tool", "assistant", "tool", "assistant"]
        assert _roles(root) == first + ["user", "assistant"] * 2
        assert [m["content"] for m in root if m["role"] == "user"] == [
            "Add a --units flag to the forecast command (metric or imperial, default metric).",
            "Plan how to cache the API responses for ten minutes.",  # the mode notice is not the person's
            "/explain-changes weather/cli.py",
        ]
        assert [c["name"] for c in root[1]["tool_calls"]] == ["read_files"]
        assert root[2]["name"] == "read_files" and "def fetch(city, units='metric')" in root[2]["content"]
        assert "import click\n\n@click.command()" not in json.dumps(root)  # the attached file block
        assert all(m["timestamp"] for messages in found.values() for m in messages)
        eps = episodes(memory)
        assert {e["scope"]["project"] for e in eps} == {"/home/ada/weather-app", "/home/ada/skycast"}
        assert {e["source"] for e in eps} == {"cline"}
        sub = next(e for e in eps if e["scope"]["session_id"] == f"cline:{ROOT}__researcher")
        assert sub["metadata"]["hub"]["sidechain"] is True and sub["metadata"]["hub"]["parent_session"] == ROOT
        fork = next(e for e in eps if e["scope"]["session_id"] == f"cline:{FORK}")
        assert fork["metadata"]["hub"]["forked_from"] == ROOT
        (error,) = report.errors  # the half-written file, named, and nothing else
        assert TORN in error["path"] and "malformed" in error["error"]
        again = hub.import_(["cline"])
        assert again.turns == 0 and len(episodes(memory)) == len(eps)
    finally:
        hub.close()
        memory.close()


def test_a_rewritten_messages_file_adds_only_its_new_turns(tmp_path: Path) -> None:
    """Cline rewrites the whole file each turn and its tool-result ids grow: turns are matched by content."""
    memory, hub, home = _open(tmp_path)
    try:
        hub.import_(["cline"])
        path = home / ".cline" / "data" / "sessions" / ROOT / f"{ROOT}.messages.json"
        payload = json.loads(path.read_text())
        for message in payload["messages"]:
            if "_tool_" in message["id"]:
                message["id"] += "_tool_again"
        payload["messages"].append({"id": "msg_new", "role": "user", "ts": 1796100200000,
                                    "content": [{"type": "text", "text": "Ship it."}]})  # fmt: skip
        path.write_text(json.dumps(payload, indent=2))
        torn = home / ".cline" / "data" / "sessions" / TORN / f"{TORN}.messages.json"
        bump = {"id": "msg_d1", "role": "user", "ts": 1796107200000, "content": "Bump the version to 0.4.0."}
        torn.write_text(json.dumps({"version": 1, "agent": "lead", "sessionId": TORN, "messages": [bump]}))
        report = hub.import_(["cline"])
        assert report.errors == [] and report.turns == 2
        found = turns_by_session(memory)
        assert found[f"cline:{ROOT}"][-1]["content"] == "Ship it." and len(found[f"cline:{ROOT}"]) == 11
        assert [m["content"] for m in found[f"cline:{TORN}"]] == ["Bump the version to 0.4.0."]
    finally:
        hub.close()
        memory.close()


def test_sessions_dir_follows_the_cline_env_overrides(tmp_path: Path) -> None:
    from memscribe.hub.sources.cline import ClineSource

    home = materialize("cline-sdk", tmp_path / "fixtures")
    moved = tmp_path / "elsewhere"
    (home / ".cline" / "data" / "sessions").rename(moved)
    env = HubEnv(home=home, environ={"CLINE_SESSION_DATA_DIR": str(moved)})
    found = {p.path.name for p in ClineSource().discover(env)}
    assert f"{ROOT}.messages.json" in found and "researcher.messages.json" in found
    assert not list(ClineSource().discover(HubEnv(home=home)))


def test_a_fork_whose_origin_is_gone_keeps_the_messages_it_carried(tmp_path: Path) -> None:
    memory, hub, home = _open(tmp_path)
    try:
        shutil.rmtree(home / ".cline" / "data" / "sessions" / ROOT)
        hub.import_(["cline"])
        fork = turns_by_session(memory)[f"cline:{FORK}"]
        assert len(fork) == 8 and fork[0]["content"].startswith("Add a --units flag")
    finally:
        hub.close()
        memory.close()
