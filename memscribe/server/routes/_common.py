"""What every route module shares: documented error responses and small result helpers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memscribe.errors import InvalidInput
from memscribe.server.models import ErrorBody

__all__ = ["ERRORS", "filters_of", "merged_scope", "page"]

_ERROR_TEXT = {
    400: "Missing or inconsistent scope, or an unusable setting",
    401: "Missing or unknown API key",
    403: "Revoked key, or a key without the right to this route",
    404: "No such memory in the caller's scope",
    409: "A conflicting write or embedding model",
    413: "Request body over the configured limit",
    422: "The request failed validation",
    429: "A provider refused the call for rate or quota reasons",
    500: "An internal fault",
    502: "A model provider failed",
    503: "The store stayed locked past every retry",
    504: "A provider timed out",
    507: "The store is full or read-only",
}
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text} for status, text in _ERROR_TEXT.items()
}


_ALIASES = {"run_id": "session_id", "app_id": "project"}


def merged_scope(top: Mapping[str, Any], filters: Mapping[str, Any] | None) -> dict[str, Any]:
    """Top-level entity ids and mem0 ``filters`` (flat, or one ``AND`` list) as one flat mapping under
    memscribe's names (``run_id`` is ``session_id``, ``app_id`` is ``project``). A key given twice with
    different values, at the top and in filters or twice in the list, is refused rather than one chosen."""
    parts: list[Any] = [top]
    if filters:
        both = set(filters) == {"AND"} and isinstance(filters["AND"], list)
        parts += filters["AND"] if both else [filters]
    flat: dict[str, Any] = {}
    for part in parts:
        if not isinstance(part, Mapping):
            raise InvalidInput("filters must be objects (or one AND list of objects)")
        for key, value in part.items():
            name = _ALIASES.get(str(key), str(key))
            if value is None:
                continue
            if name in flat and flat[name] != value:
                raise InvalidInput(f"{key} is given twice with different values (top level or filters): pass it once")
            flat[name] = value
    return flat


def filters_of(**values: Any) -> dict[str, Any] | None:
    """Engine filters from optional query values; None when nothing narrows."""
    chosen = {k: v for k, v in values.items() if v not in (None, [], ())}
    return chosen or None


def page(result: Mapping[str, Any], limit: int, offset: int) -> dict[str, Any]:
    """A list result with its paging fields."""
    count = len(result["results"])
    return {
        **result,
        "limit": limit,
        "offset": offset,
        "next_offset": offset + count if count == limit else None,
    }
