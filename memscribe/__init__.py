"""memscribe: a local-first memory engine for AI agents.

The write path decides what to remember, update, supersede or forget and keeps the store true as facts
change; the read path finds current memories with hybrid search. Importing this package is cheap and has
no side effects: heavy modules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memscribe.errors import (
    ConfigError,
    EmbeddingMismatch,
    InvalidInput,
    MemscribeError,
    NotFound,
    RuntimeFailure,
    ScopeError,
    StoreError,
    UserError,
    WriterError,
)

if TYPE_CHECKING:
    from memscribe.config import MemoryConfig
    from memscribe.engine.aio import AsyncMemory
    from memscribe.engine.memory import Memory

__version__ = "0.1.0"

__all__ = [
    "AsyncMemory",
    "ConfigError",
    "EmbeddingMismatch",
    "InvalidInput",
    "Memory",
    "MemoryConfig",
    "MemscribeError",
    "NotFound",
    "RuntimeFailure",
    "ScopeError",
    "StoreError",
    "UserError",
    "WriterError",
    "__version__",
]

_LAZY = {
    "Memory": ("memscribe.engine.memory", "Memory"),
    "AsyncMemory": ("memscribe.engine.aio", "AsyncMemory"),
    "MemoryConfig": ("memscribe.config", "MemoryConfig"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'memscribe' has no attribute {name!r}")
