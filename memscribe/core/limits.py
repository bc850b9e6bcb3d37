"""Size and encoding limits on what callers send, checked before anything is stored. Every string must be
encodable as UTF-8 (a lone surrogate is refused, not stored half-way), and metadata stays small and flat
enough that no single add can cost more than a request's worth of work."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memscribe.errors import InvalidInput

__all__ = ["MAX_METADATA_BYTES", "MAX_METADATA_DEPTH", "MAX_METADATA_KEYS", "MAX_METADATA_KEY_CHARS",
           "check_metadata", "check_text"]  # fmt: skip

MAX_METADATA_KEYS = 64  # per mapping, at any depth
MAX_METADATA_KEY_CHARS = 128
MAX_METADATA_BYTES = 64 * 1024  # every key and string of one metadata value together
MAX_METADATA_DEPTH = 8


def check_text(text: str, what: str) -> None:
    """Refuse a string that UTF-8 cannot carry (lone surrogates from a broken client)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} is not valid Unicode (character {exc.start} is a lone surrogate)") from None


def check_metadata(metadata: object) -> None:
    """Refuse metadata that is not a mapping, or too large, too many keys, too deep or not valid Unicode."""
    if metadata is None:
        return
    if not isinstance(metadata, Mapping):
        raise InvalidInput("metadata must be a mapping")
    budget = [MAX_METADATA_BYTES]
    _walk(metadata, 0, budget)


def _walk(value: Any, depth: int, budget: list[int]) -> None:
    if depth > MAX_METADATA_DEPTH:
        raise InvalidInput(f"metadata nests deeper than {MAX_METADATA_DEPTH} levels")
    if isinstance(value, str):
        _spend(value, budget, "metadata value")
    elif isinstance(value, Mapping):
        if len(value) > MAX_METADATA_KEYS:
            raise InvalidInput(f"metadata mappings hold at most {MAX_METADATA_KEYS} keys, got {len(value)}")
        for key, item in value.items():
            if not isinstance(key, str) or len(key) > MAX_METADATA_KEY_CHARS:
                raise InvalidInput(f"metadata keys must be strings of at most {MAX_METADATA_KEY_CHARS} characters")
            _spend(key, budget, "metadata key")
            _walk(item, depth + 1, budget)
    elif isinstance(value, list | tuple):
        if len(value) > MAX_METADATA_KEYS * 16:
            raise InvalidInput(f"metadata lists hold at most {MAX_METADATA_KEYS * 16} items")
        for item in value:
            _walk(item, depth + 1, budget)
    elif value is not None and not isinstance(value, bool | int | float):
        raise InvalidInput(f"metadata values must be JSON values, got {type(value).__name__}")
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**63:
        raise InvalidInput("metadata integers must fit in 64 bits")


def _spend(text: str, budget: list[int], what: str) -> None:
    check_text(text, what)
    budget[0] -= len(text.encode("utf-8"))
    if budget[0] < 0:
        raise InvalidInput(f"metadata is larger than {MAX_METADATA_BYTES} bytes")
