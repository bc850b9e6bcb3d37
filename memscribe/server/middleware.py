"""Pure ASGI middleware: the request body limit (413) and the access log with per-route metrics."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memscribe.server.metrics import RequestMetrics

__all__ = ["AccessMiddleware", "BodyLimitMiddleware"]

access_log = logging.getLogger("memscribe.server.access")


def _too_large(limit: int) -> list[Message]:
    body = json.dumps({"error": {"code": "payload_too_large", "message": f"request body over {limit} bytes"}})
    return [
        {"type": "http.response.start", "status": 413,
         "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]},
        {"type": "http.response.body", "body": body.encode()},
    ]  # fmt: skip


class BodyLimitMiddleware:
    """Refuse bodies over ``limit`` bytes with 413: at once when Content-Length says so, otherwise as soon as
    the streamed body passes the limit. ``large`` maps path prefixes to a larger limit (the JSONL import)."""

    def __init__(self, app: ASGIApp, *, limit: int, large: dict[str, int] | None = None) -> None:
        self.app, self.limit, self.large = app, limit, large or {}

    def _limit_for(self, path: str) -> int:
        return next((n for prefix, n in self.large.items() if path.startswith(prefix)), self.limit)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self._limit_for(scope.get("path", ""))
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            for message in _too_large(limit):
                await send(message)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # An HTTPException: FastAPI's body reader re-raises it, the error handlers answer 413.
                    raise HTTPException(413, f"request body over {limit} bytes")
            return message

        await self.app(scope, counting_receive, send)


class AccessMiddleware:
    """One JSON log line per request (method, route template, status, milliseconds; never the path, query or
    body) and the per-route counters behind ``/metrics``."""

    def __init__(
        self, app: ASGIApp, *, metrics: RequestMetrics, clock: Callable[[], float] = time.perf_counter
    ):
        self.app, self.metrics, self.clock = app, metrics, clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = self.clock()
        status = 500

        async def observe(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, observe)
        finally:
            elapsed = (self.clock() - start) * 1000
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            label = f"{scope.get('method', '?')} {route}"
            self.metrics.record(label, status, elapsed)
            access_log.info(
                "request", extra={"method": scope.get("method"), "route": route, "status": status,
                                  "ms": round(elapsed, 2), "tenant": scope.get("state", {}).get("tenant")},
            )  # fmt: skip
