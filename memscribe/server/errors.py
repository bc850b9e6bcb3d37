"""Every failure leaves the server as ``{"error": {"code", "message"}}`` with the status from the one error
table (:data:`memscribe.errors.ERROR_TABLE`). Only real faults are 5xx, and their message is generic."""

from __future__ import annotations

import logging
import traceback
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memscribe.errors import MemscribeError, error_info

__all__ = ["ApiError", "error_response", "install_error_handlers"]

log = logging.getLogger("memscribe.server")

_HTTP_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
    406: "not_acceptable", 409: "conflict", 413: "payload_too_large", 415: "unsupported_media_type",
    422: "validation_error", 429: "rate_limited",
}  # fmt: skip


class ApiError(Exception):
    """An HTTP-level refusal (auth, size, media type) that has no place in the engine's error tree."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _describe(errors: Any) -> str:
    """One readable line per pydantic error: ``body.messages: Field required``; input values left out."""
    parts = []
    for err in errors:
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
    return "; ".join(parts[:10]) + (f"; and {len(parts) - 10} more" if len(parts) > 10 else "")


async def _on_memscribe(_: Request, exc: Exception) -> JSONResponse:
    info = error_info(exc)
    if info.http_status >= 500:
        log.error("request failed: %s (%s)", type(exc).__name__, info.code)
    return error_response(info.http_status, info.code, str(exc) or info.code)


async def _on_api(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.headers)


async def _on_validation(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, "validation_error", _describe(exc.errors()))


async def _on_http(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail), dict(exc.headers or {}))


async def _on_unexpected(_: Request, exc: Exception) -> JSONResponse:
    # Frames only: an exception's message may quote memory content, which never goes to the log.
    frames = "".join(traceback.format_tb(exc.__traceback__))
    log.error("unexpected error: %s\n%s", type(exc).__name__, frames)
    return error_response(500, "internal_error", "internal server error")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(MemscribeError, _on_memscribe)
    app.add_exception_handler(ApiError, _on_api)
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(Exception, _on_unexpected)
