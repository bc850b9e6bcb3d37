"""Cursor: the IDE's ``state.vscdb``, the agent transcripts, and the ``cursor-agent`` CLI's ``store.db``.

- IDE (Composer/Agent/Ask): ``<User>/globalStorage/state.vscdb``, table ``cursorDiskKV``: a header per chat
  under ``composerData:<id>`` and one row per message under ``bubbleId:<composerId>:<bubbleId>`` (type 1 =
  user, 2 = assistant; tool runs in ``toolFormerData``). Only those two key prefixes are ever queried: the
  same database holds auth tokens (``ItemTable`` ``cursorAuth/*``), which the hub never reads. The project
  comes from ``workspaceStorage/<hash>/workspace.json`` for the workspace that lists the chat. Rows are
  rewritten in place, so each read skips what is unchanged: a chat is read again when its header's digest
  changed (Cursor rewrites the header whenever the conversation changes), a bubble row was written since
  the last row id seen (a replace gets a new row id), or, for a chat active in the last hour, one of its
  bubbles has another size than when it was read (a plain ``UPDATE`` keeps the row id); of its bubbles only
  those whose digest changed are parsed.
- Agent transcripts: ``~/.cursor/projects/<slug>/agent-transcripts/<uuid>/<uuid>.jsonl``: lines
  ``{role, message: {content[]}}`` with Anthropic-style blocks; the prompt is wrapped in ``<user_query>``. A
  transcript of a chat the IDE database also holds is left to the database.
- ``cursor-agent``: ``~/.cursor/chats/<md5(cwd)>/<agentId>/store.db``: ``meta`` (hex-encoded JSON) and
  content-addressed ``blobs``; message blobs are JSON, tree blobs are protobuf listing child blob ids.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from memscribe.hub.cleaning import as_arguments, as_text, blocks_text, clean_text, unwrap_user_query
from memscribe.hub.model import HubEnv, ReadResult, Resume, Session, SourceFile, ToolUse, Turn
from memscribe.hub.places import open_readonly
from memscribe.hub.reading import iso_or_epoch, json_lines
from memscribe.hub.sources.cursor_agent import read_agent_store

__all__ = ["CursorSource"]

_USER_DIRS = (".config/Cursor/User", "Library/Application Support/Cursor/User", "AppData/Roaming/Cursor/User")
RECENT_S = 3600.0  # a chat updated this recently has its bubble sizes checked for in-place rewrites


class CursorSource:
    name = "cursor"
    title = "Cursor"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        explicit = env.paths.get(self.name)
        user_dirs = tuple(p / "User" for p in explicit) if explicit else tuple(env.home / d for d in _USER_DIRS)
        dot = tuple(explicit) if explicit else (env.home / ".cursor",)
        composers: set[str] = set()
        for user in user_dirs:
            db = user / "globalStorage" / "state.vscdb"
            if db.is_file():
                composers |= _composer_ids(db)
                yield SourceFile(self.name, db, kind="vscdb", watch=(db, Path(f"{db}-wal")))
        for root in dot:
            for path in sorted(root.glob("projects/*/agent-transcripts/*/*.jsonl")):
                if path.stem not in composers:
                    yield SourceFile(self.name, path, kind="transcript")
            for db in sorted(root.glob("chats/*/*/store.db")):
                yield SourceFile(self.name, db, kind="agent-store", watch=(db, Path(f"{db}-wal")))

    def read(self, item: SourceFile) -> ReadResult:
        return self.read_since(item, Resume())

    def read_since(self, item: SourceFile, since: Resume) -> ReadResult:
        """Databases from where the last read stopped (unchanged rows skipped by digest); transcripts whole."""
        if item.kind == "agent-store":
            return read_agent_store(item.path, since)
        if item.kind == "transcript":
            return _read_transcript(item.path)
        return _read_vscdb(item.path, since)


def _composer_ids(db: Path) -> set[str]:
    try:
        with open_readonly(db) as conn:
            rows = conn.execute(
                "SELECT key FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'"
            ).fetchall()
    except sqlite3.Error:
        return set()
    return {str(k).split(":", 1)[1] for (k,) in rows}


def _workspaces(db: Path) -> dict[str, str]:
    """composerId → project folder, from every workspace database beside the global one."""
    found: dict[str, str] = {}
    for ws in sorted(db.parents[1].glob("workspaceStorage/*/state.vscdb")):
        try:
            folder_uri = json.loads((ws.parent / "workspace.json").read_text(encoding="utf-8")).get("folder", "")
            with open_readonly(ws) as conn:
                row = conn.execute("SELECT value FROM ItemTable WHERE key = 'composer.composerData'").fetchone()
        except (OSError, ValueError, sqlite3.Error):
            continue
        folder = unquote(urlparse(folder_uri).path) if folder_uri.startswith("file:") else folder_uri
        for composer in (_loads(row[0]) if row else {}).get("allComposers") or []:
            if isinstance(composer, dict) and composer.get("composerId") and folder:
                found[str(composer["composerId"])] = folder
    return found


def _loads(value: Any) -> dict[str, Any]:
    try:
        decoded = json.loads(value.decode() if isinstance(value, bytes) else value)
    except (ValueError, AttributeError, UnicodeDecodeError):
        return {}
    return decoded if isinstance(decoded, dict) else {}


def digest(value: Any) -> str:
    """A short content digest of a key-value row's value (never the value itself)."""
    data = value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def sized_digest(value: Any) -> str:
    """A bubble's digest with its size first, as SQLite's ``length()`` counts it (bytes of a blob, characters
    of a text), so a later read can tell a rewritten bubble by its size without reading its value."""
    size = len(value) if isinstance(value, bytes | str) else len(str(value))
    return f"{size}:{digest(value)}"


