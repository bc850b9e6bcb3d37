"""Codex CLI: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (also ``.jsonl.zst``, ``archived_sessions/``).

Since Sep 2025 every line is ``{timestamp, type, payload}``; older rollouts wrote a bare session-meta object
and bare response items, which are read too. Model I/O is in ``response_item`` (messages, function calls
paired with their outputs by ``call_id``); ``event_msg`` repeats the same text for the UI, so it is used only
for files whose user turns are not in ``response_item``. Instruction and environment blocks are dropped.
Paginated threads span several files; the logical thread id from ``session_meta`` keys the session.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from memscribe.hub.cleaning import as_arguments, as_text, blocks_text, clean_text
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.reading import iso_or_epoch, json_lines, read_zstd

__all__ = ["CodexSource"]

_INJECTED = ("<user_instructions>", "<environment_context>", "# AGENTS.md instructions", "<permissions instructions>")
_KNOWN = frozenset(
    {
        "session_meta",
        "turn_context",
        "response_item",
        "event_msg",
        "compacted",
        "world_state",
        "inter_agent_communication",
        "inter_agent_communication_metadata",
        "security_risk_score",
        "realtime_item",
        "state",
    }
)
_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


class CodexSource:
    name = "codex"
    title = "Codex CLI"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for root in env.roots(self.name, ("CODEX_HOME",), (".codex",)):
            for sub in ("sessions", "archived_sessions"):
                base = root / sub
                if base.is_dir():
                    found = [*base.rglob("rollout-*.jsonl"), *base.rglob("rollout-*.jsonl.zst")]
                    yield from (SourceFile(self.name, p) for p in sorted(found))

    def read(self, item: SourceFile) -> ReadResult:
        result = ReadResult()
        data = read_zstd(item.path) if item.path.suffix == ".zst" else None
        rows: list[tuple[int, str, Any, Any]] = []
        meta: dict[str, Any] = {}
        for n, line in json_lines(item.path, result, data):
            kind, payload, when = _envelope(line)
            result.saw(kind)
            if kind == "session_meta" and isinstance(payload, dict):
                meta = meta or payload
            elif kind in ("response_item", "event_msg", "turn_context"):
                rows.append((n, kind, payload, when))
            elif kind not in _KNOWN:
                result.skip(kind)
        session = Session(
            id=str(meta.get("id") or item.path.stem.rsplit("-", 5)[-1]),
            cwd=meta.get("cwd"),
            started=iso_or_epoch(meta.get("timestamp")),
        )
        source_kind = meta.get("source")
        if (isinstance(source_kind, dict) and "subagent" in source_kind) or meta.get("parent_thread_id"):
            session.sidechain, session.parent = True, meta.get("parent_thread_id")
        if isinstance(meta.get("git"), dict) and meta["git"].get("branch"):
            session.meta["git_branch"] = meta["git"]["branch"]
        session.turns = _turns(item.path.name, rows, result, session)
        if session.turns or rows:
            result.sessions.append(session)
        return result


def _envelope(line: Any) -> tuple[str, Any, Any]:
    """(type, payload, time) for the current envelope and for legacy bare records."""
    if not isinstance(line, dict):
        return "?", None, None
    if "payload" in line and "type" in line:
        return str(line["type"]), line["payload"], iso_or_epoch(line.get("timestamp"))
    if "record_type" in line:
        return str(line["record_type"]), line, None
    if line.get("type") in ("message", "reasoning", *_CALLS, *_OUTPUTS):
        return "response_item", line, iso_or_epoch(line.get("timestamp"))
    if "id" in line and ("instructions" in line or "cwd" in line):
        return "session_meta", line, None
    return str(line.get("type", "?")), line, None


def _turns(name: str, rows: list[tuple[int, str, Any, Any]], result: ReadResult, session: Session) -> list[Turn]:
    from_items = any(
        k == "response_item" and isinstance(p, dict) and p.get("type") == "message" and p.get("role") == "user"
        for _, k, p, _ in rows
    )
    turns: list[Turn] = []
    names: dict[str, str] = {}
    for n, kind, payload, when in rows:
        if not isinstance(payload, dict):
            continue
        key = _key(name, n, when, payload)
        if kind == "turn_context":
            session.cwd = session.cwd or payload.get("cwd")
        elif kind == "response_item":
            turn = _item(key, payload, when, names, result)
            if turn is not None:
                turns.append(turn)
        elif kind == "event_msg" and payload.get("type") == "thread_rolled_back":
            turns = _roll_back(turns, int(payload.get("num_turns") or 0))
        elif kind == "event_msg" and not from_items:
            kinds = {"user_message": "user", "agent_message": "assistant"}
            role = kinds.get(str(payload.get("type")))
            text = clean_text(str(payload.get("message") or ""))
            if role and text:
                turns.append(Turn(key, role, text, when))
    return turns


def _key(name: str, line: int, when: Any, payload: dict[str, Any]) -> str:
    """A record's identity: its time and content, so a rollout copied into a new file (a fork, a revert) is
    not imported twice; legacy lines without times fall back to the file and line."""
    if when is None:
        return f"{name}:{line}"
    digest = hashlib.sha1(json.dumps(payload, sort_keys=True).encode(), usedforsecurity=False).hexdigest()[:16]
    return f"{when.isoformat()}:{digest}"


def _roll_back(turns: list[Turn], count: int) -> list[Turn]:
    """``thread_rolled_back``: the last ``count`` user turns, and all that followed them, are undone."""
    starts = [i for i, t in enumerate(turns) if t.role == "user"]
    return turns[: starts[-count]] if 0 < count <= len(starts) else ([] if count > len(starts) else turns)


def _item(key: str, p: dict[str, Any], when: Any, names: dict[str, str], result: ReadResult) -> Turn | None:
    kind = p.get("type")
    if kind == "message":
        role = p.get("role")
        raw = blocks_text(p.get("content"))
        if role in ("developer", "system") or any(raw.lstrip().startswith(m) for m in _INJECTED):
            result.boilerplate += 1
            return None
        text = clean_text(raw)
        if role not in ("user", "assistant") or not text:
            if raw.strip():
                result.boilerplate += 1
            return None
        return Turn(key, str(role), text, when)
    if kind in _CALLS:
        call_id = str(p.get("call_id") or p.get("id") or key)
        name = str(p.get("name") or ("shell" if kind == "local_shell_call" else "web_search"))
        names[call_id] = name
        args = as_arguments(p.get("arguments", p.get("input", p.get("action"))))
        return Turn(key, "assistant", "", when, (ToolUse(name, args, call_id),))
    if kind in _OUTPUTS:
        call_id = str(p.get("call_id"))
        return Turn(key, "tool", _output(p.get("output")), when, tool_name=names.get(call_id), tool_call_id=call_id)
    if kind not in ("reasoning", "ghost_snapshot", "compaction"):
        result.skip(f"response_item/{kind}")
    return None


def _output(value: Any) -> str:
    if isinstance(value, str) and value.startswith("{"):
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        if isinstance(decoded, dict) and "output" in decoded:
            return as_text(decoded["output"])
    if isinstance(value, dict) and "content" in value:
        return as_text(value["content"])
    return as_text(value)
