"""Claude Code: ``~/.claude/projects/<slug>/<sessionId>.jsonl`` (``$CLAUDE_CONFIG_DIR``).

A JSONL tree (``uuid``/``parentUuid``; ``logicalParentUuid`` across compactions). One API message is
streamed as several lines sharing ``message.id`` and ``requestId``: they are merged into one turn. Tool
results come back inside user records as ``tool_result`` blocks. Sub-agent transcripts (``agent-*.jsonl``
beside the session, or ``<sessionId>/subagents/`` since 2.1.2) are sessions of their own, marked sidechain.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import as_text, clean_text, is_command_echo
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.reading import iso_or_epoch, json_lines
from memscribe.hub.tree import active_branch

__all__ = ["ClaudeCodeSource"]

_META_TYPES = frozenset(
    {
        "summary",
        "system",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "last-prompt",
        "attachment",
        "ai-title",
        "custom-title",
        "tag",
        "permission-mode",
        "worktree-state",
    }
)


class ClaudeCodeSource:
    name = "claude-code"
    title = "Claude Code"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for root in env.roots(self.name, ("CLAUDE_CONFIG_DIR",), (".claude",)):
            projects = root / "projects"
            if not projects.is_dir():
                continue
            yield from (SourceFile(self.name, p) for p in sorted(projects.glob("*/*.jsonl")))
            yield from (SourceFile(self.name, p) for p in sorted(projects.glob("*/*/subagents/*.jsonl")))

    def read(self, item: SourceFile) -> ReadResult:
        result = ReadResult()
        nodes: list[dict[str, Any]] = []
        title = None
        for _, record in json_lines(item.path, result):
            kind = str(record.get("type")) if isinstance(record, dict) else "?"
            result.saw(kind)
            if kind in ("user", "assistant") or record.get("uuid"):
                nodes.append(record)  # every linked record (compaction boundaries, attachments) keeps the chain whole
            if kind in ("summary", "ai-title", "custom-title"):
                title = record.get("summary") or record.get("aiTitle") or record.get("customTitle") or title
            elif kind not in _META_TYPES and kind not in ("user", "assistant"):
                result.skip(kind)
        branch = active_branch(
            nodes, lambda r: r.get("uuid"), lambda r: (r.get("parentUuid"), r.get("logicalParentUuid"))
        )
        session = _session(item.path, branch, title)
        session.turns = _turns(branch, result)
        if session.turns or nodes:
            result.sessions.append(session)
        return result


def _session(path: Path, branch: list[dict[str, Any]], title: str | None) -> Session:
    first = next((r for r in branch if r.get("sessionId")), {})
    sid = str(first.get("sessionId") or path.stem)
    sidechain = path.stem.startswith("agent-") or "subagents" in path.parts or bool(first.get("isSidechain"))
    cwd = next((r["cwd"] for r in branch if isinstance(r.get("cwd"), str)), None)
    session = Session(id=sid, cwd=cwd, title=title, started=iso_or_epoch(first.get("timestamp")))
    if sidechain:
        agent = first.get("agentId") or path.stem.removeprefix("agent-")
        session.id, session.sidechain, session.parent = f"{sid}/agent-{agent}", True, sid
    if first.get("gitBranch"):
        session.meta["git_branch"] = first["gitBranch"]
    return session


def _turns(branch: list[dict[str, Any]], result: ReadResult) -> list[Turn]:
    turns: list[Turn] = []
    merged: dict[str, int] = {}  # message.id:requestId -> index of its turn
    tool_names: dict[str, str] = {}
    for record in branch:
        kind, message = record.get("type"), record.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue
        when = iso_or_epoch(record.get("timestamp"))
        if kind == "assistant":
            _assistant(record, message, when, turns, merged, tool_names, result)
        else:
            _user(record, message, when, turns, tool_names, result)
    return turns


def _assistant(
    record: dict[str, Any],
    message: dict[str, Any],
    when: Any,
    turns: list[Turn],
    merged: dict[str, int],
    tool_names: dict[str, str],
    result: ReadResult,
) -> None:
    if message.get("model") == "<synthetic>":
        result.boilerplate += 1  # written by the CLI itself (interrupts, API errors), not the model
        return
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
    texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text" and b.get("text")]
    calls = []
    for b in blocks:
        if isinstance(b, dict) and b.get("type") == "tool_use":
            tool_names[str(b.get("id"))] = str(b.get("name") or "tool")
            calls.append(ToolUse(str(b.get("name") or "tool"), b.get("input") or {}, b.get("id")))
    if not texts and not calls:
        return  # a thinking-only fragment
    key = f"msg:{message.get('id')}:{record.get('requestId')}" if message.get("id") else str(record.get("uuid"))
    if key in merged:  # another streamed fragment of the same API message
        old = turns[merged[key]]
        text = "\n".join(t for t in (old.text, *[t for t in texts if t not in old.text]) if t)
        extra = tuple(c for c in calls if c.id not in {o.id for o in old.tool_calls})
        turns[merged[key]] = Turn(old.key, "assistant", text, old.timestamp, old.tool_calls + extra)
        return
    merged[key] = len(turns)
    turns.append(Turn(key, "assistant", "\n".join(texts), when, tuple(calls)))


def _user(
    record: dict[str, Any],
    message: dict[str, Any],
    when: Any,
    turns: list[Turn],
    tool_names: dict[str, str],
    result: ReadResult,
) -> None:
    uuid = str(record.get("uuid"))
    if record.get("isMeta") or record.get("isCompactSummary"):
        result.boilerplate += 1
        return
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    texts = []
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            call = str(block.get("tool_use_id"))
            turns.append(
                Turn(
                    f"{uuid}:{i}",
                    "tool",
                    as_text(block.get("content")),
                    when,
                    tool_name=tool_names.get(call),
                    tool_call_id=call,
                    is_error=bool(block.get("is_error")),
                )
            )
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
    raw = "\n".join(texts)
    text = clean_text(raw)
    if raw.strip() and (not text or is_command_echo(text)):
        result.boilerplate += 1
    elif text:
        turns.append(Turn(uuid, "user", text, when))
