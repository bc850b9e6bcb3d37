"""The hybrid writer's prompt: label how a new statement relates to stored memories the rules could not settle.

The model makes one narrow judgement per numbered pair and writes no memory text, no ids and no dates:
the lite rules wrote the statement, and code turns each label into an operation the engine validates.
Small models follow this far better than the full operation format (see docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

__all__ = ["LABELS", "PROMPT_VERSION", "REPAIR", "SYSTEM", "relation_schema"]

PROMPT_VERSION = "relation-en-2"
LABELS = ("same", "update", "correction", "unrelated")

SYSTEM = """\
You check a memory store. Each numbered pair has a NEW statement from today's chat and an OLD memory about \
the same person. Label each pair:
- same: OLD already says what NEW says.
- update: the fact changed over time, so NEW replaces OLD (moved, new job, new pet name, new number).
- correction: NEW says OLD was wrong all along.
- unrelated: both can be true at once (different topic, or another detail).
A fact about a different person, a plan, a question or a guess never replaces OLD: label it unrelated.
For update and correction also give "value": the new value, copied word for word from NEW.
Answer JSON: {"labels": [{"n": 1, "label": "...", "value": "..."}]} with one entry per pair."""

REPAIR = """\
Your last answer could not be used: {error}
Answer again with only the JSON object {{"labels": [...]}}, one entry per pair, nothing else."""


def relation_schema(pairs: int) -> dict[str, Any]:
    """The answer's schema for ``pairs`` numbered pairs: ``n`` may only name a pair that was shown."""
    return {
        "title": "relations",
        "type": "object",
        "properties": {
            "labels": {
                "type": "array",
                "maxItems": pairs,
                "items": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer", "enum": list(range(1, pairs + 1))},
                        "label": {"type": "string", "enum": list(LABELS)},
                        "value": {"type": ["string", "null"], "maxLength": 80},
                    },
                    "required": ["n", "label"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["labels"],
        "additionalProperties": False,
    }
