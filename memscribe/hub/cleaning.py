"""Injected context the hub never ingests: tool boilerplate and the hub's own digests.

Tools put scaffolding into user-role messages (system reminders, slash-command echoes, environment blocks,
instruction files). memscribe's own recalled context is wrapped in :data:`INJECTED_BEGIN` /
:data:`INJECTED_END` (and instruction-file digests in the HTML-comment pair), so an imported session that
carries it back does not loop it into memory again.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "DIGEST_BEGIN",
    "DIGEST_END",
    "INJECTED_BEGIN",
    "INJECTED_END",
    "as_arguments",
    "as_text",
    "blocks_text",
    "clean_text",
    "is_command_echo",
    "mapping",
    "unwrap_user_query",
]

INJECTED_BEGIN = "<memscribe-context>"
INJECTED_END = "</memscribe-context>"
DIGEST_BEGIN = "<!-- memscribe:begin -->"
DIGEST_END = "<!-- memscribe:end -->"

_WRAPPED = (
    "system-reminder",
    "system_reminder",
    "memscribe-context",
    "environment_context",
    "environment_details",
    "user_instructions",
    "INSTRUCTIONS",
    "thinking",
)
_BLOCKS = re.compile(
    "|".join(rf"<{t}\b[^>]*>.*?(?:</{t}>|\Z)" for t in _WRAPPED)
    + "|"
    + re.escape(DIGEST_BEGIN)
    + r".*?(?:"
    + re.escape(DIGEST_END)
    + r"|\Z)",
    re.DOTALL,
)
_COMMAND = re.compile(r"^\s*<(command-name|command-message|command-args|local-command-stdout|local-command-stderr)>")
_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.DOTALL)


def clean_text(text: str) -> str:
    """``text`` without injected blocks, trimmed; empty when nothing of the person's own is left."""
    return _BLOCKS.sub("", text).strip()


def is_command_echo(text: str) -> bool:
    """Claude-style slash-command wrappers and local command output: the tool's, not the person's words."""
    return bool(_COMMAND.match(text)) or text.lstrip().startswith("Caveat: The messages below were generated")


def unwrap_user_query(text: str) -> str | None:
    """The person's words from ``<user_query>`` blocks (Cursor, WorkBuddy); None when there is none."""
    found = [m.strip() for m in _QUERY.findall(text)]
    return "\n\n".join(f for f in found if f) if found else None


def blocks_text(content: Any, kinds: tuple[str, ...] = ("text", "input_text", "output_text")) -> str:
    """Join the text of content blocks (a string, or a list of ``{type, text}`` mappings)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type", "text") in kinds and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(p for p in parts if p)


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (records are untrusted)."""
    return value if isinstance(value, dict) else {}


def as_text(value: Any) -> str:
    """Tool output of any shape as text: strings as they are, blocks joined, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        joined = blocks_text(value)
        if joined or not value:
            return joined
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return json.dumps(value, ensure_ascii=False, default=str)


def as_arguments(value: Any) -> dict[str, Any]:
    """Tool-call arguments as a mapping: JSON strings decoded, anything else kept under ``raw``."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            return {"raw": value}
        return decoded if isinstance(decoded, dict) else {"raw": value}
    return {} if value is None else {"raw": json.dumps(value, default=str)}
