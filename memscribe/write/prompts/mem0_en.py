"""A mem0-style writer protocol, for benchmarking the protocol with everything else held fixed.

Two calls per add: extract a flat list of facts, then decide ADD / UPDATE / DELETE / NONE for each against
the retrieved memories. The protocol has no subject, owner, validity time or supersession: an UPDATE
replaces the text of the old fact, which is exactly the behaviour the benchmark should expose.
"""

from __future__ import annotations

from typing import Any

__all__ = ["EXTRACT", "EXTRACT_SCHEMA", "PROMPT_VERSION", "RECONCILE", "RECONCILE_SCHEMA"]

PROMPT_VERSION = "mem0-protocol-en-1"

EXTRACT = """\
You are a personal information organiser. Extract the facts, preferences, plans and personal details \
worth remembering about the user from the conversation below. Write each fact as a short standalone \
sentence in the user's language. Ignore greetings and small talk. Today is {today}.
Answer as JSON: {{"facts": ["...", ...]}}; an empty list when there is nothing to keep.

Conversation:
{conversation}"""

RECONCILE = """\
You manage a memory store. Compare the new facts with the existing memories and decide, for each, one \
event: ADD (new information; give a new text), UPDATE (the same topic with new or corrected information; \
give the id and the new text), DELETE (contradicted or asked to forget; give the id), NONE (already \
known; give the id). Use only ids listed below.
Answer as JSON: {{"memory": [{{"id": <id or null>, "text": "...", "event": "ADD|UPDATE|DELETE|NONE"}}]}}

Existing memories:
{memories}

New facts:
{facts}"""

EXTRACT_SCHEMA: dict[str, Any] = {
    "title": "facts",
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
    "required": ["facts"],
    "additionalProperties": False,
}

RECONCILE_SCHEMA: dict[str, Any] = {
    "title": "memory_events",
    "type": "object",
    "properties": {
        "memory": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": ["integer", "null"]},
                    "text": {"type": ["string", "null"]},
                    "event": {"type": "string", "enum": ["ADD", "UPDATE", "DELETE", "NONE"]},
                },
                "required": ["event"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["memory"],
    "additionalProperties": False,
}
