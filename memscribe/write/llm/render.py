"""The pro writer's request: the versioned prompt, the candidates under integer aliases, the messages.

Candidates and messages are one JSON object per line. Models read it reliably, ids never appear (models
invent UUIDs; small integers they copy), and the same lines are machine-readable for the scripted model
the update benchmark uses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType
from typing import Any

from memscribe.core.clock import ensure_utc
from memscribe.core.records import Episode, MemoryDraft, MemoryRecord
from memscribe.write.llm.chunks import Chunk, language_of
from memscribe.write.prompts import pro_en, pro_en_compact, pro_zh

__all__ = ["PROMPT_STYLES", "ProPrompt", "Shown", "fixed_prompt", "iso_time", "pro_prompt", "render_request"]

Shown = MemoryRecord | MemoryDraft
"""A memory as the model sees it: a stored one, or a draft an earlier chunk of this episode proposed."""


@dataclass(frozen=True)
class ProPrompt:
    """One language variant of the pro prompt, read from its versioned module."""

    version: str
    system: str
    time_line: str
    candidates_heading: str
    no_candidates: str
    messages_heading: str
    repair: str

    @classmethod
    def from_module(cls, module: ModuleType) -> ProPrompt:
        return cls(
            version=module.PROMPT_VERSION,
            system=module.SYSTEM,
            time_line=module.TIME_LINE,
            candidates_heading=module.CANDIDATES_HEADING,
            no_candidates=module.NO_CANDIDATES,
            messages_heading=module.MESSAGES_HEADING,
            repair=module.REPAIR,
        )


_PROMPTS = {
    "en": ProPrompt.from_module(pro_en),
    "zh": ProPrompt.from_module(pro_zh),
    "en-compact": ProPrompt.from_module(pro_en_compact),
}
PROMPT_STYLES = ("full", "compact")


def pro_prompt(text: str, language: str | None = None, style: str = "full") -> ProPrompt:
    """The prompt variant for ``text``: ``language`` when given ("en" / "zh"), else by its CJK ratio;
    ``style="compact"`` picks the short variant for small models where there is one (English)."""
    chosen = language or language_of(text)
    return _PROMPTS.get(f"{chosen}-{style}", _PROMPTS[chosen]) if style != "full" else _PROMPTS[chosen]


def fixed_prompt(language: str = "en") -> str:
    """The part of every request that does not depend on the input: the system prompt."""
    return _PROMPTS[language].system


def iso_time(when: datetime) -> str:
    return ensure_utc(when).isoformat().replace("+00:00", "Z")


def _memory_line(alias: int, shown: Shown) -> str:
    item: dict[str, Any] = {"n": alias, "text": shown.text, "subject": shown.subject, "owner": shown.owner.value}
    if shown.slot:
        item["slot"] = shown.slot
    if shown.value:
        item["value"] = shown.value
    if shown.valid_from is not None:
        item["valid_from"] = shown.valid_from.date().isoformat()
    if shown.valid_to is not None:
        item["valid_to"] = shown.valid_to.date().isoformat()
    return json.dumps(item, ensure_ascii=False)


def _message_line(episode: Episode, index: int, chunk: Chunk) -> str:
    message = episode.messages[index]
    item: dict[str, Any] = {"i": index, "role": message.role}
    if message.name:
        item["name"] = message.name
    if message.timestamp is not None and message.timestamp != episode.timestamp:
        item["time"] = iso_time(message.timestamp)
    item["text"] = message.content
    if chunk.dates.get(index):
        item["dates"] = chunk.dates[index]
    return json.dumps(item, ensure_ascii=False)


def render_request(
    prompt: ProPrompt, episode: Episode, chunk: Chunk, shown: Sequence[tuple[int, Shown]]
) -> list[dict[str, str]]:
    """The system and user messages of one pro call."""
    lines = [prompt.time_line.format(time=iso_time(episode.timestamp))]
    if shown:
        lines.append(prompt.candidates_heading)
        lines.extend(_memory_line(alias, item) for alias, item in shown)
    else:
        lines.append(prompt.no_candidates)
    lines.append(prompt.messages_heading)
    lines.extend(_message_line(episode, index, chunk) for index in chunk.indices)
    return [{"role": "system", "content": prompt.system}, {"role": "user", "content": "\n".join(lines)}]
