"""HTTP clients for a memscribe server (``pip install memscribe[server]`` brings httpx).

:class:`MemoryClient` (sync) and :class:`AsyncMemoryClient` mirror :class:`memscribe.Memory` method for
method and raise the same exception classes, so code written against the SDK runs against a server.
"""

from __future__ import annotations

from memscribe.client._async import AsyncMemoryClient
from memscribe.client._errors import AuthenticationError, ServerUnavailable
from memscribe.client._sync import MemoryClient

__all__ = ["AsyncMemoryClient", "AuthenticationError", "MemoryClient", "ServerUnavailable"]
