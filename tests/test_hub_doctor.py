"""`memscribe hub doctor` checks the recall hook each install registered: there, executable, and run by an
interpreter that loads memscribe (the hook client's ``--check``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from memscribe.hub.feed import install as feed
from memscribe.hub.feed.doctor import check_all, check_hook_command, hook_health
from memscribe.hub.feed.tools import HOOK_CLIENT, TOOLS, Ctx

FIXTURE = Path(__file__).parent / "fixtures" / "hub_home"


@pytest.fixture
def ctx(tmp_path: Path) -> Ctx:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE, home)
    exe = tmp_path / "venv" / "bin" / "memscribe"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return Ctx(home=home, exe=str(exe), state=home / ".memscribe" / "hub", environ={}, platform="linux")


def test_installed_hooks_are_checked_end_to_end(ctx: Ctx) -> None:
    for name in ("claude-code", "cline", "openclaw"):
        feed.install(name, ctx)
    rows = {r.tool: r for r in check_all(ctx)}
    for name in ("claude-code", "cline", "openclaw"):
        assert rows[name].hooks == "ok", rows[name].hooks_detail
        assert HOOK_CLIENT in rows[name].hooks_detail and sys.executable in rows[name].hooks_detail
    assert rows["codex"].hooks == "missing"  # has hooks, not installed here
    assert rows["opencode"].hooks == "none" and rows["opencode"].hooks_detail == ""


def test_a_hook_script_that_lost_its_execute_bit_is_broken(ctx: Ctx) -> None:
    feed.install("cline", ctx)
    script = ctx.home / "Documents" / "Cline" / "Hooks" / "UserPromptSubmit"
    script.chmod(0o644)
    state, detail = hook_health(TOOLS["cline"], ctx)
    assert state == "broken" and "is not executable" in detail and str(script) in detail


def test_an_interpreter_that_is_gone_or_cannot_load_memscribe_is_broken(ctx: Ctx, tmp_path: Path) -> None:
    gone = replace(ctx, python=str(tmp_path / "old-venv" / "bin" / "python"))
    feed.install("claude-code", gone)
    state, detail = hook_health(TOOLS["claude-code"], ctx)
    assert state == "broken" and "old-venv" in detail and "not an executable absolute path" in detail
    lame = tmp_path / "lame-python"
    lame.write_text("#!/bin/sh\necho 'no module named memscribe' >&2\nexit 1\n")
    lame.chmod(0o755)
    problem = check_hook_command(f"{lame} -S {HOOK_CLIENT} claude-code")
    assert problem is not None and "cannot run the hook" in problem and "no module named memscribe" in problem
    missing = check_hook_command(f"{sys.executable} -S {tmp_path / 'moved' / 'hook.py'} claude-code")
    assert missing is not None and "does not exist" in missing


def test_the_hook_client_check_reports_its_interpreter() -> None:
    done = subprocess.run([sys.executable, "-S", HOOK_CLIENT, "--check"], capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"] is True and report["python"] == sys.executable
    legacy = subprocess.run([sys.executable, "-m", "memscribe.cli.hub_hook", "--check"], capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert legacy.returncode == 0 and json.loads(legacy.stdout)["ok"] is True
    assert check_hook_command(f"{sys.executable} -m memscribe.cli.hub_hook claude-code") is None
