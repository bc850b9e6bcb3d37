"""From a session's new turns to engine episodes: grouping, message shape, size limits, redaction counts.

An episode is one or more whole exchanges: a person's prompt and what followed it (replies, tool calls,
tool results) up to the next prompt. Short exchanges are gathered until the episode holds at least
:data:`MIN_GROUP_TURNS` turns; a long one is cut when it grows past the engine's limits. Its idempotency key is the
source, the session and the key of its first turn, so the same turns always make the same episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memscribe.core.redact import redact
from memscribe.hub.model import Session, Turn

__all__ = ["MAX_TEXT", "EpisodeDraft", "group_turns", "messages_of", "session_scope"]

MAX_TEXT = 20_000  # tool output and pasted files beyond this are cut: memory wants the gist, not the log
MIN_GROUP_TURNS = 100  # short exchanges share an episode: each add (and its later write) has a fixed cost
MAX_GROUP_TURNS = 200
MAX_GROUP_CHARS = 400_000


@dataclass
class EpisodeDraft:
    key: str
    turns: list[Turn]


def episode_key(source: str, session: str, first: str) -> str:
    return f"hub:{source}:{session}:{first}"


def group_turns(source: str, session: str, turns: Sequence[Turn]) -> list[EpisodeDraft]:
    """Exchanges of ``turns`` (already in conversation order), each within the engine's size limits."""
    groups: list[EpisodeDraft] = []
    current: list[Turn] = []
    size = 0
    for turn in turns:
        length = min(len(turn.text), MAX_TEXT) + sum(len(str(c.arguments)) for c in turn.tool_calls)
        starts = turn.role == "user" and len(current) >= MIN_GROUP_TURNS and any(t.role != "user" for t in current)
        if current and (starts or len(current) >= MAX_GROUP_TURNS or size + length > MAX_GROUP_CHARS):
            groups.append(EpisodeDraft(episode_key(source, session, current[0].key), current))
            current, size = [], 0
        current.append(turn)
        size += length
    if current:
        groups.append(EpisodeDraft(episode_key(source, session, current[0].key), current))
    return groups


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n…[{len(text) - limit} more characters not imported]"


class _Redactor:
    """Redacts before anything is cut (a cut must never leave half a secret behind) and counts what it found."""

    def __init__(self, count: bool) -> None:
        self.found: list[tuple[str, str, int]] = []
        self._n = 0
        self._count = count

    def text(self, value: str, limit: int) -> str:
        if not self._count and len(value) <= limit:
            return value  # the engine redacts it on add; only a cut needs it first
        clean, n = redact(value)
        self._n += n
        return _cut(clean, limit)

    def args(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value, MAX_TEXT // 4)
        if isinstance(value, dict):
            return {str(k): self.args(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.args(v) for v in value[:200]]
        return value

    def note(self, key: str, field: str) -> None:
        if self._n:
            self.found.append((key, field, self._n))
        self._n = 0


def messages_of(
    turns: Sequence[Turn], *, count_secrets: bool = True
) -> tuple[list[dict[str, Any]], list[tuple[str, str, int]]]:
    """Engine message mappings for ``turns`` (tool results as ``tool`` messages named after their tool), and
    (turn key, field, secrets redacted) for each turn that held any (when ``count_secrets``)."""
    out: list[dict[str, Any]] = []
    red = _Redactor(count_secrets)
    for turn in turns:
        text = red.text(turn.text, MAX_TEXT)
        red.note(turn.key, "text")
        message: dict[str, Any] = {"role": turn.role, "content": text}
        if turn.timestamp is not None:
            message["timestamp"] = turn.timestamp
        if turn.tool_calls:
            message["tool_calls"] = [
                {"name": c.name[:256], "arguments": red.args(c.arguments), "id": c.id} for c in turn.tool_calls
            ]
            red.note(turn.key, "tool_arguments")
        if turn.role == "tool":
            message["name"] = (turn.tool_name or "tool")[:256]
            if not text.strip():
                message["content"] = "(error, no output)" if turn.is_error else "(no output)"
            elif turn.is_error:
                message["content"] = f"(error) {text}"
        if message["content"].strip() or turn.tool_calls:
            out.append(message)
    return out, red.found


def session_scope(source: str, session: Session) -> str:
    """The engine ``session_id``: the tool and its session id (sub-agent runs are sessions of their own)."""
    return f"{session.tool or source}:{session.id}"[:256]
