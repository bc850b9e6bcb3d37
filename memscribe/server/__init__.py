"""The REST server (``pip install memscribe[server]``): FastAPI over the same engine as the SDK.

``create_app(ServerSettings(store_path=...))`` builds the app; ``memscribe serve`` runs it with uvicorn on
127.0.0.1. Importing ``memscribe`` never imports this package, and importing this package imports FastAPI
only when ``create_app`` is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memscribe.server.app import ServerState, create_app
    from memscribe.server.keys import ApiKey, KeyStore, NewKey
    from memscribe.server.settings import DEFAULT_PORT, ServerSettings, is_loopback

__all__ = [
    "DEFAULT_PORT",
    "ApiKey",
    "KeyStore",
    "NewKey",
    "ServerSettings",
    "ServerState",
    "create_app",
    "is_loopback",
]

_LAZY = {
    "ServerState": "memscribe.server.app",
    "create_app": "memscribe.server.app",
    "ApiKey": "memscribe.server.keys",
    "KeyStore": "memscribe.server.keys",
    "NewKey": "memscribe.server.keys",
    "DEFAULT_PORT": "memscribe.server.settings",
    "ServerSettings": "memscribe.server.settings",
    "is_loopback": "memscribe.server.settings",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'memscribe.server' has no attribute {name!r}")
