"""Cline's SDK session store (the Cline CLI and, through the SDK, the newer extension builds).

Layout, from ``cline/cline`` ``sdk/packages/shared/src/storage/paths.ts`` and ``sdk/packages/core``
(``services/session-artifacts.ts``, ``session/stores/session-manifest-store.ts``, ``services/session-data.ts``):
``$CLINE_SESSION_DATA_DIR``, else ``$CLINE_DATA_DIR/sessions``, else ``$CLINE_DIR/data/sessions``, else
``~/.cline/data/sessions``. It holds ``sessions.db`` (SQLite, table ``sessions``: ``cwd``, ``workspace_root``,
``parent_session_id``, ``agent_id``, ``metadata_json``) and one folder per root session::

    <id>/<id>.json                    manifest: version 1, session_id, cwd, workspace_root, started_at,
                                      metadata.title, metadata.fork {forkedFromSessionId, forkedAt}
    <id>/<id>.messages.json           {version 1, agent "lead", sessionId, origin, messages[], system_prompt}
    <id>/<agentId>.messages.json      a sub-agent's run (agent "subagent", sessionId "<id>__<agentId>")
    <id>/<agent>__<task>.messages.json  a team task (agent "teammate")
    <id>/<id>.compaction.json         a compacted working view; the messages file stays canonical: not read

Each messages file is rewritten whole on every turn boundary (not atomically): a file caught half-written is
malformed and read again once it changes. A message is ``{id, role, content, ts (epoch ms), modelInfo,
metrics}``; content blocks are ``text``, ``file`` (an attached file's content), ``image``, ``media``,
``tool_use`` {id, name, input}, ``tool_result`` {tool_use_id, name, content: a string or a list of
text/image/file blocks or tool records such as ``{query, result, success}``, is_error}, ``thinking`` and
``redacted_thinking``. Message ids are not stable across rewrites (tool-result ids grow a suffix), so a turn
is keyed by a digest of its role, time and content. Typed prompts are wrapped in ``<user_input mode=…>`` or
``<user_command slash=…>`` and may carry ``<mode_notice>`` and ``<file_content>`` blocks: only the words
are kept. A fork starts with a copy of its origin's messages: those older than ``forkedAt`` are left to the
origin's own file while it exists.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import clean_text, mapping
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, Turn
from memscribe.hub.places import open_readonly
from memscribe.hub.reading import iso_or_epoch, load_json
from memscribe.hub.sources.blocks import read_blocks

__all__ = ["discover_sessions", "read_session", "sessions_dir"]

KIND = "cline-sdk"
_NOTICE = re.compile(r"<mode_notice>.*?</mode_notice>", re.DOTALL)
_FILE_CONTENT = re.compile(r"<file_content\b[^>]*>.*?(?:</file_content>|\Z)", re.DOTALL)
_COMMAND = re.compile(r"<user_command\b[^>]*\bslash=\"([^\"]+)\"[^>]*>(.*?)</user_command>", re.DOTALL)
_INPUT = re.compile(r"</?user_input\b[^>]*>")


def sessions_dir(env: HubEnv, data_dir: Path) -> Path:
    explicit = env.environ.get("CLINE_SESSION_DATA_DIR", "").strip()
    return Path(explicit).expanduser() if explicit else data_dir / "sessions"


def discover_sessions(base: Path, source: str) -> Iterator[SourceFile]:
    """Every messages file of every session folder under ``base`` (root sessions, sub-agents, team tasks)."""
    if not base.is_dir():
        return
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        manifest = folder / f"{folder.name}.json"
        for path in sorted(folder.glob("*.messages.json")):
            yield SourceFile(source, path, kind=KIND, watch=(path, manifest))


def read_session(item: SourceFile) -> ReadResult:
    result = ReadResult()
    payload = load_json(item.path, result)
    if not isinstance(payload, dict) or not isinstance(payload.get("messages"), list):
        if payload is not None:
            result.malformed += 1
        return result
    folder = item.path.parent
    path = folder / f"{folder.name}.json"
    manifest = mapping(load_json(path, ReadResult())) if path.is_file() else {}
    session = _session(item, payload, manifest)
    carried = _carried_until(folder.parent, manifest)
    seen: dict[str, int] = {}
    names: dict[str, str] = {}
    for message in payload["messages"]:
        if not isinstance(message, dict):
            result.malformed += 1
            continue
        result.saw(str(message.get("role")))
        when = iso_or_epoch(message.get("ts"), unit="ms") or session.started
        if carried is not None and when is not None and when < carried:
            result.withheld += 1  # the fork's copy of its origin: imported from the origin's file
            continue
        key = _key(message, seen)
        session.turns.extend(_turns(key, message, when, names, result))
    result.sessions.append(session)
    return result


def _session(item: SourceFile, payload: dict[str, Any], manifest: dict[str, Any]) -> Session:
    folder = item.path.parent
    sid = str(payload.get("sessionId") or item.path.name.removesuffix(".messages.json"))
    origin = mapping(payload.get("origin"))
    cwd = manifest.get("cwd") or manifest.get("workspace_root") or _db_cwd(folder.parent, folder.name)
    meta = mapping(manifest.get("metadata"))
    session = Session(
        id=sid,
        tool="cline",
        cwd=str(cwd) if cwd else None,
        title=meta.get("title") if isinstance(meta.get("title"), str) else None,
        started=iso_or_epoch(manifest.get("started_at")),
    )
    agent = str(payload.get("agent") or "lead")
    if agent != "lead" or sid != folder.name:
        session.sidechain, session.parent = True, str(origin.get("parentThreadId") or folder.name)
        session.title = None  # the manifest's title is the root session's
        session.meta["agent"] = agent
    fork = mapping(meta.get("fork"))
    if fork.get("forkedFromSessionId"):
        session.meta["forked_from"] = str(fork["forkedFromSessionId"])
    return session


def _carried_until(base: Path, manifest: dict[str, Any]) -> Any:
    """The fork time when this session is a fork whose origin is still on disk, else None."""
    fork = mapping(mapping(manifest.get("metadata")).get("fork"))
    origin = str(fork.get("forkedFromSessionId") or "")
    if not origin or origin != Path(origin).name or origin.startswith(".") or "\\" in origin:
        return None
    if not (base / origin / f"{origin}.messages.json").is_file():
        return None
    return iso_or_epoch(fork.get("forkedAt"))


def _db_cwd(base: Path, session_id: str) -> str | None:
    """The session's ``cwd`` in ``sessions.db`` (read-only), for a folder without a manifest."""
    db = base / "sessions.db"
    if not db.is_file():
        return None
    try:
        with open_readonly(db) as conn:
            row = conn.execute(
                "SELECT cwd, workspace_root FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
    except sqlite3.Error:
        return None
    return str(row[0] or row[1]) if row and (row[0] or row[1]) else None


def _key(message: dict[str, Any], seen: dict[str, int]) -> str:
    """A digest of role, time and content (ids change between rewrites); repeats of one message numbered."""
    blob = json.dumps([message.get("role"), message.get("ts"), message.get("content")], sort_keys=True, default=str)
    digest = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    n = seen.get(digest, 0)
    seen[digest] = n + 1
    return f"m:{digest}" if not n else f"m:{digest}:{n}"


def _turns(key: str, m: dict[str, Any], when: Any, names: dict[str, str], result: ReadResult) -> list[Turn]:
    role = m.get("role")
    blocks = read_blocks(key, m.get("content"), when, names, tool_text=_tool_output, tool_name="tool")
    raw, calls, out = blocks.raw, blocks.calls, blocks.results
    if role == "user":
        text = _typed_words(raw)
        if text:
            out.append(Turn(key, "user", text, when))
        elif raw.strip():
            result.boilerplate += 1
        return out
    if role == "assistant":
        text = clean_text(raw)
        return [Turn(key, "assistant", text, when, tuple(calls))] if text or calls else []
    result.skip(f"role/{role}")
    return []


def _typed_words(text: str) -> str:
    """What the person typed: mode notices and inlined files dropped, the input and command wrappers opened
    (a command as ``/slash words``)."""
    text = _FILE_CONTENT.sub("", _NOTICE.sub("", text))
    text = _COMMAND.sub(lambda m: f"/{m.group(1)} {m.group(2).strip()}".strip(), text)
    return clean_text(_INPUT.sub("", text))


def _tool_output(value: Any) -> str:
    """A tool result as text: strings as they are, text blocks joined, tool records (``{query, result}``) as
    their query and result, attached files by path, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    items = value if isinstance(value, list) else [value]
    parts = []
    for item in items:
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
            parts.append(item["text"])
        elif isinstance(item, dict) and item.get("type") in ("image", "media"):
            continue
        elif isinstance(item, dict) and item.get("type") == "file":
            parts.append(f"{item.get('path')}\n{item.get('content') or ''}".strip())
        elif isinstance(item, dict) and "result" in item:
            result = item["result"] if isinstance(item["result"], str) else json.dumps(item["result"], default=str)
            parts.append(f"{item.get('query')}\n{result}" if item.get("query") else result)
        else:
            parts.append(json.dumps(item, ensure_ascii=False, default=str))
    return "\n".join(p for p in parts if p)
