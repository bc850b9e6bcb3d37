"""CodeBuddy Code and WorkBuddy (which embeds the CodeBuddy runtime): ``<home>/projects/<slug>/<id>.jsonl``.

Homes: ``$CODEBUDDY_CONFIG_DIR`` or ``~/.codebuddy`` / ``~/.codebuddy-cn``; ``$WORKBUDDY_CONFIG_DIR`` or
``~/.workbuddy`` / ``~/.workbuddy-ai``. The layout copies Claude Code but the records do not: each line is an
OpenAI-Agents-style item (``message`` with ``input_text``/``output_text`` blocks, ``function_call`` and
``function_call_result`` paired by ``callId``, ``reasoning``, ``topic``, ``summary``…) with an epoch-ms
``timestamp`` and ``id``/``parentId`` tree links. In WorkBuddy the person's words are the ``<user_query>``
blocks; a user message without one is the app's own. ``workbuddy.db`` (read-only) supplies titles and
soft deletions. Sub-agent runs (``agent-*`` files, ``subagents/``) are sessions of their own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import (
    as_arguments,
    as_text,
    blocks_text,
    clean_text,
    is_command_echo,
    mapping,
    unwrap_user_query,
)
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.places import open_readonly
from memscribe.hub.reading import iso_or_epoch, json_lines
from memscribe.hub.tree import active_branch

__all__ = ["CodeBuddySource", "WorkBuddySource"]

_KNOWN = frozenset(
    {
        "reasoning",
        "topic",
        "ai-title",
        "custom-title",
        "summary",
        "file-history-snapshot",
        "goal-result",
        "goal-progress",
        "resend-fork-notice",
    }
)
_TREE = ("message", "function_call", "function_call_result", "function_call_output")


class _Family:
    name = ""
    title = ""
    env_var = ""
    homes: tuple[str, ...] = ()
    queries_only = False  # WorkBuddy: only <user_query> blocks are the person's words

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for root in env.roots(self.name, (self.env_var,), self.homes):
            projects = root / "projects"
            yield from (SourceFile(self.name, p) for p in sorted(projects.glob("*/*.jsonl")))
            yield from (SourceFile(self.name, p) for p in sorted(projects.glob("*/*/subagents/*.jsonl")))

    def read(self, item: SourceFile) -> ReadResult:
        result = ReadResult()
        nodes, title = [], None
        for _, r in json_lines(item.path, result):
            kind = str(r.get("type")) if isinstance(r, dict) else "?"
            result.saw(kind)
            if kind in _TREE or (kind in _KNOWN and "parentId" in r):
                nodes.append(r)  # every linked record, so a reasoning item does not break the chain
            if kind in ("topic", "ai-title", "custom-title"):
                title = r.get("topic") or r.get("aiTitle") or r.get("title") or title
            elif kind not in _KNOWN and kind not in _TREE:
                result.skip(kind)
        branch = active_branch(nodes, lambda r: r.get("id"), lambda r: (r.get("parentId"), r.get("logicalParentId")))
        first = next((r for r in branch if r.get("sessionId")), {})
        home = item.path.parents[2] if "subagents" not in item.path.parts else item.path.parents[4]
        session = Session(
            id=str(first.get("sessionId") or item.path.stem),
            title=title,
            cwd=next((r["cwd"] for r in branch if isinstance(r.get("cwd"), str)), None),
            started=iso_or_epoch(first.get("timestamp"), unit="ms"),
            meta={"product": home.name.lstrip(".")},
        )
        if item.path.stem.startswith("agent-") or "subagents" in item.path.parts:
            session.parent, session.sidechain = session.id, True
            session.id = f"{session.id}/{item.path.stem}"
        if not _apply_app_db(home, session, result):
            return result
        session.turns = self._turns(branch, result)
        if session.turns or nodes:
            result.sessions.append(session)
        return result

    def _turns(self, branch: list[dict[str, Any]], result: ReadResult) -> list[Turn]:
        turns: list[Turn] = []
        calls: dict[str, str] = {}
        for r in branch:
            kind, key, when = r.get("type"), str(r.get("id")), iso_or_epoch(r.get("timestamp"), unit="ms")
            pd = mapping(r.get("providerData"))
            if kind == "function_call":
                call_id, name = str(r.get("callId")), str(r.get("name") or "tool")
                calls[call_id] = name
                turns.append(
                    Turn(key, "assistant", "", when, (ToolUse(name, as_arguments(r.get("arguments")), call_id),))
                )
            elif kind in ("function_call_result", "function_call_output"):
                call_id = str(r.get("callId"))
                if call_id in calls:  # an orphan result belongs to no call of this branch: dropped
                    turns.append(
                        Turn(
                            key,
                            "tool",
                            as_text(r.get("output")),
                            when,
                            tool_name=calls[call_id],
                            tool_call_id=call_id,
                            is_error=r.get("status") == "failed",
                        )
                    )
            elif kind == "message":
                turn = self._message(r, key, when, pd, result)
                if turn is not None:
                    turns.append(turn)
        return turns

    def _message(self, r: dict[str, Any], key: str, when: Any, pd: dict[str, Any], result: ReadResult) -> Turn | None:
        role, raw = r.get("role"), blocks_text(r.get("content"))
        if role == "system" or pd.get("isMeta") or pd.get("isCompactInternal") or pd.get("isSessionSeparator"):
            result.boilerplate += 1
            return None
        if role == "assistant":
            text = raw.strip()
            error = mapping(pd.get("error"))
            if not text or text == str(error.get("message", "")).strip():
                return None
            return Turn(key, "assistant", text, when)
        stripped = clean_text(raw)
        query = unwrap_user_query(stripped)
        text = query if query is not None else ("" if self.queries_only else stripped)
        if not text or is_command_echo(text) or text.startswith("Warmup"):
            result.boilerplate += int(bool(raw.strip()))
            return None
        return Turn(key, "user", text, when)


def _apply_app_db(home: Path, session: Session, result: ReadResult) -> bool:
    """Titles and soft deletions from WorkBuddy's app database; False for a session the person deleted."""
    db = home / "workbuddy.db"
    if not db.is_file():
        return True
    try:
        with open_readonly(db) as conn:
            cols = {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}
            wanted = [c for c in ("title", "custom_title", "cwd", "deleted_at") if c in cols]
            row = (
                conn.execute(
                    f"SELECT {', '.join(wanted)} FROM sessions WHERE id = ?", (session.parent or session.id,)
                ).fetchone()
                if wanted
                else None
            )
    except sqlite3.Error:
        return True
    if row is None:
        return True
    found = dict(zip(wanted, row, strict=True))
    if found.get("deleted_at"):
        result.withheld += 1
        return False
    session.title = found.get("custom_title") or found.get("title") or session.title
    session.cwd = session.cwd or found.get("cwd")
    return True


class CodeBuddySource(_Family):
    name = "codebuddy"
    title = "CodeBuddy Code"
    env_var = "CODEBUDDY_CONFIG_DIR"
    homes = (".codebuddy", ".codebuddy-cn")


class WorkBuddySource(_Family):
    name = "workbuddy"
    title = "WorkBuddy"
    env_var = "WORKBUDDY_CONFIG_DIR"
    homes = (".workbuddy", ".workbuddy-ai")
    queries_only = True
