"""Server error bodies back into memscribe's exception classes, and transport failures translated."""

from __future__ import annotations

import json
from typing import Any

from memscribe.errors import (
    ERROR_TABLE,
    ConfigError,
    InvalidInput,
    MemscribeError,
    NotFound,
    RuntimeFailure,
    UserError,
)

__all__ = ["AuthenticationError", "ServerUnavailable", "error_from_response"]


class AuthenticationError(ConfigError):
    """The server refused the API key: missing or unknown (401), revoked or without the right (403)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class ServerUnavailable(RuntimeFailure):
    """The server could not be reached or did not answer in time."""


# The engine's own codes map back to their classes; HTTP-only codes to the nearest family.
_BY_CODE: dict[str, type[MemscribeError]] = {info.code: cls for cls, info in ERROR_TABLE.items()}
_BY_CODE.update(
    validation_error=InvalidInput, payload_too_large=InvalidInput, unsupported_media_type=InvalidInput,
    method_not_allowed=InvalidInput, bad_request=UserError, internal_error=RuntimeFailure,
)  # fmt: skip


def error_from_response(status: int, body: bytes) -> MemscribeError:
    """The exception a failed response stands for (same class as the SDK would have raised)."""
    code, message = "", ""
    try:
        detail: Any = json.loads(body).get("error") or {}
        code, message = str(detail.get("code", "")), str(detail.get("message", ""))
    except (ValueError, AttributeError):
        message = body[:200].decode("utf-8", "replace")
    message = message or f"HTTP {status}"
    if status in (401, 403):
        return AuthenticationError(message, status)
    cls = _BY_CODE.get(code)
    if cls is None:
        cls = NotFound if status == 404 else UserError if status < 500 else RuntimeFailure
    error = cls(message)
    error.status = status  # type: ignore[attr-defined]
    error.code = code  # type: ignore[attr-defined]
    return error
