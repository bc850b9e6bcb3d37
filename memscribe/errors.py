"""The exception tree. Every error memscribe raises derives from :class:`MemscribeError`.

::

    MemscribeError
    ├── UserError                  the caller's mistake: fix the input and retry
    │   ├── InvalidInput           malformed, empty, oversize or wrongly typed input
    │   ├── NotFound               no memory / episode with that id in this scope
    │   ├── ScopeError             missing or inconsistent scope (user_id, tenant, ...)
    │   ├── ConfigError            a configuration value that cannot work
    │   └── EmbeddingMismatch      a vector or store built with another model or dimension
    └── RuntimeFailure             the engine or something it depends on failed
        ├── StoreError             the store could not be read or written
        │   ├── StoreLocked        the store stayed locked past every retry
        │   ├── WriteConflict      a concurrent write changed what this write was planned against
        │   ├── StoreReadOnly      the store's file or directory is not writable
        │   └── StoreFull          the disk is full
        ├── ProviderError          an embedder or model provider failed
        │   ├── ProviderTimeout
        │   ├── RateLimited
        │   └── ModelOutputError   the model answered something that cannot be used
        └── WriterError            a writer failed on an episode (the episode stays pending)

:data:`ERROR_TABLE` maps each class to its HTTP status, CLI exit code and a stable code string; servers,
the MCP adapter and the CLI all read it, so one error means the same thing everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ERROR_TABLE",
    "ConfigError",
    "EmbeddingMismatch",
    "ErrorInfo",
    "InvalidInput",
    "MemscribeError",
    "ModelOutputError",
    "NotFound",
    "ProviderError",
    "ProviderTimeout",
    "RateLimited",
    "RuntimeFailure",
    "ScopeError",
    "StoreError",
    "StoreFull",
    "StoreLocked",
    "StoreReadOnly",
    "UserError",
    "WriteConflict",
    "WriterError",
    "error_info",
]


class MemscribeError(Exception):
    """Root of every error memscribe raises."""


class UserError(MemscribeError):
    """The caller's mistake: the request was refused and nothing changed."""


class InvalidInput(UserError, ValueError):
    """Malformed, empty, oversize or wrongly typed input."""


class NotFound(UserError, LookupError):
    """No record with that id exists in the caller's scope."""


class ScopeError(UserError):
    """The scope is missing or inconsistent."""


class ConfigError(UserError):
    """A configuration value that cannot work."""


class EmbeddingMismatch(UserError):
    """Vectors of another embedding model or dimension were offered to a store or index."""


class RuntimeFailure(MemscribeError):
    """The engine or one of its dependencies failed; the request may succeed when retried."""


class StoreError(RuntimeFailure):
    """The store could not be read or written."""


class StoreLocked(StoreError):
    """The store stayed locked by another writer past every retry."""


class WriteConflict(StoreError):
    """A concurrent write changed a memory this write was planned against; the engine re-plans."""


class StoreReadOnly(StoreError):
    """The store's file or its directory is not writable."""


class StoreFull(StoreError):
    """The disk holding the store is full."""


class ProviderError(RuntimeFailure):
    """An embedder or model provider failed."""


class ProviderTimeout(ProviderError):
    """A provider did not answer in time."""


class RateLimited(ProviderError):
    """A provider refused the call for rate or quota reasons."""


class ModelOutputError(ProviderError):
    """A model answered, but its output could not be parsed or validated."""


class WriterError(RuntimeFailure):
    """A writer failed on an episode; the episode stays pending and is retried later."""


@dataclass(frozen=True)
class ErrorInfo:
    code: str
    http_status: int
    exit_code: int


# Most specific first: error_info walks the MRO, so subclasses inherit their parent's row.
ERROR_TABLE: dict[type[MemscribeError], ErrorInfo] = {
    InvalidInput: ErrorInfo("invalid_input", 422, 2),
    NotFound: ErrorInfo("not_found", 404, 3),
    ScopeError: ErrorInfo("scope_error", 400, 4),
    ConfigError: ErrorInfo("config_error", 400, 5),
    EmbeddingMismatch: ErrorInfo("embedding_mismatch", 409, 6),
    UserError: ErrorInfo("user_error", 400, 2),
    StoreLocked: ErrorInfo("store_locked", 503, 10),
    StoreReadOnly: ErrorInfo("store_read_only", 507, 11),
    WriteConflict: ErrorInfo("write_conflict", 409, 14),
    StoreFull: ErrorInfo("store_full", 507, 12),
    StoreError: ErrorInfo("store_error", 500, 13),
    ProviderTimeout: ErrorInfo("provider_timeout", 504, 20),
    RateLimited: ErrorInfo("rate_limited", 429, 21),
    ModelOutputError: ErrorInfo("model_output_error", 502, 22),
    ProviderError: ErrorInfo("provider_error", 502, 23),
    WriterError: ErrorInfo("writer_error", 500, 24),
    RuntimeFailure: ErrorInfo("runtime_failure", 500, 30),
    MemscribeError: ErrorInfo("error", 500, 1),
}


def error_info(error: BaseException) -> ErrorInfo:
    """The table row for an error; anything that is not a MemscribeError is an internal fault."""
    for cls in type(error).__mro__:
        if cls in ERROR_TABLE:
            return ERROR_TABLE[cls]
    return ErrorInfo("internal_error", 500, 70)
