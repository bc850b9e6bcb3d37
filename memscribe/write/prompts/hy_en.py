"""A Hy-Memory-style writer protocol, for benchmarking the protocol with everything else held fixed.

Two calls per add when there is something to reconcile against (one otherwise): extract third-person
memories with owner and tags, then decide ADD / UPDATE / SUPERSEDE with a reason against the chain heads
retrieved for them. Skipping a duplicate means emitting nothing; there is no DELETE. The wording is ours;
the shape follows the reference system's chat extraction and reconcile prompts.
"""

from __future__ import annotations

from typing import Any

__all__ = ["EXTRACT", "EXTRACT_SCHEMA", "PROMPT_VERSION", "RECONCILE", "RECONCILE_SCHEMA"]

PROMPT_VERSION = "hy-protocol-en-1"

EXTRACT = """\
Extract new, durable, high-value information from the new messages. Write every memory in the third \
person with an explicit subject ("The user ...", or the person's name), keep every specific (places, \
numbers, names), resolve relative dates against the memory date {today} and keep dated events separate. \
Use as few memories as keep every distinct proposition. owner is "agent" only for the assistant's own \
recommendations; otherwise "user". subject is the lower-case key of whom the memory is about.
Answer as JSON: {{"memory": [{{"content": "...", "subject": "...", "owner": "user|agent", "tags": ["..."]}}]}}

New messages:
{conversation}"""

RECONCILE = """\
Reconcile the new memories with the existing ones (current chain heads). For each new memory choose:
- ADD: entirely new information.
- UPDATE memory_id: same topic, compatible content, or more detail about the same occurrence; content is \
the merged, lossless statement.
- SUPERSEDE memory_id: a true contradiction where the new memory is the same age or newer; content is the \
new state only; give supersede_reason. Never across different subjects or owners.
Skip exact duplicates by emitting nothing. Give a short reason for every operation. Today is {today}.
Answer as JSON: {{"operations": [{{"op": "ADD|UPDATE|SUPERSEDE", "memory_id": <id or null>, "content": \
"...", "subject": "...", "owner": "user|agent", "reason": "...", "supersede_reason": "..."}}]}}

Existing memories:
{memories}

New memories:
{new}"""

EXTRACT_SCHEMA: dict[str, Any] = {
    "title": "extracted_memories",
    "type": "object",
    "properties": {
        "memory": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string"},
                    "subject": {"type": ["string", "null"]},
                    "owner": {"type": ["string", "null"], "enum": ["user", "agent", None]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["content"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["memory"],
    "additionalProperties": False,
}

RECONCILE_SCHEMA: dict[str, Any] = {
    "title": "reconcile_operations",
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["ADD", "UPDATE", "SUPERSEDE"]},
                    "memory_id": {"type": ["integer", "null"]},
                    "content": {"type": "string"},
                    "subject": {"type": ["string", "null"]},
                    "owner": {"type": ["string", "null"], "enum": ["user", "agent", None]},
                    "reason": {"type": ["string", "null"]},
                    "supersede_reason": {"type": ["string", "null"]},
                },
                "required": ["op", "content"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["operations"],
    "additionalProperties": False,
}
