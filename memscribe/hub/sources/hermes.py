"""Hermes Agent: ``~/.hermes/state.db`` (``$HERMES_HOME``; each profile under ``profiles/*`` has its own).

SQLite in WAL mode, opened read-only. ``sessions`` rows chain through ``parent_session_id``: a session
ended by context compression is continued by its child, so such chains are one conversation (keyed by
the first session's id); children spawned by delegation are sub-agent runs, kept apart. ``messages`` rows
are OpenAI-shaped (``role``, ``content``, ``tool_calls`` JSON, ``tool_call_id``, ``tool_name``); rows with
``display_kind = 'hidden'`` are model-only scaffolding and compression summaries are the harness's own.
Messages are read incrementally: only rows past the highest ``messages.id`` of the last complete read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import as_arguments, clean_text, mapping
from memscribe.hub.model import HubEnv, ReadResult, Resume, Session, SourceFile, ToolUse, Turn
from memscribe.hub.places import open_readonly
from memscribe.hub.reading import iso_or_epoch

__all__ = ["HermesSource"]

_SESSION_COLS = (
    "id",
    "source",
    "parent_session_id",
    "end_reason",
    "model_config",
    "cwd",
    "git_repo_root",
    "title",
    "started_at",
)
_MESSAGE_COLS = (
    "id",
    "session_id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "display_kind",
    "active",
    "_compressed_summary",
)


class HermesSource:
    name = "hermes"
    title = "Hermes Agent"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for root in env.roots(self.name, ("HERMES_HOME",), (".hermes",)):
            for db in [root / "state.db", *sorted(root.glob("profiles/*/state.db"))]:
                if db.is_file():
                    yield SourceFile(self.name, db, kind="db", watch=(db, Path(f"{db}-wal")))

    def read(self, item: SourceFile) -> ReadResult:
        return self.read_since(item, Resume())

    def read_since(self, item: SourceFile, since: Resume) -> ReadResult:
        """Sessions whole (the compression chains need them all, and they are few), messages only past the
        last message id read: ``messages.id`` is an autoincrement key and rows are appended, never moved."""
        result = ReadResult()
        after = int(since.mark.get("messages", 0) or 0)
        with open_readonly(item.path) as conn:
            sessions = _rows(conn, "sessions", _SESSION_COLS, "ORDER BY started_at, id")
            top = conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0
            if top < after:  # rows went away: a rebuilt database, read it all (keys already imported are known)
                after = 0
            messages = _rows(conn, "messages", _MESSAGE_COLS, "WHERE id > ? ORDER BY id", (after,))
            names = _earlier_names(conn, messages, after)
        by_id = {str(s["id"]): s for s in sessions}
        built: dict[str, Session] = {}
        for s in sessions:
            result.saw("session")
            root, sidechain = _logical(s, by_id)
            if root not in built:
                built[root] = _session(by_id[root], sidechain)
        owner = {sid: _logical(s, by_id)[0] for sid, s in by_id.items()}
        mark, orphan = after, None
        for m in messages:
            result.saw(f"message/{m.get('role')}")
            mark = max(mark, int(m["id"]))
            session = built.get(owner.get(str(m.get("session_id")), ""))
            if session is None:  # its session row is not written yet: the next read starts before it
                orphan = int(m["id"]) - 1 if orphan is None else orphan
                continue
            turn = _turn(m, names, result)
            if turn is not None:
                session.turns.append(turn)
        result.sessions.extend(s for s in built.values() if s.turns or not after)
        result.mark = {"messages": mark if orphan is None else orphan}
        return result


def _session(head: dict[str, Any], sidechain: bool) -> Session:
    session = Session(
        id=str(head["id"]),
        cwd=head.get("cwd") or head.get("git_repo_root"),
        title=head.get("title"),
        started=iso_or_epoch(head.get("started_at"), unit="s"),
        sidechain=sidechain,
        parent=str(head.get("parent_session_id")) if sidechain else None,
    )
    if head.get("source"):
        session.meta["channel"] = head["source"]
    return session


def _earlier_names(conn: sqlite3.Connection, messages: list[dict[str, Any]], after: int) -> dict[str, str]:
    """Tool names of calls made at or before ``after`` that new tool rows without a ``tool_name`` answer."""
    wanted = {str(m.get("tool_call_id")) for m in messages if m.get("role") == "tool" and not m.get("tool_name")}
    sessions = sorted({str(m.get("session_id")) for m in messages if str(m.get("tool_call_id")) in wanted})
    names: dict[str, str] = {}
    if not after or not sessions:
        return names
    marks = ", ".join("?" * len(sessions))
    query = f"SELECT tool_calls FROM messages WHERE id <= ? AND role = 'assistant' AND session_id IN ({marks})"
    for (calls,) in conn.execute(query, (after, *sessions)):
        for call in _json_list(calls):
            if str(call.get("id")) in wanted:
                names[str(call["id"])] = str((mapping(call.get("function")) or call).get("name") or "tool")
    return names


def _rows(
    conn: sqlite3.Connection, table: str, wanted: tuple[str, ...], tail: str, args: tuple[Any, ...] = ()
) -> list[dict[str, Any]]:
    have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    cols = [c for c in wanted if c in have]
    if not cols:
        return []
    query = f"SELECT {', '.join(cols)} FROM {table} {tail}"
    return [dict(zip(cols, row, strict=True)) for row in conn.execute(query, args)]


def _logical(s: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> tuple[str, bool]:
    """The session a row belongs to: up the chain while each parent ended by compression."""
    if "_delegate_from" in str(s.get("model_config") or ""):
        return str(s["id"]), True
    current, seen = s, set()
    while current.get("parent_session_id") and str(current["parent_session_id"]) in by_id:
        parent = by_id[str(current["parent_session_id"])]
        if parent.get("end_reason") != "compression" or str(parent["id"]) in seen:
            break
        seen.add(str(parent["id"]))
        current = parent
    return str(current["id"]), False


def _turn(m: dict[str, Any], names: dict[str, str], result: ReadResult) -> Turn | None:
    role, key, when = m.get("role"), str(m.get("id")), iso_or_epoch(m.get("timestamp"), unit="s")
    if m.get("display_kind") == "hidden" or m.get("_compressed_summary") or role == "system" or m.get("active") == 0:
        result.boilerplate += 1
        return None
    text = clean_text(str(m.get("content") or ""))
    if role == "user":
        return Turn(key, "user", text, when) if text else None
    if role == "assistant":
        calls = []
        for call in _json_list(m.get("tool_calls")):
            fn = mapping(call.get("function")) or call
            name = str(fn.get("name") or "tool")
            names[str(call.get("id"))] = name
            calls.append(ToolUse(name, as_arguments(fn.get("arguments")), call.get("id")))
        return Turn(key, "assistant", text, when, tuple(calls)) if text or calls else None
    if role == "tool":
        call_id = str(m.get("tool_call_id"))
        return Turn(
            key,
            "tool",
            str(m.get("content") or ""),
            when,
            tool_name=m.get("tool_name") or names.get(call_id),
            tool_call_id=call_id,
        )
    result.skip(f"role/{role}")
    return None


def _json_list(value: Any) -> list[dict[str, Any]]:
    try:
        decoded = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return []
    return [c for c in decoded if isinstance(c, dict)] if isinstance(decoded, list) else []
