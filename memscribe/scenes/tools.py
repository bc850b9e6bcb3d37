"""Tool activity in an episode: each tool call paired with its result, and the arguments read by role.

Tool results arrive as ``tool`` messages after the assistant message that made the calls (the OpenAI
convention). A result is matched to its call by id or name when the message carries one, else by order.
Nothing here calls a model or touches a store.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from memscribe.core.records import Episode, Message

__all__ = [
    "ToolUse",
    "command_of",
    "has_tool_activity",
    "name_words",
    "paths_of",
    "string_values",
    "tool_uses",
    "urls_of",
]

_FAILURE = re.compile(
    r"^\s*(?:error|failed|failure|fatal)\b|<tool_use_error>|string (?:to replace )?not found|no (?:match|occurrences)"
    r"|old_str(?:ing)? .{0,40}not found|patch (?:failed|did not apply|does not apply)|exit (?:code|status):? ?[1-9]"
    r"|permission denied|command not found",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://[^\s\"'<>)\]]+")
_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path", "relative_path")
_COMMAND_KEYS = ("cmd", "script", "commands", "command")
_URL_KEYS = ("url", "uri", "link", "href")
_SHELL_WORDS = frozenset({"bash", "shell", "sh", "exec", "terminal", "run", "execute", "cmd", "powershell", "zsh"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class ToolUse:
    """One tool call with the text its result returned (None when no result was recorded)."""

    name: str
    arguments: Mapping[str, Any]
    message_index: int
    call_id: str | None = None
    result: str | None = None
    result_index: int | None = None

    @property
    def failed(self) -> bool:
        """True when the result reads as an error (a rejected edit, a failing command)."""
        return self.result is not None and bool(_FAILURE.search(self.result[:2000]))

    @property
    def words(self) -> frozenset[str]:
        return name_words(self.name)


def name_words(name: str) -> frozenset[str]:
    """The words of a tool name: ``mcp__fs__editFile`` → {"mcp", "fs", "edit", "file", "editfile"}."""
    spaced = _CAMEL.sub("_", name)
    words = {w for w in _SPLIT.split(spaced.casefold()) if w}
    tail = re.split(r"__|\.", name)[-1].casefold()
    return frozenset(words | {tail, name.casefold()})


def has_tool_activity(episode: Episode) -> bool:
    """True when any message makes a tool call or is a tool result."""
    return any(m.tool_calls or m.role == "tool" for m in episode.messages)


def tool_uses(episode: Episode) -> list[ToolUse]:
    """Every tool call of the episode in order, each with its result when one follows."""
    uses: list[ToolUse] = []
    pending: list[int] = []  # indices into ``uses`` still waiting for a result
    for index, message in enumerate(episode.messages):
        if message.tool_calls:
            pending = []
            for call in message.tool_calls:
                pending.append(len(uses))
                uses.append(ToolUse(call.name, dict(call.arguments), index, call.id))
            continue
        if message.role == "tool" and pending:
            slot = _match(message, pending, uses)
            uses[slot] = replace(uses[slot], result=message.content, result_index=index)
            pending.remove(slot)
    return uses


def _match(message: Message, pending: list[int], uses: list[ToolUse]) -> int:
    """The pending call a result answers: by call id or tool name when the message names one, else the first."""
    if message.name:
        for slot in pending:
            if message.name in (uses[slot].call_id, uses[slot].name):
                return slot
    return pending[0]


def string_values(value: Any, *, limit: int = 64) -> Iterator[str]:
    """Every string inside a JSON-like value, depth first, at most ``limit`` of them."""
    stack: list[Any] = [value]
    seen = 0
    while stack and seen < limit:
        item = stack.pop()
        if isinstance(item, str):
            seen += 1
            yield item
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))


def command_of(use: ToolUse) -> str | None:
    """The shell command a call runs, or None when it runs none."""
    for key in _COMMAND_KEYS:
        value = use.arguments.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = " ".join(value)
        if not isinstance(value, str) or not value.strip():
            continue
        # ``command`` is also the sub-command of str_replace editors ("view", "create"): not a shell command.
        if key == "command" and (value in _EDITOR_COMMANDS or {"str", "editor"} & use.words):
            continue
        return value.strip()
    raw = use.arguments.get("raw") or use.arguments.get("input")
    if isinstance(raw, str) and use.words & _SHELL_WORDS and "*** Begin Patch" not in raw:
        return raw.strip()
    return None


_EDITOR_COMMANDS = frozenset({"view", "create", "str_replace", "insert", "undo_edit"})


def paths_of(use: ToolUse) -> list[str]:
    """File paths named by the call's arguments."""
    found: list[str] = []
    for key in _PATH_KEYS:
        value = use.arguments.get(key)
        if isinstance(value, str) and value.strip() and "\n" not in value:
            found.append(value.strip())
    paths = use.arguments.get("paths") or use.arguments.get("files")
    if isinstance(paths, list):
        found.extend(p.strip() for p in paths if isinstance(p, str) and p.strip() and "\n" not in p)
    return list(dict.fromkeys(found))


def urls_of(use: ToolUse) -> list[str]:
    """URLs the call fetched or named."""
    found = [str(v) for k in _URL_KEYS if isinstance(v := use.arguments.get(k), str) and v.startswith("http")]
    for text in string_values(use.arguments, limit=16):
        found.extend(_URL.findall(text))
    return list(dict.fromkeys(found))
