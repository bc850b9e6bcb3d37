"""The recall hook: the tool's hook JSON on stdin, the few memories that matter on stdout, in the shape the
tool expects.

Per prompt it searches the project's memories with the prompt; at session start (no prompt) it lists the
project's most recent ones. Lines are packed under a token budget (about four characters a token) and a hard
cap on characters, framed as quoted data with ids (see :mod:`memscribe.mcp.framing`). A hook must never
break the tool: bad input or a failing store gives an empty answer and a line on stderr.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.hub.cleaning import INJECTED_BEGIN, INJECTED_END
from memscribe.mcp.framing import frame_memories

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory

__all__ = [
    "HOOK_TOOLS",
    "MAX_CHARS",
    "HookCall",
    "answer",
    "git_project",
    "pack",
    "parse_call",
    "parse_stdin",
    "recall",
]

MAX_CHARS = 8000  # Claude Code shows hook text whole up to about 10,000 characters
DEFAULT_BUDGET = 600  # tokens
CHARS_PER_TOKEN = 4
MIN_SCORE = 0.2  # hits below this relevance are noise, not context (both embedders separate cleanly here)
_CLAUDE_SHAPE = ("claude-code", "codex", "codebuddy", "workbuddy", "deepseek-harness", "gemini-cli")
HOOK_TOOLS = (*_CLAUDE_SHAPE, "cursor", "cline")
_DEFAULT_EVENT = {"cursor": "sessionStart", "cline": "UserPromptSubmit", "codex": "UserPromptSubmit"}


@dataclass(frozen=True)
class HookCall:
    tool: str
    event: str
    cwd: Path
    prompt: str


def _first(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Sequence) and value and isinstance(value[0], str):
        return value[0]
    return None


def parse_call(tool: str, payload: Mapping[str, Any], *, fallback_cwd: Path) -> HookCall:
    """Event, working directory and prompt from one tool's hook payload."""
    event = str(
        payload.get("hook_event_name") or payload.get("hookName") or _DEFAULT_EVENT.get(tool, "UserPromptSubmit")
    )
    cwd = _first(payload.get("cwd")) or _first(payload.get("workspace_roots")) or _first(payload.get("workspaceRoots"))
    prompt = payload.get("prompt")
    nested = payload.get("userPromptSubmit")
    if not prompt and isinstance(nested, Mapping):
        prompt = nested.get("prompt")
    return HookCall(tool, event, Path(cwd) if cwd else fallback_cwd, str(prompt or ""))


def pack(items: Sequence[Mapping[str, Any]], *, budget_tokens: int, title: str) -> tuple[str, list[str]]:
    """The framed text of as many of ``items`` (in order) as fit the budget, and their ids."""
    limit = min(budget_tokens * CHARS_PER_TOKEN, MAX_CHARS) - len(INJECTED_BEGIN) - len(INJECTED_END) - 2
    chosen: list[Mapping[str, Any]] = []
    for item in items:
        if len(frame_memories([*chosen, item], title=title)) > limit:
            break
        chosen.append(item)
    if not chosen:
        return "", []
    text = f"{INJECTED_BEGIN}\n{frame_memories(chosen, title=title)}\n{INJECTED_END}"
    return text, [str(i.get("id")) for i in chosen]


def recall(memory: Memory, call: HookCall, *, user: str, project: str | None, budget_tokens: int = DEFAULT_BUDGET,
           limit: int = 6) -> tuple[str, list[str]]:  # fmt: skip
    """The packed memories for this call: search hits for a prompt, the latest ones at session start."""
    filters = {"project": project} if project else None
    if call.prompt.strip():
        found = memory.search(call.prompt[:2000], user_id=user, limit=limit, filters=filters, threshold=MIN_SCORE)
        hits = found["results"]
        return pack(hits, budget_tokens=budget_tokens, title="recall")
    page = memory.list(user_id=user, limit=50, filters=filters)["results"]
    latest = sorted(page, key=lambda m: str(m.get("updated_at") or m.get("valid_from") or ""), reverse=True)
    return pack(latest[:limit], budget_tokens=budget_tokens, title="project")


def answer(call: HookCall, text: str) -> dict[str, Any]:
    """The stdout JSON for ``call``'s tool; ``{}`` (or the tool's neutral answer) when there is nothing."""
    if call.tool == "cline":
        return {"cancel": False, "contextModification": text, "errorMessage": ""}
    if not text:
        return {}
    if call.tool == "cursor":
        return {"additional_context": text}
    return {"hookSpecificOutput": {"hookEventName": call.event, "additionalContext": text}}


def git_project(cwd: Path) -> str | None:
    from memscribe.mcp.cli import git_root

    root = git_root(cwd)
    return str(root) if root is not None else None


def parse_stdin(tool: str, raw: str, *, cwd: Path | None = None) -> HookCall:
    payload = json.loads(raw) if raw.strip() else {}
    if not isinstance(payload, Mapping):
        raise ValueError("the hook input is not a JSON object")
    return parse_call(tool, payload, fallback_cwd=cwd or Path(os.getcwd()))
