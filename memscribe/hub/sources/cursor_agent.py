"""The ``cursor-agent`` CLI store: ``~/.cursor/chats/<md5(cwd)>/<agentId>/store.db``.

``meta`` holds one row (key ``"0"``) whose value is hex-encoded JSON (``agentId``, ``name``,
``latestRootBlobId``, ``createdAt`` ms). ``blobs`` is content-addressed (``id`` = SHA-256 of ``data``). Message
blobs are UTF-8 JSON (``role``, ``content``); tree blobs are protobuf whose field 1 repeats child blob ids
(32 raw bytes) and whose other length-delimited fields include the workspace path. The conversation is the
tree walked from the latest root, children in order. Blob ids are stable, so they key the turns, and a
message blob read once is never fetched again.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import as_arguments, as_text, blocks_text, clean_text, unwrap_user_query
from memscribe.hub.model import ReadResult, Resume, Session, ToolUse, Turn
from memscribe.hub.places import open_readonly
from memscribe.hub.reading import iso_or_epoch

__all__ = ["protobuf_fields", "read_agent_store"]

MAX_DEPTH = 8


def protobuf_fields(data: bytes) -> list[tuple[int, bytes]]:
    """(field number, bytes) of each length-delimited field of a protobuf message; [] when it is not one."""
    out, i = [], 0
    try:
        while i < len(data):
            tag, i = _varint(data, i)
            field, wire = tag >> 3, tag & 7
            if wire == 0:
                _, i = _varint(data, i)
            elif wire == 2:
                size, i = _varint(data, i)
                if i + size > len(data):
                    return []
                out.append((field, data[i : i + size]))
                i += size
            elif wire in (1, 5):
                i += 8 if wire == 1 else 4
            else:
                return []
    except IndexError:
        return []
    return out


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i
        shift += 7


def read_agent_store(db: Path, since: Resume | None = None) -> ReadResult:
    """The conversation walked from the latest root. Blobs are immutable, so a message blob read before
    (its id is in ``since.digests``) is not fetched again: a read after new messages fetches the tree blobs
    and the new messages only."""
    known = since.digests if since is not None else {}
    result = ReadResult()
    with open_readonly(db) as conn:
        meta = _meta(conn)
        result.saw("meta")
        session = Session(
            id=str(meta.get("agentId") or db.parent.name),
            title=meta.get("name"),
            started=iso_or_epoch(meta.get("createdAt"), unit="ms"),
        )
        messages: list[tuple[str, dict[str, Any]]] = []
        _walk(str(meta.get("latestRootBlobId") or ""), _Blobs(conn, known), messages, session, 0)
    names: dict[str, str] = {}
    for key, message in messages:
        result.saw(f"blob/{message.get('role')}")
        result.digests[key] = "message"
        session.turns.extend(_turns(key, message, names, result))
    result.sessions.append(session)
    result.mark = {"blobs": "by id"}
    return result


class _Blobs:
    """Blob lookups by id, skipping the message blobs already read."""

    def __init__(self, conn: sqlite3.Connection, known: Mapping[str, str]) -> None:
        self.conn, self.known, self.seen = conn, known, set[str]()
        self.hex_ids = _hex_ids(conn)

    def get(self, bid: str) -> bytes | None:
        if bid in self.seen or self.known.get(bid) == "message":
            return None
        self.seen.add(bid)
        key: Any = bid if self.hex_ids else bytes.fromhex(bid)
        row = self.conn.execute("SELECT data FROM blobs WHERE id = ?", (key,)).fetchone()
        return bytes(row[0]) if row and row[0] is not None else None


def _hex_ids(conn: sqlite3.Connection) -> bool:
    """Whether blob ids are stored as hex text (else as raw 32-byte blobs)."""
    row = conn.execute("SELECT typeof(id) FROM blobs LIMIT 1").fetchone()
    return row is None or row[0] == "text"


def _meta(conn: sqlite3.Connection) -> dict[str, Any]:
    row = conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    if not row:
        return {}
    raw = row[0]
    try:
        text = bytes.fromhex(raw).decode() if isinstance(raw, str) else bytes(raw).decode()
        decoded = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _walk(bid: str, blobs: _Blobs, out: list[tuple[str, dict[str, Any]]], session: Session, depth: int) -> None:
    data = blobs.get(bid) if depth <= MAX_DEPTH else None
    if data is None:
        return
    try:
        message = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        message = None
    if isinstance(message, dict) and "role" in message:
        out.append((bid, message))
        return
    for field, value in protobuf_fields(data):
        if field == 1 and len(value) == 32:
            _walk(value.hex(), blobs, out, session, depth + 1)
        elif session.cwd is None and value.startswith((b"/", b"~")) and b"\n" not in value:
            with contextlib.suppress(UnicodeDecodeError):
                session.cwd = value.decode("utf-8")


def _turns(key: str, m: dict[str, Any], names: dict[str, str], result: ReadResult) -> list[Turn]:
    role, content = m.get("role"), m.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
    text = blocks_text(blocks, ("text",))
    if role == "user":
        query = unwrap_user_query(text)
        clean = clean_text(query if query is not None else text)
        if not clean:
            result.boilerplate += int(bool(text.strip()))
            return []
        return [Turn(key, "user", clean, None)]
    if role == "assistant":
        calls = []
        for b in blocks:
            if isinstance(b, dict) and b.get("type") in ("tool-call", "tool_use"):
                name = str(b.get("toolName") or b.get("name") or "tool")
                call_id = str(b.get("toolCallId") or b.get("id"))
                names[call_id] = name
                calls.append(ToolUse(name, as_arguments(b.get("args", b.get("input"))), call_id))
        return [Turn(key, "assistant", text, None, tuple(calls))] if text or calls else []
    if role == "tool":
        out = []
        for i, b in enumerate(blocks):
            if isinstance(b, dict) and b.get("type") in ("tool-result", "tool_result"):
                call_id = str(b.get("toolCallId") or b.get("tool_use_id"))
                out.append(
                    Turn(
                        f"{key}:{i}",
                        "tool",
                        as_text(b.get("result", b.get("content"))),
                        None,
                        tool_name=b.get("toolName") or names.get(call_id),
                        tool_call_id=call_id,
                    )
                )
        return out
    if role == "system":
        result.boilerplate += 1
    else:
        result.skip(f"role/{role}")
    return []
