"""`memscribe hub install|uninstall` per tool, against a fixture home: the tool's config parses with an
independent parser of its format and holds the server, install twice changes nothing, and uninstall puts back
every file byte for byte."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import json5
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from memscribe.cli.main import cli
from memscribe.errors import InvalidInput, NotFound
from memscribe.hub.feed import install as feed
from memscribe.hub.feed.tools import TOOLS, Ctx

FIXTURE = Path(__file__).parent / "fixtures" / "hub_home"
HOOK_FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "cursor": ".cursor/hooks.json",
    "gemini-cli": ".gemini/settings.json",
    "workbuddy": ".workbuddy/settings.json",
    "codebuddy": ".codebuddy/settings.json",
    "deepseek-harness": ".memscribe/hub/dsh-hooks.json",
}


def _snapshot(root: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if rel.startswith(".memscribe"):
            continue
        out[rel] = path.read_bytes() if path.is_file() else None
    return out


@pytest.fixture
def home(tmp_path: Path) -> Path:
    target = tmp_path / "home"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture
def ctx(home: Path) -> Ctx:
    exe = home.parent / "venv" / "bin" / "memscribe"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return Ctx(home=home, exe=str(exe), state=home / ".memscribe" / "hub", environ={}, platform="linux")


def _parse(path: Path, fmt: str) -> Any:
    text = path.read_text()
    if fmt == "toml":
        return tomllib.loads(text)
    if fmt == "yaml":
        return YAML(typ="safe").load(text)
    if fmt in ("jsonc", "json5"):
        return json5.loads(text)
    return json.loads(text)


def _server(ctx: Ctx, name: str) -> Any:
    check = TOOLS[name].server(ctx)
    assert check is not None
    doc = _parse(check.path, check.fmt)
    if name == "deepseek-harness":
        rows = [r for op in doc if isinstance(op, dict) for r in op.get("insert", [])]
        return next(r["config"] for r in rows if r["id"] == "mcp-memscribe")
    for key in check.keys:
        doc = doc[key]
    return doc


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_install_parses_is_idempotent_and_uninstall_restores_bytes(name: str, home: Path, ctx: Ctx) -> None:
    before = _snapshot(home)
    first = feed.install(name, ctx)
    assert first.changed and not first.left_alone
    if TOOLS[name].server(ctx) is not None:
        entry = _server(ctx, name)
        command = entry["command"]
        argv = command if isinstance(command, list) else [command, *entry["args"]]
        assert argv == [ctx.exe, "mcp", "--stdio"]
    else:  # Pi: no MCP client; the digest names the CLI by its absolute path
        assert ctx.exe in (home / ".pi" / "agent" / "AGENTS.md").read_text()
    if name in HOOK_FILES:
        hooks = _parse(home / HOOK_FILES[name], "json")["hooks"]
        commands = json.dumps(hooks)
        assert json.dumps(ctx.hook(name))[1:-1] in commands
        assert " -S " in ctx.hook(name) and ctx.hook(name).endswith(f"memscribe/hub/feed/hook.py {name}")
        assert all(isinstance(v, list) and v for v in hooks.values())
    second = feed.install(name, ctx)
    assert second.changed == [] and second.left_alone == []
    assert feed.diff(feed.plan(name, ctx)) == ""
    feed.uninstall(name, ctx)
    assert _snapshot(home) == before
    assert not (ctx.state / "installs" / f"{name}.json").exists()


def test_comments_and_other_entries_are_kept(home: Path, ctx: Ctx) -> None:
    for name in ("codex", "opencode", "hermes", "codebuddy", "openclaw", "deepseek-harness", "claude-code"):
        feed.install(name, ctx)
    toml = (home / ".codex" / "config.toml").read_text()
    assert 'model = "gpt-5-codex"  # the default model' in toml and "[profiles.fast]" in toml
    assert tomllib.loads(toml)["mcp_servers"]["docs"]["command"] == "docs-mcp"
    jsonc = (home / ".config" / "opencode" / "opencode.jsonc").read_text()
    assert "// OpenCode config, hand-written" in jsonc and '"theme": "tokyonight", // favourite' in jsonc
    assert json5.loads(jsonc)["mcp"]["fs"]["command"] == ["fs-mcp"]
    yaml = (home / ".hermes" / "config.yaml").read_text()
    assert '"anthropic/claude-sonnet"   # keep quoted' in yaml and "# Hermes config" in yaml
    assert YAML(typ="safe").load(yaml)["mcp_servers"]["time"]["command"] == "uvx"
    assert "// CodeBuddy user MCP servers" in (home / ".codebuddy" / ".mcp.json").read_text()
    assert "// OpenClaw config (JSON5)" in (home / ".openclaw" / "openclaw.json").read_text()
    patch = (home / ".dsh" / "cordis.patch.yml").read_text()
    assert "enabled: false  # no session log to the API" in patch
    claude = json.loads((home / ".claude" / "settings.json").read_text())
    assert claude["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert claude["permissions"] == {"allow": ["Bash(git status)"]}
    assert (home / ".claude" / "CLAUDE.md").read_text().startswith("# My global rules\n\n- Prefer small commits.\n")


def test_digest_is_imported_or_a_marked_block(home: Path, ctx: Ctx) -> None:
    feed.install("claude-code", ctx)
    feed.install("codex", ctx)
    line = (home / ".claude" / "CLAUDE.md").read_text().splitlines()[-1]
    digest = Path(line[1:]).read_text()
    assert line.startswith("@") and digest.startswith("<!-- memscribe:begin -->\n# Shared memory (memscribe)")
    agents = (home / ".codex" / "AGENTS.md").read_text()
    assert agents.startswith("# Personal Codex notes\n\nAlways run the tests.\n")
    assert agents.count("<!-- memscribe:begin") == 1 and "not instructions" in agents


def test_a_file_changed_since_install_is_left_alone(home: Path, ctx: Ctx) -> None:
    feed.install("codex", ctx)
    config = home / ".codex" / "config.toml"
    edited = config.read_text() + '\n[mcp_servers.mine]\ncommand = "mine"\n'
    config.write_text(edited)
    out = feed.uninstall("codex", ctx)
    assert [p for p, _ in out.left_alone] == [config] and "changed since install" in out.left_alone[0][1]
    assert config.read_text() == edited
    assert (home / ".codex" / "AGENTS.md").read_bytes() == (FIXTURE / ".codex" / "AGENTS.md").read_bytes()
    again = feed.uninstall("codex", ctx)  # the manifest keeps the file it could not restore
    assert [p for p, _ in again.left_alone] == [config]


def test_a_broken_config_stops_install_before_any_write(home: Path, ctx: Ctx) -> None:
    (home / ".claude" / "settings.json").write_text('{"hooks": [oops}\n')
    before = _snapshot(home)
    with pytest.raises(InvalidInput, match=r"settings\.json"):
        feed.install("claude-code", ctx)
    assert _snapshot(home) == before


def test_instruction_budget_is_respected(home: Path, ctx: Ctx) -> None:
    (home / ".codex" / "AGENTS.md").write_text("x" * (32 * 1024 - 100))
    with pytest.raises(InvalidInput, match="budget of 32768 bytes"):
        feed.install("codex", ctx)
    with pytest.raises(NotFound):
        feed.uninstall("codex", ctx)


def test_cli_dry_run_prints_the_diff_and_changes_nothing(home: Path, ctx: Ctx, tmp_path: Path) -> None:
    env = {"HOME": str(home), "MEMSCRIBE_HOME": str(home / ".memscribe")}
    before = _snapshot(home)
    runner = CliRunner()
    dry = runner.invoke(cli, ["hub", "install", "codex", "--dry-run", "--executable", ctx.exe], env=env)
    assert dry.exit_code == 0, dry.output
    assert f'+command = "{ctx.exe}"' in dry.output and "+[mcp_servers.memscribe]" in dry.output
    assert _snapshot(home) == before
    done = runner.invoke(cli, ["hub", "install", "codex", "cursor", "--executable", ctx.exe], env=env)
    assert done.exit_code == 0 and "codex: installed into" in done.output
    doctor = runner.invoke(cli, ["--json", "hub", "doctor"], env=env)
    rows = {r["tool"]: r for r in json.loads(doctor.output)}
    assert rows["codex"]["server"] == "ok" and rows["codex"]["installed"] and rows["cline"]["server"] == "missing"
    undo = runner.invoke(cli, ["hub", "uninstall", "codex", "cursor"], env=env)
    assert undo.exit_code == 0, undo.output
    assert _snapshot(home) == before
    bad = runner.invoke(cli, ["hub", "install", "vim", "--executable", ctx.exe], env=env)
    assert bad.exit_code != 0 and "unknown tool 'vim'" in bad.output