def _recent(header: dict[str, Any], now: datetime) -> bool:
    stamp = header.get("lastUpdatedAt") or header.get("createdAt")
    if isinstance(stamp, bool) or not isinstance(stamp, int | float):
        return False
    return now.timestamp() * 1000 - stamp < RECENT_S * 1000


def _resized(conn: sqlite3.Connection, cid: str, since: Resume) -> bool:
    """Whether a bubble of ``cid`` read before has another size now (rewritten by a plain ``UPDATE``, which
    keeps its row id; a rewrite of the same size is not seen until the chat's header changes)."""
    prefix = f"bubbleId:{cid}:"
    query = "SELECT key, length(value) FROM cursorDiskKV WHERE key >= ? AND key < ?"
    for key, size in conn.execute(query, (prefix, prefix[:-1] + ";")):
        stored = since.digests.get(str(key))
        if stored is not None and stored.partition(":")[0] != str(size):
            return True
    return False


def _prefix(conn: sqlite3.Connection, prefix: str) -> list[tuple[str, Any]]:
    """Rows whose key starts with ``prefix`` (ending in ':'), through the key index (LIKE would scan)."""
    query = "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?"
    return [(str(k), v) for k, v in conn.execute(query, (prefix, prefix[:-1] + ";"))]


def _touched(conn: sqlite3.Connection, after: Any) -> tuple[set[str] | None, int]:
    """Composers with a bubble row written since row id ``after`` (rows replaced on conflict get a new row
    id), and the highest row id now; None when there is no usable mark (read every composer)."""
    top = conn.execute("SELECT max(rowid) FROM cursorDiskKV").fetchone()[0] or 0
    if not isinstance(after, int) or top < after:
        return None, top
    found = set()
    for (key,) in conn.execute("SELECT key FROM cursorDiskKV WHERE rowid > ?", (after,)):
        if str(key).startswith("bubbleId:"):
            found.add(str(key).split(":")[1])
    return found, top


def _read_vscdb(db: Path, since: Resume) -> ReadResult:
    """Composers whose header changed (by digest) or that got a bubble row since the last read; of those,
    only the bubbles whose digest changed are parsed. Unchanged rows are skipped."""
    result = ReadResult()
    folders = _workspaces(db)
    with open_readonly(db) as conn:
        touched, top = _touched(conn, since.mark.get("rowid"))
        headers = [(k, _loads(v), digest(v)) for k, v in _prefix(conn, "composerData:")]
        children = {c for _, h, _ in headers for c in h.get("subComposerIds") or []}
        parents = {c: h.get("composerId") for _, h, _ in headers for c in h.get("subComposerIds") or []}
        now = datetime.now(UTC)
        for key, header, mark in headers:
            cid = str(header.get("composerId") or key.split(":", 1)[1])
            unchanged = touched is not None and since.digests.get(key) == mark and cid not in touched
            if unchanged and not (_recent(header, now) and _resized(conn, cid, since)):
                continue
            result.digests[key] = mark
            result.saw("composerData")
            session = Session(
                id=cid,
                cwd=folders.get(cid),
                title=header.get("name"),
                started=iso_or_epoch(header.get("createdAt"), unit="ms"),
            )
            if cid in children:
                session.sidechain, session.parent = True, parents.get(cid)
            sequence = _changed_bubbles(conn, cid, header, since, result)
            result.records += len(sequence)
            session.turns = [t for b in sequence for t in _bubble(b, session.started, result)]
            result.sessions.append(session)
    result.mark = {"rowid": top}
    return result


