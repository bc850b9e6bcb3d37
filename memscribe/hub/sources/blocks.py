"""Anthropic-style message content (text, ``tool_use`` and ``tool_result`` blocks), as Cline's task files and
its SDK sessions both write it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memscribe.hub.cleaning import as_arguments, clean_text
from memscribe.hub.model import ToolUse, Turn


@dataclass
class Blocks:
    """One message's content: its text blocks joined, the tools it called, and the results it carried as turns."""

    raw: str = ""
    calls: list[ToolUse] = field(default_factory=list)
    results: list[Turn] = field(default_factory=list)


def read_blocks(
    key: str, content: Any, when: Any, names: dict[str, str], *,
    tool_text: Callable[[Any], str], tool_name: str | None = None,
) -> Blocks:  # fmt: skip
    """Split ``content`` (a string or a list of blocks) into text, tool calls and tool-result turns keyed
    ``key:i``. ``names`` maps call ids to tool names across the messages of a session; a result's tool is the
    block's own name, else its call's, else ``tool_name``."""
    blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
    texts: list[str] = []
    out = Blocks()
    for i, b in enumerate(blocks):
        kind = b.get("type") if isinstance(b, dict) else None
        if kind == "text" and isinstance(b.get("text"), str):
            texts.append(b["text"])
        elif kind == "tool_use":
            names[str(b.get("id"))] = str(b.get("name") or "tool")
            out.calls.append(ToolUse(str(b.get("name") or "tool"), as_arguments(b.get("input")), b.get("id")))
        elif kind == "tool_result":
            call = str(b.get("tool_use_id"))
            name = b.get("name") or names.get(call) or tool_name
            out.results.append(Turn(f"{key}:{i}", "tool", clean_text(tool_text(b.get("content"))), when,
                                    tool_name=name, tool_call_id=call, is_error=bool(b.get("is_error"))))  # fmt: skip
    out.raw = "\n".join(texts)
    return out
