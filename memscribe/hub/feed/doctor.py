"""``memscribe hub doctor``: for each tool, whether it is here, whether memscribe is installed into it, whether
the tool's config still holds a server entry whose executable exists, and whether the recall hook that
``hub install`` registered is there, executable, and runs with the interpreter it names (``hook.py --check``
loads the engine in that interpreter)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memscribe.errors import InvalidInput
from memscribe.hub.feed import jsonc
from memscribe.hub.feed.tools import TOOLS, Ctx, Edit, ServerCheck, Tool

__all__ = ["Health", "check_all", "read_server"]


@dataclass(frozen=True)
class Health:
    tool: str
    present: bool
    installed: bool
    server: str  # "ok", "missing", "no MCP", "broken: ..."
    detail: str
    hooks: str = "none"  # "ok", "missing", "broken", "none" (the tool has no hooks)
    hooks_detail: str = ""


def _yaml_rows(doc: Any, row_id: str) -> Any:
    for op in doc or []:
        for row in (op or {}).get("insert", []) if isinstance(op, dict) else []:
            if isinstance(row, dict) and row.get("id") == row_id:
                return row.get("config")
    return None


def read_server(check: ServerCheck) -> Any:
    """The server entry at ``check`` (None when absent); InvalidInput when the file does not parse."""
    if not check.path.exists():
        return None
    text = check.path.read_text(encoding="utf-8")
    if check.fmt == "toml":
        try:
            node: Any = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InvalidInput(f"{check.path} does not parse: {exc}") from exc
    elif check.fmt == "yaml":
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError

        try:
            doc = YAML(typ="safe").load(text)
        except YAMLError as exc:
            raise InvalidInput(f"{check.path} does not parse: {exc}") from exc
        if isinstance(doc, list):
            return _yaml_rows(doc, check.keys[0])
        node = doc
    else:
        return jsonc.get_path(text, list(check.keys))
    for key in check.keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _command(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    cmd = entry.get("command")
    if isinstance(cmd, list):
        cmd = cmd[0] if cmd else None
    return cmd if isinstance(cmd, str) else None


def check_all(ctx: Ctx) -> list[Health]:
    out = []
    for name, tool in TOOLS.items():
        present = tool.config_dir(ctx).exists()
        installed = (ctx.state / "installs" / f"{name}.json").exists()
        state, detail = _server_health(tool, ctx)
        hooks, hooks_detail = hook_health(tool, ctx)
        out.append(Health(name, present, installed, state, detail, hooks, hooks_detail))
    return out


def _server_health(tool: Tool, ctx: Ctx) -> tuple[str, str]:
    check = tool.server(ctx)
    if check is None:
        return "no MCP", tool.note
    try:
        entry = read_server(check)
    except InvalidInput as exc:
        return "broken", str(exc)
    cmd = _command(entry)
    if entry is None:
        return "missing", f"no server entry in {check.path}"
    if cmd is None or not (os.path.isabs(cmd) and os.access(cmd, os.X_OK)):
        return "broken", f"{check.path}: command {json.dumps(cmd)} is not an executable absolute path"
    return "ok", f"{check.path} runs {cmd}"


# -- recall hooks ----------------------------------------------------------------------------------------------

_HOOK_MARKS = ("hook.py", "memscribe.cli.hub_hook")


def hook_health(tool: Tool, ctx: Ctx) -> tuple[str, str]:
    """The registered recall hooks of ``tool``: ("none" | "missing" | "broken" | "ok", what was found)."""
    edits = [e for e in tool.edits(ctx) if "recall hook" in e.what or e.what == "recall launcher"]
    if not edits:
        return "none", ""
    commands: list[tuple[Path, str]] = []
    for edit in edits:
        found, problem = _hook_commands(edit)
        if problem:
            return "broken", problem
        commands += [(edit.path, c) for c in found]
    if not commands:
        return "missing", "no memscribe recall hook in " + ", ".join(sorted({str(e.path) for e in edits}))
    for path, command in dict.fromkeys(commands):
        problem = check_hook_command(command)
        if problem:
            return "broken", f"{path}: {problem}"
    return "ok", "; ".join(f"{p} runs {c}" for p, c in dict.fromkeys(commands))


def _hook_commands(edit: Edit) -> tuple[list[str], str | None]:
    """The memscribe hook commands ``edit``'s file holds now, or a problem with the file itself."""
    try:
        text = edit.path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], None
    except (OSError, UnicodeDecodeError) as exc:
        return [], f"{edit.path}: {exc}"
    if edit.fmt == "sh":  # the script is the hook (Cline): it must stay executable
        if not os.access(edit.path, os.X_OK):
            return [], f"{edit.path} is not executable"
        lines = [ln.strip().removeprefix("exec ") for ln in text.splitlines() if ln.strip().startswith("exec ")]
        return [ln for ln in lines if any(m in ln for m in _HOOK_MARKS)], None
    try:
        node = json.loads(text) if edit.what == "recall launcher" else jsonc.get_path(text, ["hooks"])
    except (ValueError, InvalidInput) as exc:
        return [], f"{edit.path} does not parse: {exc}"
    if edit.what == "recall launcher":  # the OpenClaw plugin's: {python, hook}
        node = {"command": shlex.join([str(node.get("python")), "-S", str(node.get("hook"))])} if node else None
    return [c for c in _strings(node, "command") if any(m in c for m in _HOOK_MARKS)], None


def _strings(node: Any, key: str) -> list[str]:
    if isinstance(node, dict):
        out = [v for k, v in node.items() if k == key and isinstance(v, str)]
        return out + [s for v in node.values() for s in _strings(v, key)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v, key)]
    return []


def check_hook_command(command: str) -> str | None:
    """None when ``command`` (``PYTHON -S …/hook.py TOOL`` or ``PYTHON -m memscribe.cli.hub_hook TOOL``) names
    an executable interpreter and a hook client that load memscribe's engine; else what is wrong."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"cannot parse {command!r}: {exc}"
    python = argv[0] if argv else ""
    if not (os.path.isabs(python) and os.access(python, os.X_OK)):
        return f"interpreter {python!r} is not an executable absolute path"
    if "-m" in argv[:-1]:
        run = [python, "-m", argv[argv.index("-m") + 1], "--check"]
    else:
        script = next((a for a in argv[1:] if a.endswith("hook.py")), None)
        if script is None or not os.path.isfile(script):
            return f"hook client {script!r} does not exist"
        run = [python, "-S", script, "--check"]
    try:
        done = subprocess.run(run, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{shlex.join(run)} did not run: {exc}"
    try:
        report = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        report = {}
    if done.returncode != 0 or not isinstance(report, dict) or not report.get("ok"):
        why = report.get("error") if isinstance(report, dict) and report.get("error") else done.stderr.strip()[-300:]
        return f"{python} cannot run the hook: {why or f'exit {done.returncode}'}"
    return None


def state_dir(home: str | None) -> Path:
    return Path(home or ".").expanduser() / "hub"
