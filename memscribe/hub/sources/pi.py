"""Pi coding agent and OpenClaw (which embeds Pi's session manager): tree-shaped JSONL sessions.

Pi: ``~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`` (``$PI_CODING_AGENT_SESSION_DIR``, or
``$PI_CODING_AGENT_DIR/sessions``). OpenClaw: ``~/.openclaw/agents/<agentId>/sessions/<sessionId>.jsonl``
(``$OPENCLAW_STATE_DIR``; legacy ``~/.clawdbot``, ``~/.moltbot``) with a ``sessions.json`` index naming the
channel. Line 1 is a ``session`` header (``id``, ``cwd``, ``version``); entries link by ``id``/``parentId``
(v1 files are linear, without ids). ``message`` entries hold ``user``, ``assistant`` (``toolCall`` blocks),
``toolResult`` and ``bashExecution`` messages; extension-injected and summary messages are boilerplate.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.errors import InvalidInput
from memscribe.hub.cleaning import as_text, blocks_text, clean_text, mapping
from memscribe.hub.feed.jsonc import get_path
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.reading import iso_or_epoch, json_lines
from memscribe.hub.tree import active_branch

__all__ = ["OpenClawSource", "PiSource", "read_pi_tree"]

_ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
_INJECTED_ROLES = frozenset({"custom", "hookMessage", "branchSummary", "compactionSummary"})


class PiSource:
    name = "pi"
    title = "Pi coding agent"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        if self.name in env.paths:
            roots = env.paths[self.name]
        elif env.environ.get("PI_CODING_AGENT_SESSION_DIR", "").strip():
            roots = (Path(env.environ["PI_CODING_AGENT_SESSION_DIR"]).expanduser(),)
        elif env.environ.get("PI_CODING_AGENT_DIR", "").strip():
            roots = (Path(env.environ["PI_CODING_AGENT_DIR"]).expanduser() / "sessions",)
        else:
            roots = (env.home / ".pi" / "agent" / "sessions",)
        for root in roots:
            yield from (SourceFile(self.name, p) for p in sorted(root.glob("*/*.jsonl")))

    def read(self, item: SourceFile) -> ReadResult:
        return read_pi_tree(item.path)


class OpenClawSource:
    name = "openclaw"
    title = "OpenClaw"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        roots = env.roots(
            self.name, ("OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"), (".openclaw", ".clawdbot", ".moltbot")
        )
        for root in roots:
            for path in sorted(root.glob("agents/*/sessions/*.jsonl")):
                if ".bak-" not in path.name:
                    yield SourceFile(self.name, path)

    def read(self, item: SourceFile) -> ReadResult:
        result = read_pi_tree(item.path)
        index = _index_entry(item.path)
        for session in result.sessions:
            session.meta["agent"] = item.path.parent.parent.name
            if index:
                session.title = session.title or index.get("displayName") or index.get("label")
                for key in ("channel", "chatType", "sessionKey"):
                    if index.get(key):
                        session.meta[key] = index[key]
        return result


def _index_entry(path: Path) -> dict[str, Any]:
    """The ``sessions.json`` entry of this transcript: JSON, or the JSON5 OpenClaw also writes (comments,
    single quotes, bare keys, trailing commas)."""
    try:
        text = (path.parent / "sessions.json").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    try:
        index = json.loads(text)
    except ValueError:
        try:
            index = get_path(text, [])
        except InvalidInput:
            return {}
    stem = path.stem.split("-topic-")[0]
    for key, entry in index.items() if isinstance(index, dict) else ():
        if isinstance(entry, dict) and entry.get("sessionId") == stem:
            return {**entry, "sessionKey": key}
    return {}


def read_pi_tree(path: Path) -> ReadResult:
    result = ReadResult()
    header: dict[str, Any] = {}
    entries: list[dict[str, Any]] = []
    title = None
    for n, line in json_lines(path, result):
        kind = str(line.get("type")) if isinstance(line, dict) else "?"
        result.saw(kind)
        if kind == "session" and not header:
            header = line
        else:
            if kind not in _ENTRY_TYPES:
                result.skip(kind)
            if kind in _ENTRY_TYPES or line.get("id"):
                entries.append({**line, "_line": n})  # unknown entries still link the tree
            if kind == "session_info" and line.get("name"):
                title = str(line["name"])
    branch = active_branch(entries, lambda e: e.get("id"), lambda e: (e.get("parentId"),))
    session = Session(
        id=str(header.get("id") or path.stem.rsplit("_", 1)[-1]),
        cwd=header.get("cwd"),
        title=title,
        started=iso_or_epoch(header.get("timestamp")),
    )
    if header.get("parentSession"):
        session.meta["forked_from"] = str(header["parentSession"])
    session.turns = [t for e in branch if e.get("type") == "message" for t in _message(e, result)]
    if session.turns or entries:
        result.sessions.append(session)
    return result


def _message(entry: dict[str, Any], result: ReadResult) -> list[Turn]:
    m = mapping(entry.get("message"))
    role, key = m.get("role"), str(entry.get("id") or f"L{entry['_line']}")
    when = iso_or_epoch(entry.get("timestamp")) or iso_or_epoch(m.get("timestamp"), unit="ms")
    content = m.get("content")
    if role == "user":
        text = clean_text(blocks_text(content))
        if not text:
            result.boilerplate += 1
            return []
        return [Turn(key, "user", text, when)]
    if role == "assistant":
        blocks = content if isinstance(content, list) else []
        calls = tuple(
            ToolUse(str(b.get("name") or "tool"), b.get("arguments") or {}, b.get("id"))
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "toolCall"
        )
        text = blocks_text(content)
        return [Turn(key, "assistant", text, when, calls)] if text or calls else []
    if role == "toolResult":
        return [
            Turn(
                key,
                "tool",
                as_text(content),
                when,
                tool_name=m.get("toolName"),
                tool_call_id=m.get("toolCallId"),
                is_error=bool(m.get("isError")),
            )
        ]
    if role == "bashExecution":
        text = f"$ {m.get('command', '')}\n{m.get('output', '')}".strip()
        return [Turn(key, "tool", text, when, tool_name="bash", is_error=bool(m.get("exitCode")))]
    if role in _INJECTED_ROLES:
        result.boilerplate += 1
    else:
        result.skip(f"message/{role}")
    return []
