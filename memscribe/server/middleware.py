"""Pure ASGI middleware: the request body limit (413) and the access log with per-route metrics."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memscribe.server.metrics import RequestMetrics

__all__ = ["AccessMiddleware", "BodyLimitMiddleware", "HostOriginMiddleware"]

access_log = logging.getLogger("memscribe.server.access")


def _over(limit: int, path: str) -> str:
    if path.startswith("/v1/import"):  # the one body a user may legitimately need larger: say how
        return (f"import body over {limit} bytes: nothing was imported; send it in batches "
                "(`memscribe import FILE --url ...` and the Python clients do), or run `memscribe import FILE` "
                "on the store's machine")  # fmt: skip
    return f"request body over {limit} bytes"


def _too_large(limit: int, path: str) -> list[Message]:
    return _refusal(413, "payload_too_large", _over(limit, path))


def _refusal(status: int, code: str, message: str) -> list[Message]:
    body = json.dumps({"error": {"code": code, "message": message}})
    return [
        {"type": "http.response.start", "status": status,
         "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]},
        {"type": "http.response.body", "body": body.encode()},
    ]  # fmt: skip


class BodyLimitMiddleware:
    """Refuse bodies over ``limit`` bytes with 413, on every route: at once when Content-Length says so,
    otherwise as soon as the streamed body passes the limit."""

    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        limit = self.limit
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            for message in _too_large(limit, path):
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
                    raise HTTPException(413, _over(limit, path))
            return message

        await self.app(scope, counting_receive, send)


class HostOriginMiddleware:
    """Refuse DNS rebinding and cross-site requests, with or without authentication: a ``Host`` that is not
    one of ``hosts`` (when given; a wildcard bind accepts any) is 421, an ``Origin`` (or ``Sec-Fetch-Site:
    cross-site``) that is neither the server itself nor one of ``origins`` is 403. A browser sends Origin on
    every cross-site POST, PUT and DELETE, so a web page can neither purge nor plant memories."""

    def __init__(self, app: ASGIApp, *, hosts: tuple[str, ...], origins: tuple[str, ...]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}
        self.origins = {o.lower().rstrip("/") for o in origins}

    def _host_ok(self, host: str) -> bool:
        if not self.hosts:
            return True
        name = host.lower()
        bare = name.rsplit(":", 1)[0] if not name.endswith("]") else name
        return name in self.hosts or bare in self.hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        host = headers.get(b"host", "")
        refusal = None
        if not self._host_ok(host):
            refusal = _refusal(421, "misdirected_request", "this Host is not served here")
        else:
            origin = headers.get(b"origin")
            own = {f"http://{host}".lower(), f"https://{host}".lower()}
            foreign = origin is not None and origin.lower().rstrip("/") not in self.origins | own
            if foreign or (origin is None and headers.get(b"sec-fetch-site") == "cross-site"):
                refusal = _refusal(403, "forbidden", "cross-site requests are refused")
        if refusal is not None:
            for message in refusal:
                await send(message)
            return
        await self.app(scope, receive, send)


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
