"""Turn what callers pass to ``add`` into validated messages and episodes, or a clear InvalidInput."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from memscribe.core.clock import ensure_utc
from memscribe.core.ids import content_hash
from memscribe.core.records import Episode, Message, Scope, ToolCall
from memscribe.errors import InvalidInput, ScopeError

__all__ = ["MAX_EPISODE_CHARS", "MAX_MESSAGES", "build_episode", "parse_messages", "parse_scope"]

MAX_MESSAGES = 2_000
MAX_MESSAGE_CHARS = 100_000
MAX_EPISODE_CHARS = 1_000_000
ROLES = frozenset({"user", "assistant", "system", "tool"})
MAX_ID_CHARS = 256


def parse_scope(
    user_id: object,
    *,
    tenant: object = "default",
    agent_id: object = None,
    session_id: object = None,
    project: object = None,
) -> Scope:
    """Validate scope parts: user_id and tenant are required non-empty strings, the rest optional."""

    def part(name: str, value: object, required: bool) -> str | None:
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value.strip():
            raise ScopeError(f"{name} must be a non-empty string, got {value!r}")
        if len(value) > MAX_ID_CHARS or "\x00" in value:
            raise ScopeError(f"{name} must be at most {MAX_ID_CHARS} characters with no NUL bytes")
        return value

    return Scope(
        user_id=part("user_id", user_id, True) or "",
        tenant=part("tenant", tenant, True) or "default",
        agent_id=part("agent_id", agent_id, False),
        session_id=part("session_id", session_id, False),
        project=part("project", project, False),
    )


def parse_messages(data: object) -> tuple[Message, ...]:
    """Accept a string, one message mapping, or a sequence of message mappings / Message objects."""
    if isinstance(data, str):
        data = [{"role": "user", "content": data}]
    elif isinstance(data, Mapping | Message):
        data = [data]
    if not isinstance(data, Sequence) or isinstance(data, bytes | bytearray):
        raise InvalidInput(f"messages must be a string or a list of messages, got {type(data).__name__}")
    if not data:
        raise InvalidInput("messages must not be empty")
    if len(data) > MAX_MESSAGES:
        raise InvalidInput(f"at most {MAX_MESSAGES} messages per add, got {len(data)}")
    messages = tuple(_parse_one(i, item) for i, item in enumerate(data))
    total = sum(len(m.content) for m in messages)
    if total > MAX_EPISODE_CHARS:
        raise InvalidInput(f"an add may hold at most {MAX_EPISODE_CHARS} characters, got {total}")
    if not any(m.content.strip() or m.tool_calls for m in messages):
        raise InvalidInput("messages hold no content")
    return messages


def _parse_one(index: int, item: object) -> Message:
    if isinstance(item, Message):
        item = {
            "role": item.role,
            "content": item.content,
            "name": item.name,
            "timestamp": item.timestamp,
            "tool_calls": [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in item.tool_calls],
        }
    if not isinstance(item, Mapping):
        raise InvalidInput(f"message {index} must be a mapping with role and content")
    role = item.get("role", "user")
    if role not in ROLES:
        raise InvalidInput(f"message {index}: role must be one of {sorted(ROLES)}, got {role!r}")
    content = item.get("content", "")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise InvalidInput(f"message {index}: content must be a string, got {type(content).__name__}")
    if "\x00" in content:
        raise InvalidInput(f"message {index}: content contains a NUL byte")
    if len(content) > MAX_MESSAGE_CHARS:
        raise InvalidInput(f"message {index}: content is longer than {MAX_MESSAGE_CHARS} characters")
    name = item.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > MAX_ID_CHARS):
        raise InvalidInput(f"message {index}: name must be a short string")
    return Message(
        role=str(role),
        content=content,
        name=name or None,
        timestamp=_parse_time(item.get("timestamp"), f"message {index}: timestamp"),
        tool_calls=_parse_tool_calls(index, item.get("tool_calls") or ()),
    )


def _parse_tool_calls(index: int, raw: object) -> tuple[ToolCall, ...]:
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise InvalidInput(f"message {index}: tool_calls must be a list")
    calls = []
    for call in raw:
        if not isinstance(call, Mapping):
            raise InvalidInput(f"message {index}: each tool call must be a mapping")
        inner = call.get("function")
        fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else call
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"message {index}: a tool call needs a name")
        args = fn.get("arguments", {})
        if isinstance(args, str):
            args = {"raw": args}
        if not isinstance(args, Mapping):
            raise InvalidInput(f"message {index}: tool call arguments must be a mapping or a string")
        call_id = call.get("id")
        calls.append(ToolCall(name=name, arguments=dict(args), id=str(call_id) if call_id else None))
    return tuple(calls)


def _parse_time(value: object, what: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        try:
            return ensure_utc(value)
        except OverflowError as exc:  # 9999-12-31 at -14:00 is past what UTC can hold
            raise InvalidInput(f"{what}: {value!r} is out of range in UTC") from exc
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return ensure_utc(datetime.fromtimestamp(float(value), tz=None).astimezone())
        except (OverflowError, OSError, ValueError) as exc:
            raise InvalidInput(f"{what}: {value!r} is not a valid epoch time") from exc
    if isinstance(value, str):
        try:
            return ensure_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError as exc:
            raise InvalidInput(f"{what}: {value!r} is not an ISO-8601 time") from exc
        except OverflowError as exc:
            raise InvalidInput(f"{what}: {value!r} is out of range in UTC") from exc
    raise InvalidInput(f"{what}: expected a datetime, ISO string or epoch seconds")


def parse_time(value: object, what: str = "timestamp") -> datetime | None:
    """Public form of the time parser, for timestamps and ``as_of`` arguments."""
    return _parse_time(value, what)


def build_episode(
    messages: tuple[Message, ...],
    scope: Scope,
    *,
    timestamp: datetime,
    source: str,
    metadata: Mapping[str, Any] | None,
    idempotency_key: str | None,
) -> Episode:
    """Content-address an episode: the same content, scope, time and source give the same id."""
    if metadata is not None and not isinstance(metadata, Mapping):
        raise InvalidInput("metadata must be a mapping")
    if idempotency_key is not None and (not isinstance(idempotency_key, str) or not idempotency_key):
        raise InvalidInput("idempotency_key must be a non-empty string")
    payload = {
        "scope": [scope.tenant, scope.user_id, scope.agent_id, scope.session_id, scope.project],
        "messages": [_message_payload(m) for m in messages],
        "timestamp": timestamp.isoformat(),
        "source": source,
    }
    digest = content_hash(payload)
    return Episode(
        id=digest[:32],
        scope=scope,
        messages=messages,
        timestamp=timestamp,
        source=source,
        idempotency_key=idempotency_key or digest,
        metadata=dict(metadata or {}),
    )


def _message_payload(m: Message) -> dict[str, Any]:
    return {
        "role": m.role,
        "name": m.name,
        "content": m.content,
        "timestamp": m.timestamp.isoformat() if m.timestamp else None,
        "tool_calls": [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in m.tool_calls],
    }


def message_to_dict(m: Message) -> dict[str, Any]:
    """JSON-ready form of a message (used by stores and export)."""
    return _message_payload(m)
