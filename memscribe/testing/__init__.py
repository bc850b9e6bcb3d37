"""Fakes and contract suites shipped with memscribe, for its own tests and yours.

- ``FrozenClock``: a clock that only moves when told to.
- ``HashEmbedder``: a deterministic embedder with no model.
- ``ScriptedChat`` / ``FunctionChat``: chat models that replay queued answers or call a function.
- ``FakeOpenAIServer``: a local OpenAI-compatible HTTP server scripted per test.
- ``InMemoryStore``: the in-memory store.
- ``StoreContract``: the test suite every store must pass (subclass it with ``make_store``).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "Behaviour",
    "FakeOpenAIServer",
    "FrozenClock",
    "FunctionChat",
    "HashEmbedder",
    "InMemoryStore",
    "ScriptExhausted",
    "ScriptedChat",
    "StoreContract",
]

_LAZY = {
    "Behaviour": "memscribe.testing.fake_openai",
    "FakeOpenAIServer": "memscribe.testing.fake_openai",
    "FrozenClock": "memscribe.core.clock",
    "FunctionChat": "memscribe.testing.chat",
    "HashEmbedder": "memscribe.providers.hashing",
    "InMemoryStore": "memscribe.stores.memory",
    "ScriptExhausted": "memscribe.testing.chat",
    "ScriptedChat": "memscribe.testing.chat",
    "StoreContract": "memscribe.testing.contract",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'memscribe.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
