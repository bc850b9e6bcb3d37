"""The FastAPI application factory."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from memscribe.server.errors import install_error_handlers
from memscribe.server.keys import KeyStore
from memscribe.server.metrics import RequestMetrics
from memscribe.server.middleware import AccessMiddleware, BodyLimitMiddleware, HostOriginMiddleware
from memscribe.server.settings import ServerSettings, served_hosts
from memscribe.server.tenants import TenantPool

__all__ = ["ServerState", "create_app"]

log = logging.getLogger("memscribe.server")

_DESCRIPTION = """A local-first memory engine for AI agents, over HTTP.

Send a tenant API key as `Authorization: Bearer <key>` (or `X-API-Key`). Every route works inside that
key's tenant; every memory route inside one `user_id`. Errors are `{"error": {"code", "message"}}`.
Routes tagged *mem0* accept the bodies mem0's clients send.
"""


def _no_telemetry() -> dict[str, Any]:
    """Switch off FastAPI's OpenTelemetry hooks where it has them: exception logs would carry memory text."""
    import inspect

    if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        return {}
    off = dict.fromkeys(("tracing", "metrics", "logs", "operation_spans", "auto_configure"), False)
    return {"telemetry": off}


@dataclass
class ServerState:
    """What the routes share, kept on ``app.state.memscribe``."""

    settings: ServerSettings
    keys: KeyStore
    pool: TenantPool
    metrics: RequestMetrics


def create_app(settings: ServerSettings) -> FastAPI:
    """A FastAPI app serving ``settings.store_path``. Nothing is opened until the first request."""
    from memscribe import __version__
    from memscribe.server.routes import admin, data, mem0, mem0_platform, memories
    from memscribe.server.ui import mount_ui

    state = ServerState(
        settings=settings,
        keys=KeyStore(settings.resolved_keys_path),
        pool=TenantPool(settings),
        metrics=RequestMetrics(settings.latency_window),
    )
    if settings.no_auth:
        log.warning("authentication is off: every caller on %s acts as tenant %r", settings.host,
                    settings.default_tenant)  # fmt: skip

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        state.pool.close()

    app = FastAPI(
        title="memscribe", version=__version__, description=_DESCRIPTION, lifespan=lifespan, **_no_telemetry()
    )
    app.state.memscribe = state
    install_error_handlers(app)
    for module in (memories, mem0, mem0_platform, data, admin):
        app.include_router(module.router)
    mount_ui(app)
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_body_bytes)
    if settings.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["Authorization", "X-API-Key", "Content-Type"],
        )
    app.add_middleware(HostOriginMiddleware, hosts=served_hosts(settings), origins=settings.cors_origins)
    app.add_middleware(AccessMiddleware, metrics=state.metrics)
    return app
