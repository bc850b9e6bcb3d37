"""Cline, Roo Code and Kilo Code (VS Code extensions): ``<editor>/User/globalStorage/<extension>/tasks/<id>/``.

Each task folder holds ``api_conversation_history.json`` (Anthropic-style messages: text, ``tool_use`` and
``tool_result`` blocks; older Cline put tool calls as XML tags in text) and ``ui_messages.json`` (epoch-ms
``ts`` per UI message, linked by ``conversationHistoryIndex``). The first prompt is wrapped in ``<task>``
and every user turn carries an ``<environment_details>`` block, which is dropped. The project is Cline's
``state/taskHistory.json`` ``cwdOnTaskInitialization`` or Roo's ``history_item.json`` ``workspace``, else the
``taskHistory`` kept in the editor's ``globalStorage/state.vscdb`` (the one ``ItemTable`` row keyed by the
extension id; no other row is read); the index is only consulted, never trusted to list the tasks (folders are
scanned). The Cline CLI keeps the same task
folders under ``~/.cline/data`` (``$CLINE_DATA_DIR``, ``$CLINE_DIR``), and its SDK session store beside them
(``sessions/``, read by :mod:`memscribe.hub.sources.cline_sdk`).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import as_text, clean_text
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, Turn
from memscribe.hub.places import open_readonly
from memscribe.hub.reading import iso_or_epoch, load_json
from memscribe.hub.sources.blocks import read_blocks
from memscribe.hub.sources.cline_sdk import KIND as SDK_KIND
from memscribe.hub.sources.cline_sdk import discover_sessions, read_session, sessions_dir

__all__ = ["EXTENSIONS", "ClineSource"]

EXTENSIONS = {
    "saoudrizwan.claude-dev": "cline",
    "rooveterinaryinc.roo-cline": "roo-code",
    "kilocode.kilo-code": "kilo-code",
}
_EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
_FEEDBACK = re.compile(r"</?(?:feedback|answer|user_message)>")


def _user_dirs(env: HubEnv) -> list[Path]:
    home = env.home
    dirs = [home / ".vscode-server" / "data" / "User"]
    for editor in _EDITORS:
        dirs += [
            home / ".config" / editor / "User",
            home / "Library" / "Application Support" / editor / "User",
            home / "AppData" / "Roaming" / editor / "User",
        ]
    return dirs


class ClineSource:
    name = "cline"
    title = "Cline / Roo Code / Kilo Code"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for user in env.paths.get(self.name) or _user_dirs(env):
            for ext in EXTENSIONS:
                yield from _tasks(user / "globalStorage" / ext, ext)
        if self.name not in env.paths:  # the Cline CLI (and, since the SDK move, the extension) share ~/.cline/data
            data = _data_dir(env)
            yield from _tasks(data, "saoudrizwan.claude-dev")
            yield from discover_sessions(sessions_dir(env, data), self.name)

    def read(self, item: SourceFile) -> ReadResult:
        if item.kind == SDK_KIND:
            return read_session(item)
        result = ReadResult()
        history = load_json(item.path / "api_conversation_history.json", result)
        if not isinstance(history, list):
            return result
        ui = load_json(item.path / "ui_messages.json", result) if (item.path / "ui_messages.json").exists() else None
        times = {m.get("conversationHistoryIndex"): m.get("ts") for m in ui or [] if isinstance(m, dict)}
        started = iso_or_epoch(next((m.get("ts") for m in ui or [] if isinstance(m, dict)), None), unit="ms")
        session = Session(id=item.path.name, tool=EXTENSIONS.get(item.kind, self.name), started=started, cwd=_cwd(item))
        names: dict[str, str] = {}
        for index, message in enumerate(history):
            if not isinstance(message, dict):
                result.malformed += 1
                continue
            result.saw(str(message.get("role")))
            when = iso_or_epoch(message.get("ts") or times.get(index) or times.get(index - 1), unit="ms") or started
            session.turns.extend(_message(str(index), message, when, names, result))
        result.sessions.append(session)
        return result


def _data_dir(env: HubEnv) -> Path:
    if env.environ.get("CLINE_DATA_DIR", "").strip():
        return Path(env.environ["CLINE_DATA_DIR"]).expanduser()
    base = env.environ.get("CLINE_DIR", "").strip()
    return (Path(base).expanduser() if base else env.home / ".cline") / "data"


def _tasks(base: Path, ext: str) -> Iterator[SourceFile]:
    for task in sorted(p for p in (base / "tasks").glob("*") if p.is_dir()):
        watch = (task / "api_conversation_history.json", task / "ui_messages.json")
        yield SourceFile(ClineSource.name, task, kind=ext, watch=watch)


def _editor_index(db: Path, ext: str) -> dict[str, dict[str, Any]]:
    """Task id → entry of the ``taskHistory`` an extension keeps in the editor's globalState: the one
    ``ItemTable`` row keyed by its extension id in ``globalStorage/state.vscdb`` (Roo Code, older Cline)."""
    if not db.is_file():
        return {}
    try:
        with open_readonly(db) as conn:
            row = conn.execute("SELECT value FROM ItemTable WHERE key = ?", (ext,)).fetchone()
        state = json.loads(bytes(row[0]) if isinstance(row[0], bytes) else str(row[0])) if row else {}
    except (sqlite3.Error, ValueError, UnicodeDecodeError):
        return {}
    history = state.get("taskHistory") if isinstance(state, dict) else None
    return {str(e["id"]): e for e in history or [] if isinstance(e, dict) and e.get("id")}


def _cwd(item: SourceFile) -> str | None:
    roo = item.path / "history_item.json"
    scratch = ReadResult()
    if roo.exists():
        found = load_json(roo, scratch)
        if isinstance(found, dict) and found.get("workspace"):
            return str(found["workspace"])
    entry = _editor_index(item.path.parents[2] / "state.vscdb", item.kind).get(item.path.name)
    if entry and (entry.get("workspace") or entry.get("cwdOnTaskInitialization")):
        return str(entry.get("workspace") or entry.get("cwdOnTaskInitialization"))
    index = (
        load_json(item.path.parents[1] / "state" / "taskHistory.json", scratch)
        if (item.path.parents[1] / "state" / "taskHistory.json").exists()
        else None
    )
    for entry in index or []:
        if isinstance(entry, dict) and str(entry.get("id")) == item.path.name:
            return entry.get("cwdOnTaskInitialization")
    return None


def _message(key: str, m: dict[str, Any], when: Any, names: dict[str, str], result: ReadResult) -> list[Turn]:
    role = m.get("role")
    blocks = read_blocks(key, m.get("content"), when, names, tool_text=as_text)
    raw, calls, out = blocks.raw, blocks.calls, blocks.results
    task = _between(raw, "<task>", "</task>")
    text = clean_text(_FEEDBACK.sub("", task if task is not None else raw))
    if role == "user":
        if text:
            out.append(Turn(key, "user", text, when))  # after the results it carries, as the model read them
        elif raw.strip():
            result.boilerplate += 1
        return out
    if role == "assistant":
        return [Turn(key, "assistant", text, when, tuple(calls))] if text or calls else []
    result.skip(f"role/{role}")
    return []


def _between(text: str, start: str, end: str) -> str | None:
    """The text between the first ``start`` and the ``end`` after it, or None; linear where a lazy regex
    (``<task>(.*?)</task>``) is quadratic on a long text with no closing tag."""
    begin = text.find(start)
    if begin < 0:
        return None
    stop = text.find(end, begin + len(start))
    return None if stop < 0 else text[begin + len(start) : stop]
