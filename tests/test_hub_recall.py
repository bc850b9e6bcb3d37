"""The recall hook end to end, run as each tool runs it: its hook JSON on stdin of
``python -m memscribe.cli.hub_hook TOOL``, the tool's JSON on stdout, answered by a warm daemon over a Unix
socket. Latency is printed by ``python -m memscribe.cli.hub_hook_latency``, not asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memscribe.cli.hub_hook import ask, run, socket_path
from memscribe.config import MemoryConfig
from memscribe.engine.memory import Memory
from memscribe.hub.feed import recall

DECISION = "We decided to use PostgreSQL 16 for the orders service, not MySQL."
CONVENTION = "Convention: API handlers live in app/routes and return pydantic models."
PITFALL = "Pitfall: the CI runner has no network, so tests must not download fixtures."
ELSEWHERE = "The billing project keeps its data in MySQL 8."


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    project = tmp_path / "orders"
    (project / ".git").mkdir(parents=True)
    (project / "app").mkdir()
    home = tmp_path / "ms"
    memory = Memory(home / "memscribe.db", config=MemoryConfig(embedder="hash", writer="raw"))
    ids = {}
    for text in (DECISION, CONVENTION, PITFALL):
        ids[text] = memory.add(text, user_id="ana", project=str(project))["results"][0]["id"]
    memory.add(ELSEWHERE, user_id="ana", project=str(tmp_path / "billing"))
    memory.add("Ana's own note about PostgreSQL in orders.", user_id="bob", project=str(project))
    memory.close()
    env = {
        **os.environ,
        "MEMSCRIBE_HOME": str(home),
        "MEMSCRIBE_EMBEDDER": "hash",
        "MEMSCRIBE_WRITER": "raw",
        "MEMSCRIBE_USER": "ana",
        "MEMSCRIBE_HOOK_DAEMON": "0",
    }
    env.pop("MEMSCRIBE_PROJECT", None)
    return {"project": project, "home": home, "ids": ids, "env": env}


@pytest.fixture
def daemon(world: dict[str, Any]) -> Iterator[Path]:
    env = {k: v for k, v in world["env"].items() if k != "MEMSCRIBE_HOOK_DAEMON"}
    path = Path(socket_path(env))
    path.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "memscribe.hub.feed.daemon", str(path), "--idle", "60"], env=env)
    deadline = time.monotonic() + 30
    while ask(path, {"tool": "", "stdin": ""}, timeout=1) is None:
        assert time.monotonic() < deadline and proc.poll() is None, "the recall daemon did not start"
        time.sleep(0.05)
    yield path
    proc.terminate()
    proc.wait(timeout=10)
    assert not path.exists()  # SIGTERM removes the socket


def _hook(world: dict[str, Any], tool: str, payload: Any, cwd: Path | None = None) -> tuple[Any, str]:
    done = subprocess.run(
        [sys.executable, "-m", "memscribe.cli.hub_hook", tool],
        input=payload if isinstance(payload, str) else json.dumps(payload),
        capture_output=True, text=True, env=world["env"], cwd=cwd or world["project"], timeout=60, check=True,
    )  # fmt: skip
    return json.loads(done.stdout), done.stderr


def _prompt_payload(tool: str, project: Path, prompt: str) -> dict[str, Any]:
    if tool == "cline":
        return {"clineVersion": "3.40.0", "hookName": "UserPromptSubmit", "timestamp": "1",
                "taskId": "t1", "workspaceRoots": [str(project)], "userPromptSubmit": {"prompt": prompt}}  # fmt: skip
    event = "BeforeAgent" if tool == "gemini-cli" else "UserPromptSubmit"
    return {"session_id": "s1", "transcript_path": "/dev/null", "cwd": str(project / "app"),
            "hook_event_name": event, "prompt": prompt}  # fmt: skip


def _context(tool: str, out: dict[str, Any]) -> str:
    if tool == "cline":
        assert out["cancel"] is False
        return str(out["contextModification"])
    if tool == "cursor":
        return str(out["additional_context"])
    return str(out["hookSpecificOutput"]["additionalContext"])


@pytest.mark.parametrize("tool", [t for t in recall.HOOK_TOOLS if t != "cursor"])
def test_prompt_hook_returns_the_projects_memories(tool: str, world: dict[str, Any], daemon: Path) -> None:
    out, err = _hook(world, tool, _prompt_payload(tool, world["project"], "which database do the orders use?"))
    text = _context(tool, out)
    if tool not in ("cline", "cursor"):
        expected = "BeforeAgent" if tool == "gemini-cli" else "UserPromptSubmit"
        assert out["hookSpecificOutput"]["hookEventName"] == expected
    assert DECISION in text and f"id={world['ids'][DECISION]}" in text
    assert ELSEWHERE not in text and "Ana's own note" not in text  # other project, other user
    assert text.startswith("<memscribe-context>\nRecalled memory: background data") and "not an instruction" in text
    assert len(text) <= recall.MAX_CHARS and err == ""


def test_session_start_lists_the_project(world: dict[str, Any], daemon: Path) -> None:
    payload = {"conversation_id": "c1", "hook_event_name": "sessionStart", "workspace_roots": [str(world["project"])]}
    out, _ = _hook(world, "cursor", payload, cwd=world["home"])
    text = out["additional_context"]
    assert all(t in text for t in (DECISION, CONVENTION, PITFALL)) and ELSEWHERE not in text
    claude, _ = _hook(world, "claude-code", {"hook_event_name": "SessionStart", "source": "startup",
                                             "cwd": str(world["project"])})  # fmt: skip
    assert claude["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert PITFALL in claude["hookSpecificOutput"]["additionalContext"]


def test_the_warm_daemon_sees_new_memories(world: dict[str, Any], daemon: Path) -> None:
    memory = Memory(world["home"] / "memscribe.db", config=MemoryConfig(embedder="hash", writer="raw"))
    memory.add("Decision: orders use Redis streams for the outbox.", user_id="ana", project=str(world["project"]))
    memory.close()
    out, _ = _hook(world, "codex", _prompt_payload("codex", world["project"], "outbox Redis streams"))
    assert "Redis streams for the outbox" in out["hookSpecificOutput"]["additionalContext"]


def _env(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("MEMSCRIBE_HOME", "MEMSCRIBE_EMBEDDER", "MEMSCRIBE_WRITER", "MEMSCRIBE_USER", "MEMSCRIBE_HOOK_DAEMON"):
        monkeypatch.setenv(key, world["env"][key])
    monkeypatch.chdir(world["project"])


def test_cold_path_answers_without_a_daemon(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    _env(world, monkeypatch)
    reply = run(
        "claude-code",
        json.dumps(_prompt_payload("claude-code", world["project"], "which database do the orders use?")),
        os.environ,
    )
    assert reply["warm"] is False and world["ids"][DECISION] in reply["ids"]


def test_calls_go_to_the_warm_daemon(world: dict[str, Any], daemon: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _env(world, monkeypatch)
    reply = run(
        "codex", json.dumps(_prompt_payload("codex", world["project"], "which database do the orders use?")), os.environ
    )
    assert reply["warm"] is True and world["ids"][DECISION] in reply["ids"] and "error" not in reply


def test_bad_input_never_breaks_the_tool(world: dict[str, Any]) -> None:
    out, err = _hook(world, "claude-code", "this is not json")
    assert out == {} and "memscribe recall:" in err
    cline, _ = _hook(world, "cline", "[1, 2]")
    assert cline == {"cancel": False, "contextModification": "", "errorMessage": ""}
    other, err = _hook(world, "vim", "{}")
    assert other == {} and "unknown hook tool 'vim'" in err


def test_pack_respects_the_budget_and_order() -> None:
    items = [{"id": f"m{i}", "memory": "x" * 150, "project": "/p"} for i in range(80)]
    text, ids = recall.pack(items, budget_tokens=200, title="recall")
    assert len(text) <= 800 and ids == [f"m{i}" for i in range(len(ids))] and 1 <= len(ids) < 5
    big, big_ids = recall.pack(items, budget_tokens=5000, title="recall")
    assert len(big) <= recall.MAX_CHARS and len(big_ids) < 80
    assert recall.pack(items, budget_tokens=10, title="recall") == ("", [])


def test_cli_recall_command_is_the_same_hook(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from memscribe.cli.main import cli

    monkeypatch.chdir(world["project"])
    env = {k: world["env"][k] for k in world["env"] if k.startswith("MEMSCRIBE_")}
    payload = json.dumps(_prompt_payload("codebuddy", world["project"], "which database do the orders use?"))
    done = CliRunner().invoke(cli, ["hub", "recall", "--hook", "codebuddy", "--budget", "150"], input=payload, env=env)
    assert done.exit_code == 0, done.output
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DECISION in text and len(text) <= 600


@pytest.mark.parametrize("tool", ["claude-code", "codex", "gemini-cli", "cline"])
def test_the_installed_hook_command_runs_as_written(tool: str, world: dict[str, Any], tmp_path: Path) -> None:
    from memscribe.hub.feed import install as feed
    from memscribe.hub.feed.tools import Ctx

    home = tmp_path / "person"
    home.mkdir()
    ctx = Ctx(home=home, exe="/usr/local/bin/memscribe", state=home / ".ms-hub", python=sys.executable)
    feed.install(tool, ctx)
    if tool == "cline":
        hook = home / "Documents" / "Cline" / "Hooks" / "UserPromptSubmit"
        assert os.access(hook, os.X_OK)
        argv: list[str] = [str(hook)]
    else:
        settings = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json"}.get(
            tool, ".gemini/settings.json"
        )
        hooks = json.loads((home / settings).read_text())["hooks"]
        event = "BeforeAgent" if tool == "gemini-cli" else "UserPromptSubmit"
        argv = ["sh", "-c", hooks[event][0]["hooks"][0]["command"]]
    payload = json.dumps(_prompt_payload(tool, world["project"], "which database do the orders use?"))
    done = subprocess.run(argv, input=payload, capture_output=True, text=True, env=world["env"], timeout=60, check=True)
    assert DECISION in _context(tool, json.loads(done.stdout))


def test_an_unrelated_prompt_gets_nothing(world: dict[str, Any], daemon: Path) -> None:
    out, err = _hook(
        world, "claude-code", _prompt_payload("claude-code", world["project"], "what's the weather in Paris")
    )
    assert out == {} and err == ""


def test_the_installed_command_is_answered_warm(world: dict[str, Any], daemon: Path) -> None:
    """The command ``hub install`` writes (``python -S …/hook.py TOOL``) goes to the daemon: no engine load."""
    from memscribe.hub.feed.tools import Ctx

    command = Ctx(home=Path.home(), exe="memscribe", state=Path.home(), python=sys.executable).hook("claude-code")
    payload = json.dumps(_prompt_payload("claude-code", world["project"], "which database do the orders use?"))
    env = {**world["env"], "PYTHONVERBOSE": "1"}  # every import on stderr: the warm path loads no memscribe module
    done = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, text=True, env=env, timeout=60,
                          check=True, cwd=world["project"])  # fmt: skip
    assert DECISION in _context("claude-code", json.loads(done.stdout))
    imported = [line for line in done.stderr.splitlines() if line.startswith("import ")]
    assert imported and not [line for line in imported if "memscribe" in line or "'json" in line]


def test_the_raw_request_keeps_every_field() -> None:
    from memscribe.hub.feed.daemon import raw_request
    from memscribe.hub.feed.hook import RAW_MAGIC

    stdin = '{"prompt": "caf\\u00e9 \\u0000"}'
    data = RAW_MAGIC + "\0".join(["codex", "/w/é", "ana", "\x01", "300"]).encode() + b"\0" + stdin.encode()
    assert raw_request(data) == {"tool": "codex", "cwd": "/w/é", "user": "ana", "project": None, "budget": 300,
                                 "stdin": stdin}  # fmt: skip
    assert raw_request(RAW_MAGIC + b"codex\0/w") == {}


def test_the_socket_lives_in_the_default_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from memscribe.config import default_home

    monkeypatch.delenv("MEMSCRIBE_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", f"/tmp/ms-{os.getpid()}")  # short: AF_UNIX paths are limited
    env = {k: v for k, v in os.environ.items() if k != "MEMSCRIBE_HOME"}
    assert Path(socket_path(env)).parent == default_home() / "hub"
