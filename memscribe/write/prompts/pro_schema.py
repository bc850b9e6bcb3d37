"""The JSON schema of the pro writer's answer: ``{"operations": [...]}``.

Properties are listed in the order a constrained decoder emits them: the decision, its target and its
reason come before the memory text, so the model commits to *why* before it writes *what*. Only ``op`` and
``reason`` are required, which keeps NOOP and DELETE answers short. ``related`` holds the further changes a
decision implies (moving cities closes "commutes to the old office"); its items have the same shape without
a nested ``related``, so the schema stays finite for decoders that cannot recurse.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OP_KINDS", "PRO_SCHEMA", "SCHEMA_VERSION"]

SCHEMA_VERSION = "1"
OP_KINDS = ("ADD", "UPDATE", "SUPERSEDE", "DELETE", "NOOP")

_FIELDS: dict[str, Any] = {
    "op": {"type": "string", "enum": list(OP_KINDS)},
    "target": {"type": ["integer", "null"]},
    "reason": {"type": "string"},
    "text": {"type": ["string", "null"]},
    "subject": {"type": ["string", "null"]},
    "owner": {"type": ["string", "null"], "enum": ["user", "agent", None]},
    "slot": {"type": ["string", "null"]},
    "value": {"type": ["string", "null"]},
    "valid_from": {"type": ["string", "null"]},
    "valid_to": {"type": ["string", "null"]},
    "msgs": {"type": "array", "items": {"type": "integer"}},
}

_RELATED_OP: dict[str, Any] = {
    "type": "object",
    "properties": _FIELDS,
    "required": ["op", "reason"],
    "additionalProperties": False,
}

_OP: dict[str, Any] = {
    "type": "object",
    "properties": {**_FIELDS, "related": {"type": "array", "items": _RELATED_OP}},
    "required": ["op", "reason"],
    "additionalProperties": False,
}

PRO_SCHEMA: dict[str, Any] = {
    "title": "memory_operations",
    "type": "object",
    "properties": {"operations": {"type": "array", "items": _OP}},
    "required": ["operations"],
    "additionalProperties": False,
}
