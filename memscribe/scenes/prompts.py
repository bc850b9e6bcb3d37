"""Prompts of the scene layer, as versioned data. Every operation a prompt produces records its version.

Change a prompt's text → bump its version, so the journal tells which prompt wrote which memory.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "INSIGHT_PROMPT",
    "INSIGHT_PROMPT_VERSION",
    "INSIGHT_SCHEMA",
    "ROUTER_PROMPT",
    "ROUTER_PROMPT_VERSION",
    "ROUTER_SCHEMA",
    "SUMMARY_PROMPT",
    "SUMMARY_PROMPT_VERSION",
    "SUMMARY_SCHEMA",
]

ROUTER_PROMPT_VERSION: Final = "scene-router-1"
ROUTER_PROMPT: Final = (
    "Classify one AI-agent session by its purpose. chat: personal conversation (the person's life, plans, "
    "preferences), even if a tool such as weather or calendar was used. working: a task on documents, research, "
    "data or operations. coding: changing or debugging a code base. Reply with JSON only."
)
ROUTER_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"scene": {"type": "string", "enum": ["chat", "working", "coding"]}},
    "required": ["scene"],
}

SUMMARY_PROMPT_VERSION: Final = "session-summary-1"
SUMMARY_PROMPT: Final = (
    "Summarise the conversation below for a long-term memory in two to four sentences, third person, "
    "with absolute dates when the text gives them. Keep names, decisions, plans and outcomes; drop greetings "
    "and filler. Never repeat secrets. Also list up to five short topic tags. Reply with JSON only."
)
SUMMARY_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "topics": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
    },
    "required": ["summary"],
}

INSIGHT_PROMPT_VERSION: Final = "schema-insight-1"
INSIGHT_PROMPT: Final = (
    "Below are numbered facts about one subject. Infer at most three durable patterns (habits, preferences, "
    "recurring situations) that several facts support together. Each insight is one self-contained sentence "
    "naming the subject, cites the numbers of the facts that support it (at least two), and has a confidence "
    "from 0 to 1. Do not restate a single fact. If nothing is supported by two facts, return an empty list. "
    "Reply with JSON only."
)
INSIGHT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "insights": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "integer"}},
                    "confidence": {"type": "number"},
                },
                "required": ["text", "evidence"],
            },
        }
    },
    "required": ["insights"],
}
