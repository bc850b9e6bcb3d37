"""``memscribe hub doctor``: for each tool, whether it is here, whether memscribe is installed into it, and
whether the tool's config still holds a server entry whose executable exists."""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memscribe.errors import InvalidInput
from memscribe.hub.feed import jsonc
from memscribe.hub.feed.tools import TOOLS, Ctx, ServerCheck

__all__ = ["Health", "check_all", "read_server"]


@dataclass(frozen=True)
class Health:
    tool: str
    present: bool
    installed: bool
    server: str  # "ok", "missing", "no MCP", "broken: ..."
    detail: str


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
        check = tool.server(ctx)
        if check is None:
            out.append(Health(name, present, installed, "no MCP", tool.note))
            continue
        try:
            entry = read_server(check)
        except InvalidInput as exc:
            out.append(Health(name, present, installed, "broken", str(exc)))
            continue
        cmd = _command(entry)
        if entry is None:
            state, detail = "missing", f"no server entry in {check.path}"
        elif cmd is None or not (os.path.isabs(cmd) and os.access(cmd, os.X_OK)):
            state, detail = "broken", f"{check.path}: command {json.dumps(cmd)} is not an executable absolute path"
        else:
            state, detail = "ok", f"{check.path} runs {cmd}"
        out.append(Health(name, present, installed, state, detail))
    return out


def state_dir(home: str | None) -> Path:
    return Path(home or ".").expanduser() / "hub"
