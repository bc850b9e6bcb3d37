"""Gemini CLI: ``~/.gemini/tmp/<projectId>/chats/session-*.json`` (legacy) and ``session-*.jsonl`` (current).

The legacy file is one ``ConversationRecord`` (``messages[]``) rewritten on every save. The JSONL file has a
metadata line, then message records; a message updated later is appended again with the same ``id`` (the
last copy wins, in the first copy's place), ``{"$set": …}`` lines update metadata and ``{"$rewindTo": id}``
drops that message and everything after it. ``gemini`` messages carry ``toolCalls[]`` with their results;
``info``/``error``/``warning`` records are the CLI's own. Sub-agent chats live in ``chats/<parentId>/``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import as_text, clean_text
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.reading import iso_or_epoch, json_lines, load_json

__all__ = ["GeminiCliSource", "conversation_turns", "parts_text"]

MODEL_TYPES = ("gemini", "qwen", "model")
CLI_TYPES = ("info", "error", "warning")
_FINAL = ("error", "cancelled", "success")


class GeminiCliSource:
    name = "gemini-cli"
    title = "Gemini CLI"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        roots = env.roots(self.name, (), (".gemini",))
        if self.name not in env.paths and env.environ.get("GEMINI_CLI_HOME", "").strip():
            roots = (Path(env.environ["GEMINI_CLI_HOME"]).expanduser() / ".gemini",)
        for root in roots:
            for pattern in ("tmp/*/chats/session-*.json", "tmp/*/chats/session-*.jsonl", "tmp/*/chats/*/*.jsonl"):
                yield from (SourceFile(self.name, p) for p in sorted(root.glob(pattern)))

    def read(self, item: SourceFile) -> ReadResult:
        result = ReadResult()
        if item.path.suffix == ".json":
            doc = load_json(item.path, result)
            if isinstance(doc, dict):
                result.saw("conversation")
                messages = [m for m in doc.get("messages") or [] if isinstance(m, dict)]
                _add_session(result, item.path, doc, messages)
            return result
        meta: dict[str, Any] = {}
        by_id: dict[str, dict[str, Any]] = {}  # insertion order is conversation order: a re-append keeps its place
        for _, line in json_lines(item.path, result):
            _apply(line, meta, by_id, result)
        _add_session(result, item.path, meta, list(by_id.values()))
        return result


def _apply(line: dict[str, Any], meta: dict[str, Any], by_id: dict[str, dict[str, Any]], result: ReadResult) -> None:
    """One JSONL record, as the CLI's own loader reads it (chatRecordingService.loadConversationRecord)."""
    if isinstance(line.get("$rewindTo"), str):
        result.saw("$rewindTo")
        ids = list(by_id)
        cut = ids.index(line["$rewindTo"]) if line["$rewindTo"] in ids else 0  # an unknown id clears everything
        for gone in ids[cut:]:
            del by_id[gone]
    elif isinstance(line.get("id"), str):
        result.saw(str(line.get("type")))
        by_id[line["id"]] = line
    elif isinstance(line.get("$set"), dict):
        result.saw("$set")
        if isinstance(line["$set"].get("messages"), list):  # a checkpoint: the whole conversation again
            by_id.clear()
            kept = [m for m in line["$set"]["messages"] if isinstance(m, dict) and isinstance(m.get("id"), str)]
            by_id.update({m["id"]: m for m in kept})
        meta.update({k: v for k, v in line["$set"].items() if k != "messages"})
    elif isinstance(line.get("sessionId"), str) and isinstance(line.get("projectHash"), str):
        result.saw("metadata")
        meta.update({k: v for k, v in line.items() if k != "messages"})
        for m in line.get("messages") or []:
            if isinstance(m, dict) and isinstance(m.get("id"), str):
                by_id[m["id"]] = m
    else:
        result.skip(str(line.get("type", "?")))


def _registry(chats: Path) -> dict[str, str]:
    """Project folder name (a registry slug or a SHA-256 of the path) → project path, from ``projects.json``."""
    try:
        data = json.loads((chats.parents[2] / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, IndexError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    out: dict[str, str] = {}
    for path, slug in (projects or {}).items():
        out[str(slug)] = path
        out[hashlib.sha256(path.encode()).hexdigest()] = path
    return out


def _add_session(result: ReadResult, path: Path, meta: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    dirs = meta.get("directories")
    chats = path.parent if path.parent.name == "chats" else path.parent.parent
    known = _registry(chats)
    cwd = dirs[0] if isinstance(dirs, list) and dirs else None
    session = Session(
        id=str(meta.get("sessionId") or path.stem),
        cwd=cwd or known.get(chats.parent.name) or known.get(str(meta.get("projectHash"))),
        title=meta.get("summary") if isinstance(meta.get("summary"), str) else None,
        started=iso_or_epoch(meta.get("startTime")),
    )
    if meta.get("kind") == "subagent" or path.parent.name != "chats":
        session.sidechain, session.parent = True, path.parent.name if path.parent.name != "chats" else None
    session.turns = conversation_turns(messages, result)
    if session.turns or messages:
        result.sessions.append(session)


def parts_text(content: Any) -> str:
    """Text of a Gemini ``PartListUnion`` (a string, a part, or parts), thoughts left out."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    texts = [
        p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    ]
    return "\n".join(t for t in texts if t)


def conversation_turns(messages: list[dict[str, Any]], result: ReadResult) -> list[Turn]:
    turns: list[Turn] = []
    for m in messages:
        kind, key, when = m.get("type"), str(m.get("id")), iso_or_epoch(m.get("timestamp"))
        if kind in CLI_TYPES:
            result.boilerplate += 1
            continue
        text = clean_text(parts_text(m.get("content")))
        if kind == "user":
            if text:
                turns.append(Turn(key, "user", text, when))
            else:
                result.boilerplate += 1
        elif kind in MODEL_TYPES:
            calls = [c for c in m.get("toolCalls") or [] if isinstance(c, dict)]
            if any(c.get("result") is None and c.get("status") not in _FINAL for c in calls):
                break  # still running: this message will be appended again, complete, with the same id
            uses = tuple(ToolUse(str(c.get("name") or "tool"), c.get("args") or {}, c.get("id")) for c in calls)
            if text or uses:
                turns.append(Turn(key, "assistant", text, when, uses))
            for i, c in enumerate(calls):
                output = _result_text(c.get("result"))
                turns.append(
                    Turn(
                        f"{key}:tool{i}",
                        "tool",
                        output,
                        iso_or_epoch(c.get("timestamp")) or when,
                        tool_name=str(c.get("name") or "tool"),
                        tool_call_id=c.get("id"),
                        is_error=c.get("status") == "error",
                    )
                )
        else:
            result.skip(f"message/{kind}")
    return turns


def _result_text(value: Any) -> str:
    parts = value if isinstance(value, list) else [value]
    out = []
    for p in parts:
        response = p.get("functionResponse") if isinstance(p, dict) else None
        if isinstance(response, dict):
            body = response.get("response")
            out.append(as_text(body.get("output", body) if isinstance(body, dict) else body))
        elif p is not None:
            out.append(as_text(p))
    return "\n".join(o for o in out if o)
