"""The MCP server (``pip install memscribe[mcp]``), built on the official ``mcp`` SDK v2 (``MCPServer``).

Tools: ``add_memory``, ``search_memory``, ``get_memory``, ``memory_history``, ``why``, ``forget``,
``list_memories``; resource ``memscribe://profile``. Transports: stdio and streamable HTTP (loopback).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memscribe.mcp.server import McpScope, build_server

__all__ = ["McpScope", "build_server"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from memscribe.mcp import server

        value = getattr(server, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'memscribe.mcp' has no attribute {name!r}")
