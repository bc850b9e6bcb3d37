"""The REST server (``pip install memscribe[server]``): FastAPI over the same engine as the SDK.

``create_app(ServerSettings(store_path=...))`` builds the app; ``memscribe serve`` runs it with uvicorn on
127.0.0.1. Importing ``memscribe`` never imports this package.
"""

from __future__ import annotations

from memscribe.server.app import ServerState, create_app
from memscribe.server.keys import ApiKey, KeyStore, NewKey
from memscribe.server.settings import DEFAULT_PORT, ServerSettings, is_loopback

__all__ = ["DEFAULT_PORT", "ApiKey", "KeyStore", "NewKey", "ServerSettings", "ServerState", "create_app", "is_loopback"]
