"""One request builder for both clients: each SDK method becomes a :class:`Call` (method, path, query, JSON),
so :class:`MemoryClient` and :class:`AsyncMemoryClient` differ only in how they send it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from memscribe.client._errors import error_from_response

__all__ = [
    "JSON_HEADERS",
    "NDJSON_HEADERS",
    "Call",
    "add",
    "decode",
    "delete",
    "export",
    "forget",
    "get",
    "history",
    "limit_of",
    "list_",
    "mem0_scope",
    "purge",
    "search",
    "stats",
    "update",
    "why",
]

NDJSON = "application/x-ndjson"
JSON_HEADERS = {"content-type": "application/json"}
NDJSON_HEADERS = {"content-type": NDJSON}


@dataclass(frozen=True)
class Call:
    """One request. Built only from what can be sent: a lone surrogate, a value JSON cannot carry or a
    non-string key is an :class:`InvalidInput` naming the field, as the local SDK raises, never a raw
    ``UnicodeEncodeError`` or ``TypeError`` from deep inside httpx."""

    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None

    def __post_init__(self) -> None:
        for key, value in self.params.items():
            if not isinstance(value, str | int | float | bool):
                raise _invalid(f"{key} must be a string or a number, got {type(value).__name__}")
            if isinstance(value, str):
                _check_text(value, key)
        if self.json is not None:
            _check_json(self.json, "")

    def body(self) -> bytes | None:
        """The JSON body as UTF-8 (checked at construction, so it always encodes)."""
        if self.json is None:
            return None
        return json.dumps(self.json, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _invalid(
            f"{where or 'the value'} is not valid Unicode (character {exc.start} is a lone surrogate)"
        ) from None


def _check_json(value: Any, where: str, depth: int = 0) -> None:
    if isinstance(value, str):
        _check_text(value, where)
    elif isinstance(value, bool | int) or value is None:
        return
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _invalid(f"{where} must be a finite number, got {value}")
    elif depth > 64:
        raise _invalid(f"{where} nests too deeply")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _invalid(f"{where or 'the body'} has a key that is not a string: {key!r}")
            _check_text(key, f"a key of {where or 'the body'}")
            _check_json(item, f"{where}.{key}" if where else key, depth + 1)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_json(item, f"{where}[{i}]", depth + 1)
    else:
        raise _invalid(f"{where} must be a JSON value, got {type(value).__name__}")


def _clean(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        out[key] = value.isoformat() if isinstance(value, datetime) else value
    return out


def _mid(memory_id: str) -> str:
    _check_text(str(memory_id), "memory_id")
    return quote(str(memory_id), safe="")


_ALIASES = {"run_id": "session_id", "app_id": "project"}


def mem0_scope(user_id: object, filters: Mapping[str, Any] | None) -> tuple[object, dict[str, Any] | None]:
    """As the SDK does: mem0's ``filters={"user_id": ..., "run_id": ...}`` (or one ``AND`` list) become the
    user id plus memscribe filters."""
    if not filters:
        return user_id, None
    parts = filters["AND"] if set(filters) == {"AND"} and isinstance(filters["AND"], list) else [filters]
    flat: dict[str, Any] = {}
    for part in parts:
        if not isinstance(part, Mapping) or {"OR", "NOT", "AND"} & set(part):
            raise _invalid("memscribe filters are one AND of fields (no OR/NOT)")
        for key, value in part.items():
            name = _ALIASES.get(key, key)
            if name in flat and flat[name] != value:
                raise _invalid(f"{key} is given twice with different values in filters: pass it once")
            flat[name] = value
    inner = flat.pop("user_id", None)
    if inner is not None and user_id is not None and inner != user_id:
        raise _invalid(f"user_id {user_id!r} and filters.user_id {inner!r} disagree")
    return (user_id if user_id is not None else inner), (flat or None)


def limit_of(limit: int | None, top_k: int | None, default: int) -> int:
    """``limit``, else mem0's ``top_k``, else the default; both given must agree."""
    if limit is not None and top_k is not None and limit != top_k:
        raise _invalid(f"limit {limit!r} and top_k {top_k!r} disagree; pass one")
    chosen = limit if limit is not None else top_k
    return default if chosen is None else chosen


def add(messages: object, **scope: Any) -> Call:
    return Call("POST", "/v1/memories", json=_clean({"messages": messages, **scope}))


def search(
    query: str,
    *,
    user_id: object,
    limit: int,
    as_of: object,
    include_history: bool,
    filters: Mapping[str, Any] | None,
    threshold: float | None = None,
) -> Call:
    body = _clean(
        {
            "query": query,
            "user_id": user_id,
            "limit": limit,
            "as_of": as_of,
            "include_history": include_history,
            "filters": _clean(filters) if filters else None,
            "threshold": threshold,
        }
    )
    return Call("POST", "/v1/memories/search", json=body)


def list_(
    *,
    user_id: object,
    limit: int,
    offset: int,
    as_of: object,
    include_history: bool,
    filters: Mapping[str, Any] | None,
) -> Call:
    params = _clean(
        {
            "user_id": user_id,
            "limit": limit,
            "offset": offset,
            "as_of": as_of,
            "include_history": str(include_history).lower(),
        }
    )
    for key, value in _clean(filters or {}).items():
        if key not in _LIST_FILTERS:
            raise _invalid(f"unknown filter {key!r}; known: {sorted(_LIST_FILTERS)}")
        params[_LIST_FILTERS[key]] = value
    return Call("GET", "/v1/memories", params=params)


_LIST_FILTERS = {
    "agent_id": "agent_id",
    "session_id": "session_id",
    "project": "project",
    "layers": "layer",
    "scenes": "scene",
    "sources": "source",
    "owners": "owner",
    "statuses": "status",
    "after": "after",
    "before": "before",
}


def _invalid(message: str) -> Exception:
    from memscribe.errors import InvalidInput

    return InvalidInput(message)


def get(memory_id: str, user_id: object) -> Call:
    return Call("GET", f"/v1/memories/{_mid(memory_id)}", params=_clean({"user_id": user_id}))


def update(memory_id: str, text: str, user_id: object) -> Call:
    return Call("PUT", f"/v1/memories/{_mid(memory_id)}", json=_clean({"text": text, "user_id": user_id}))


def delete(memory_id: str, user_id: object) -> Call:
    return Call("DELETE", f"/v1/memories/{_mid(memory_id)}", params=_clean({"user_id": user_id}))


def history(memory_id: str, user_id: object) -> Call:
    return Call("GET", f"/v1/memories/{_mid(memory_id)}/history", params=_clean({"user_id": user_id}))


def why(memory_id: str, user_id: object) -> Call:
    return Call("GET", f"/v1/memories/{_mid(memory_id)}/why", params=_clean({"user_id": user_id}))


def forget(query_or_id: str, user_id: object, limit: int) -> Call:
    return Call("POST", "/v1/forget", json=_clean({"query_or_id": query_or_id, "user_id": user_id, "limit": limit}))


def purge(user_id: object) -> Call:
    return Call("POST", "/v1/purge", json={"user_id": user_id})


def stats(user_id: object) -> Call:
    if user_id is None:
        raise _invalid("over HTTP, stats are per user: pass user_id")
    return Call("GET", "/v1/stats", params={"user_id": user_id})


def export(user_id: object) -> Call:
    return Call("GET", "/v1/export", params={"user_id": user_id})


def decode(status: int, content: bytes) -> Any:
    """The JSON of a successful response, or the exception a failed one stands for, raised."""
    if status >= 400:
        raise error_from_response(status, content)
    return json.loads(content)
