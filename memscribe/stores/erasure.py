"""What a forget must take with it, shared by every store: the forgotten versions' texts and values, wherever
else they were said. A fact said in several episodes lives in each of them (a repeat is journaled against
the memory, not linked as its provenance); the journal's reasons may quote it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from memscribe.core.records import MemoryRecord

__all__ = ["ERASED", "Needles", "needles_of", "quoted_texts", "scrub_messages", "sources_of"]

ERASED = "[erased]"  # what erased journal reasons and source messages read afterwards
_WORD = re.compile(r"[^\W_]{4,}")  # words of four letters or more: what identifies a statement
_MIN_TEXT = 8  # shorter texts occur by chance ("yes", "ok thanks")
_MIN_VALUE = 3


class Needles:
    """The forgotten strings and how to tell a message that states them."""

    def __init__(self, texts: Iterable[str], values: Iterable[str]) -> None:
        self.texts = sorted({t for t in texts if len(t.strip()) >= _MIN_TEXT}, key=len, reverse=True)
        self.values = sorted({v for v in values if len(v.strip()) >= _MIN_VALUE}, key=len, reverse=True)
        self._words = [set(_WORD.findall(t.lower())) for t in self.texts]

    def __bool__(self) -> bool:
        return bool(self.texts or self.values)

    @property
    def strings(self) -> list[str]:
        """Every forgotten string, longest first (so a text is replaced before a value inside it)."""
        return sorted({*self.texts, *self.values}, key=len, reverse=True)

    def quoted_in(self, content: str) -> bool:
        """The content repeats a forgotten text verbatim (true of any message, linked or not)."""
        return any(t in content for t in self.texts)

    def stated_in(self, content: str) -> bool:
        """The content states a forgotten fact: verbatim, by its value, or with most of its words. Used for
        messages of episodes the journal links to the memory, where a paraphrase is the same fact."""
        if self.quoted_in(content) or any(v.lower() in content.lower() for v in self.values):
            return True
        said = set(_WORD.findall(content.lower()))
        return any(words and len(words & said) * 2 >= len(words) for words in self._words)

    def scrub(self, text: str) -> str:
        """``text`` with every forgotten string replaced by :data:`ERASED`."""
        for needle in self.strings:
            if needle in text:
                text = text.replace(needle, ERASED)
        return text


def needles_of(records: Iterable[MemoryRecord]) -> Needles:
    records = list(records)
    return Needles((r.text for r in records), (r.value for r in records if r.value))


def sources_of(records: Iterable[MemoryRecord]) -> set[tuple[str, int]]:
    """(episode id, message index) of every message the records were derived from."""
    return {(r.episode_id, i) for r in records if r.episode_id for i in r.message_indices}


def scrub_messages(
    messages: list[dict[str, Any]], episode_id: str, needles: Needles, sources: set[tuple[str, int]], linked: bool
) -> bool:
    """Erase, in place, the messages of one episode that a forget takes with it: its source messages, and
    those stating a forgotten fact (``linked``: the journal ties the episode to the memory, so a paraphrase
    counts) or repeating one verbatim. Returns whether any message changed."""
    changed = False
    for i, message in enumerate(messages):
        content = message.get("content") or ""
        stated = needles.stated_in(content) if linked else needles.quoted_in(content)
        if (episode_id, i) in sources or (stated and content != ERASED):
            message["content"], message["tool_calls"], changed = ERASED, [], True
    return changed


def quoted_texts(needles: Needles) -> list[str]:
    """The forgotten texts as they appear inside an episode's JSON-encoded messages."""
    return [json.dumps(text, ensure_ascii=False)[1:-1] for text in needles.texts]
