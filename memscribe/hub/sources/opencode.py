"""OpenCode: ``$XDG_DATA_HOME/opencode/`` (default ``~/.local/share/opencode/``), three generations.

- ≤ 1.1: JSON files under ``storage/``: ``session/<projectId>/<sessionId>.json``,
  ``message/<sessionId>/<messageId>.json`` and ``part/<messageId>/<partId>.json``; text lives only in parts.
- ≥ 1.2: SQLite ``opencode.db`` (or a channel name such as ``opencode-stable.db``): tables ``session``,
  ``message`` and ``part`` whose ``data`` column holds the old JSON.
- 2.0: a ``session_message`` table (typed rows: user, assistant with text/reasoning/tool content, shell,
  synthetic, compaction, …) beside the v1 ``message``/``part`` rows, which are not always migrated.

A session's ``revert`` marks a message from which the conversation was undone.

The migration to SQLite skipped sessions and left the JSON files behind, so both are read; message and
part ids are the same in both, so a session present in both is imported once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import as_text, clean_text, mapping
from memscribe.hub.model import HubEnv, ReadResult, Resume, Session, SourceFile, ToolUse, Turn
from memscribe.hub.places import open_readonly
from memscribe.hub.reading import iso_or_epoch, load_json
from memscribe.hub.sources.opencode_v2 import from_session_message

__all__ = ["OpenCodeSource", "build_session"]

_QUIET_PARTS = frozenset(
    {"reasoning", "step-start", "step-finish", "snapshot", "patch", "file", "agent", "compaction", "subtask", "retry"}
)


class OpenCodeSource:
    name = "opencode"
    title = "OpenCode"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        if self.name in env.paths:
            roots = env.paths[self.name]
        elif env.environ.get("XDG_DATA_HOME", "").strip():
            roots = (Path(env.environ["XDG_DATA_HOME"]) / "opencode",)
        else:
            roots = (env.home / ".local" / "share" / "opencode",)
        for root in roots:
            for db in sorted(root.glob("opencode*.db")):
                yield SourceFile(self.name, db, kind="db", watch=(db, Path(f"{db}-wal")))
            storage = root / "storage"
            for path in sorted(storage.glob("session/*/*.json")):
                yield SourceFile(self.name, path, kind="json", watch=(path, storage / "message" / path.stem))

    def read(self, item: SourceFile) -> ReadResult:
        return self.read_since(item, Resume())

    def read_since(self, item: SourceFile, since: Resume) -> ReadResult:
        """A database read covers only the sessions with a row updated at or after the last read's newest
        ``time_updated`` (messages and parts are rewritten in place while a reply streams, so row ids alone
        would miss them); such a session is read whole, for its revert mark and streaming tail."""
        result = ReadResult()
        if item.kind == "db":
            with open_readonly(item.path) as conn:
                _read_db(conn, result, since.mark.get("updated"))
            return result
        info = load_json(item.path, result)
        if not isinstance(info, dict):
            return result
        result.saw("session")
        storage = item.path.parents[2]
        messages = []
        for path in sorted((storage / "message" / str(info.get("id"))).glob("*.json")):
            message = load_json(path, result)
            if isinstance(message, dict):
                result.saw("message")
                parts = [
                    p
                    for p in (load_json(q, result) for q in sorted((storage / "part" / path.stem).glob("*.json")))
                    if isinstance(p, dict)
                ]
                result.records += len(parts)
                messages.append((message, parts))
        result.sessions.append(build_session(info, messages, result))
        return result


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


_TIMED = ("session", "message", "part", "session_message")
SLACK_MS = 5_000


def _changed(conn: sqlite3.Connection, tables: set[str], after: Any) -> tuple[set[str] | None, int | None]:
    """Ids of the sessions with a row updated at or after ``after`` (None: every session, on a first read or
    when a table has no update times), and the newest update time now."""
    newest: int | None = None
    changed: set[str] = set()
    every = not isinstance(after, int)
    for table in (t for t in _TIMED if t in tables):
        cols = _columns(conn, table)
        if "time_updated" not in cols:
            every = True
            continue
        top = conn.execute(f"SELECT max(time_updated) FROM {table}").fetchone()[0]
        if isinstance(top, int):
            newest = max(newest or top, top)
        if not every:
            sid = "id" if table == "session" else "session_id"
            query = f"SELECT DISTINCT {sid} FROM {table} WHERE time_updated >= ? OR time_updated IS NULL"
            changed |= {str(r[0]) for r in conn.execute(query, (after,))}
    return (None if every else changed), newest


def _read_db(conn: sqlite3.Connection, result: ReadResult, after: Any = None) -> None:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "session" not in tables:
        return
    changed, newest = _changed(conn, tables, after)
    # A little before the newest time: a row stamped earlier but committed after this read is still seen.
    result.mark = {"updated": newest - SLACK_MS} if newest is not None else {}
    cols = _columns(conn, "session")
    wanted = [c for c in ("id", "directory", "title", "parent_id", "time_created", "revert") if c in cols]
    for row in conn.execute(f"SELECT {', '.join(wanted)} FROM session ORDER BY time_created, id"):
        found = dict(zip(wanted, row, strict=True))
        if changed is not None and str(found["id"]) not in changed:
            continue
        result.saw("session")
        info = {
            "id": found["id"],
            "directory": found.get("directory"),
            "title": found.get("title"),
            "parentID": found.get("parent_id"),
            "time": {"created": found.get("time_created")},
            "revert": _json(found.get("revert")),
        }
        messages: list[tuple[int, dict[str, Any], list[dict[str, Any]]]] = []
        if {"message", "part"} <= tables:
            messages += _v1_rows(conn, str(info["id"]), result)
        if "session_message" in tables:  # 2.0: not every v1 row is migrated, so both are read
            messages += _v2_rows(conn, str(info["id"]), result)
        messages.sort(key=lambda m: m[0])
        result.sessions.append(build_session(info, [(m, p) for _, m, p in messages], result))


def _v1_rows(
    conn: sqlite3.Connection, sid: str, result: ReadResult
) -> list[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    out = []
    query = "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id"
    for mid, created, data in conn.execute(query, (sid,)):
        result.saw("message")
        parts = [
            {"id": pid, **_json(pdata)}
            for pid, pdata in conn.execute("SELECT id, data FROM part WHERE message_id = ? ORDER BY id", (mid,))
        ]
        result.records += len(parts)
        out.append((int(created or 0), {"id": mid, **_json(data)}, parts))
    return out


def _v2_rows(
    conn: sqlite3.Connection, sid: str, result: ReadResult
) -> list[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    out = []
    query = "SELECT id, type, time_created, data FROM session_message WHERE session_id = ? ORDER BY time_created, id"
    for mid, kind, created, data in conn.execute(query, (sid,)):
        result.saw(f"session_message/{kind}")
        converted = from_session_message(str(mid), str(kind), _json(data), result)
        if converted is not None:
            out.append((int(created or 0), *converted))
    return out


def _json(data: Any) -> dict[str, Any]:
    try:
        value = json.loads(data) if isinstance(data, str | bytes) else data
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def build_session(
    info: dict[str, Any], messages: list[tuple[dict[str, Any], list[dict[str, Any]]]], result: ReadResult
) -> Session:
    times = mapping(info.get("time"))
    session = Session(
        id=str(info.get("id")),
        cwd=info.get("directory"),
        title=info.get("title"),
        started=iso_or_epoch(times.get("created"), unit="ms"),
    )
    if info.get("parentID"):
        session.sidechain, session.parent = True, str(info["parentID"])
    revert = mapping(info.get("revert")).get("messageID")
    ids = [str(m.get("id")) for m, _ in messages]
    if revert and str(revert) in ids:  # a reverted session: the reverted message and all after it are undone
        messages = messages[: ids.index(str(revert))]
    for i, (message, parts) in enumerate(messages):
        times = mapping(message.get("time"))
        running = (
            message.get("role") == "assistant" and times and not times.get("completed") and not message.get("error")
        )
        if running and i == len(messages) - 1:
            break  # still streaming: read it once it is complete
        session.turns.extend(_message_turns(message, parts, result))
    seen: set[tuple[str, str, object]] = set()
    unique = []
    for turn in session.turns:  # a message both in the v1 tables and migrated to session_message
        mark = (turn.role, turn.text, turn.timestamp)
        if turn.role == "tool" or mark not in seen:
            unique.append(turn)
        seen.add(mark)
    session.turns = unique
    return session


def _message_turns(message: dict[str, Any], parts: list[dict[str, Any]], result: ReadResult) -> list[Turn]:
    key, role = str(message.get("id")), message.get("role")
    times = mapping(message.get("time"))
    when = iso_or_epoch(times.get("created"), unit="ms")
    texts, calls, outputs = [], [], []
    for part in sorted(parts, key=lambda p: str(p.get("id"))):
        kind = part.get("type")
        if kind == "text":
            if part.get("synthetic") or part.get("ignored"):
                result.boilerplate += 1
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
        elif kind == "tool":
            state = mapping(part.get("state"))
            call_id, tool = str(part.get("callID") or part.get("id")), str(part.get("tool") or "tool")
            calls.append(ToolUse(tool, state.get("input") or {}, call_id))
            if state.get("status") in ("completed", "error"):
                out = state.get("output") if state.get("status") == "completed" else state.get("error")
                outputs.append(
                    Turn(
                        f"{part.get('id')}",
                        "tool",
                        as_text(out),
                        iso_or_epoch((state.get("time") or {}).get("end"), unit="ms") or when,
                        tool_name=tool,
                        tool_call_id=call_id,
                        is_error=state.get("status") == "error",
                    )
                )
        elif kind not in _QUIET_PARTS:
            result.skip(f"part/{kind}")
    text = clean_text("\n".join(texts))
    if role == "user":
        return [Turn(key, "user", text, when)] if text else []
    if role == "assistant":
        head = [Turn(key, "assistant", text, when, tuple(calls))] if text or calls else []
        return head + outputs
    result.skip(f"message/{role}")
    return []
