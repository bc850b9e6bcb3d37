"""Identifiers: time-ordered random ids for records, content hashes for episodes."""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any

__all__ = ["content_hash", "new_id"]


def new_id() -> str:
    """A UUIDv7-shaped id: sortable by creation time, random in its low bits."""
    ms = time.time_ns() // 1_000_000
    raw = bytearray(ms.to_bytes(6, "big") + os.urandom(10))
    raw[6] = (raw[6] & 0x0F) | 0x70
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def content_hash(payload: Any) -> str:
    """sha256 of the canonical JSON form of ``payload`` (sorted keys, no whitespace)."""
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
