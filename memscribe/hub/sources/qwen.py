"""Qwen Code: ``~/.qwen/projects/<sanitized-cwd>/chats/<sessionId>.jsonl``; legacy Gemini-style JSON files.

The current format is a JSONL tree of ``ChatRecord``s (``uuid``/``parentUuid``) whose ``message`` is a Gemini
``Content`` (``role`` user/model, ``parts`` with ``text``, ``thought``, ``functionCall``, ``functionResponse``).
``type`` is ``user``, ``assistant``, ``tool_result`` or ``system`` (``system`` records are bookkeeping:
compression, slash commands, telemetry, titles), except ``mid_turn_user_message``: words the person sent
while a turn was running, read from ``systemPayload.displayText``. Early Qwen Code, a Gemini CLI fork, wrote
``~/.qwen/tmp/<hash>/chats/session-*.json`` with ``user``/``qwen`` messages: read with the Gemini reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from memscribe.hub.cleaning import as_text, clean_text, mapping
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.reading import iso_or_epoch, json_lines
from memscribe.hub.sources.gemini import GeminiCliSource
from memscribe.hub.tree import active_branch

__all__ = ["QwenCodeSource"]


class QwenCodeSource:
    name = "qwen-code"
    title = "Qwen Code"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for root in env.roots(self.name, (), (".qwen",)):
            yield from (SourceFile(self.name, p) for p in sorted(root.glob("projects/*/chats/*.jsonl")))
            yield from (
                SourceFile(self.name, p, kind="legacy") for p in sorted(root.glob("tmp/*/chats/session-*.json"))
            )

    def read(self, item: SourceFile) -> ReadResult:
        if item.kind == "legacy":
            return GeminiCliSource().read(item)
        result = ReadResult()
        nodes: list[dict[str, Any]] = []
        title = None
        for _, record in json_lines(item.path, result):
            kind = str(record.get("type")) if isinstance(record, dict) else "?"
            result.saw(kind)
            if kind in ("user", "assistant", "tool_result") or record.get("uuid"):
                nodes.append(record)
            payload = record.get("systemPayload")
            if kind == "system" and record.get("subtype") == "custom_title" and isinstance(payload, dict):
                title = payload.get("customTitle") or title
            elif kind not in ("user", "assistant", "tool_result", "system"):
                result.skip(kind)
        branch = active_branch(nodes, lambda r: r.get("uuid"), lambda r: (r.get("parentUuid"),))
        first = next((r for r in branch if r.get("sessionId")), {})
        session = Session(
            id=str(first.get("sessionId") or item.path.stem),
            title=title,
            cwd=next((r["cwd"] for r in branch if isinstance(r.get("cwd"), str)), None),
            started=iso_or_epoch(first.get("timestamp")),
        )
        if any(r.get("isSidechain") for r in branch):
            agent = next((r.get("agentId") for r in branch if r.get("agentId")), "agent")
            session.parent, session.id, session.sidechain = session.id, f"{session.id}/agent-{agent}", True
        session.turns = _turns(branch, result)
        if session.turns or nodes:
            result.sessions.append(session)
        return result


def _turns(branch: list[dict[str, Any]], result: ReadResult) -> list[Turn]:
    turns: list[Turn] = []
    for r in branch:
        kind, key, when = r.get("type"), str(r.get("uuid")), iso_or_epoch(r.get("timestamp"))
        message = mapping(r.get("message"))
        parts = [p for p in message.get("parts") or [] if isinstance(p, dict)]
        mid_turn = r.get("subtype") == "mid_turn_user_message"
        if kind not in ("user", "assistant", "tool_result") and not (kind == "system" and mid_turn):
            continue
        text = clean_text(
            "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str) and not p.get("thought"))
        )
        if mid_turn:
            turn = _mid_turn(r, key, when, text)
            if turn is not None:
                turns.append(turn)
            else:
                result.boilerplate += 1
        elif kind == "user":
            if text and r.get("provenance") not in ("system",):
                turns.append(Turn(key, "user", text, when))
            elif parts:
                result.boilerplate += 1
        elif kind == "assistant":
            calls = tuple(
                ToolUse(str(c.get("name") or "tool"), c.get("args") or {}, c.get("id"))
                for p in parts
                if isinstance(c := p.get("functionCall"), dict)
            )
            if text or calls:
                turns.append(Turn(key, "assistant", text, when, calls))
        elif kind == "tool_result":
            for i, p in enumerate(parts):
                fr = p.get("functionResponse")
                if isinstance(fr, dict):
                    body = fr.get("response")
                    out = body.get("output", body.get("error", body)) if isinstance(body, dict) else body
                    status = (
                        (r.get("toolCallResult") or {}).get("status")
                        if isinstance(r.get("toolCallResult"), dict)
                        else None
                    )
                    turns.append(
                        Turn(
                            f"{key}:{i}",
                            "tool",
                            as_text(out),
                            when,
                            tool_name=str(fr.get("name") or "tool"),
                            tool_call_id=fr.get("id"),
                            is_error=status == "error",
                        )
                    )
    return turns


def _mid_turn(r: dict[str, Any], key: str, when: Any, parts_text: str) -> Turn | None:
    """What the person typed while a turn was running (``mid_turn_user_message``, a ``system`` record in some
    releases, a ``user`` one in others): the recorded ``displayText``, since the model-bound parts may carry
    expanded @file content; a background sub-agent's or the system's input is not the person's."""
    if r.get("agentId") is not None or r.get("provenance") not in (None, "real_user"):
        return None
    shown = mapping(r.get("systemPayload")).get("displayText")
    text = clean_text(shown) if isinstance(shown, str) and shown.strip() else parts_text
    return Turn(key, "user", text, when) if text else None
