"""Host and Origin checks for MCP over HTTP. The server has no authentication and listens on loopback, so a
web page must not reach it through DNS rebinding (a foreign Host) or a cross-site request (a foreign
Origin). The SDK turns its own checks on only for a few literal host names; these are on for every bind."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_MCP_BODY_BYTES", "http_options", "local_names"]

MAX_MCP_BODY_BYTES = 1024 * 1024


def local_names(host: str, port: int) -> list[str]:
    """``host:port`` forms a local client may send in ``Host``: the bound address and the loopback names."""
    names = {host.strip("[]"), "127.0.0.1", "localhost", "::1"}
    return sorted(f"[{n}]:{port}" if ":" in n else f"{n}:{port}" for n in names)


def http_options(host: str, port: int) -> dict[str, Any]:
    """Keyword arguments for ``MCPServer.run("streamable-http", ...)``."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = local_names(host, port)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )
    return {"host": host, "port": port, "transport_security": security, "max_request_body_size": MAX_MCP_BODY_BYTES}