def _changed_bubbles(
    conn: sqlite3.Connection, cid: str, header: dict[str, Any], since: Resume, result: ReadResult
) -> list[dict[str, Any]]:
    """The composer's bubbles in conversation order, those whose digest is new only."""
    rows = {k.rsplit(":", 1)[1]: (k, v) for k, v in _prefix(conn, f"bubbleId:{cid}:")}
    order = [str(h.get("bubbleId")) for h in header.get("fullConversationHeadersOnly") or [] if isinstance(h, dict)]
    ordered = [b for b in order if b in rows]
    if not ordered:  # a legacy chat keeps its bubbles inline in the header
        return [b for b in header.get("conversation") or [] if isinstance(b, dict)]
    out = []
    for bid in ordered:
        key, value = rows[bid]
        mark = sized_digest(value)
        if since.digests.get(key) != mark:
            result.digests[key] = mark
            out.append(_loads(value) | {"bubbleId": bid})
    return out


def _bubble(b: dict[str, Any], fallback: datetime | None, result: ReadResult) -> list[Turn]:
    key, kind = str(b.get("bubbleId")), b.get("type")
    when = iso_or_epoch(b.get("createdAt")) or fallback
    text = clean_text(str(b.get("text") or ""))
    if kind == 1:
        return [Turn(key, "user", text, when)] if text else []
    if kind != 2:
        result.skip(f"bubble/{kind}")
        return []
    tool = b.get("toolFormerData") if isinstance(b.get("toolFormerData"), dict) else None
    if tool is None:
        return [Turn(key, "assistant", text, when)] if text else []
    name = str(tool.get("name") or tool.get("tool") or "tool")
    call_id = str(tool.get("toolCallId") or key)
    args = as_arguments(tool.get("rawArgs") or tool.get("params"))
    out = [Turn(key, "assistant", text, when, (ToolUse(name, args, call_id),))]
    if tool.get("result") is not None:
        out.append(
            Turn(
                f"{key}:result",
                "tool",
                as_text(_loads(tool["result"]) or tool["result"]),
                when,
                tool_name=name,
                tool_call_id=call_id,
                is_error=tool.get("status") == "error",
            )
        )
    return out


def _read_transcript(path: Path) -> ReadResult:
    result = ReadResult()
    when = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    session = Session(id=path.stem, started=when, meta={"slug": path.parents[2].name})
    names: dict[str, str] = {}
    for n, line in json_lines(path, result):
        role = line.get("role") if isinstance(line, dict) else None
        result.saw(str(role))
        content = (line.get("message") or {}).get("content") if isinstance(line.get("message"), dict) else None
        blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
        if role == "user":
            _transcript_user(f"L{n}", blocks, names, session, result)
        elif role == "assistant":
            calls = []
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    names[str(b.get("id"))] = str(b.get("name") or "tool")
                    calls.append(ToolUse(str(b.get("name") or "tool"), as_arguments(b.get("input")), b.get("id")))
            text = blocks_text(blocks, ("text",))
            if text or calls:
                session.turns.append(Turn(f"L{n}", "assistant", text, None, tuple(calls)))
        else:
            result.skip(str(role))
    result.sessions.append(session)
    return result


def _transcript_user(key: str, blocks: list[Any], names: dict[str, str], session: Session, result: ReadResult) -> None:
    raw = blocks_text(blocks, ("text",))
    if "Workspace Path:" in raw and session.cwd is None:
        session.cwd = raw.split("Workspace Path:", 1)[1].split("\n", 1)[0].strip() or None
    for i, b in enumerate(blocks):
        if isinstance(b, dict) and b.get("type") == "tool_result":
            call = str(b.get("tool_use_id"))
            session.turns.append(
                Turn(
                    f"{key}:{i}",
                    "tool",
                    as_text(b.get("content")),
                    None,
                    tool_name=names.get(call),
                    tool_call_id=call,
                    is_error=bool(b.get("is_error")),
                )
            )
    if raw.strip():
        text = unwrap_user_query(raw)
        if text:
            session.turns.append(Turn(key, "user", clean_text(text), None))
        else:
            result.boilerplate += 1
