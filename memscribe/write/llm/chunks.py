"""What the model is shown per call: the episode cut into chunks, each read with the lite writer's rules.

The rules do not decide anything here; they only help the model. Sentence segmentation, speaker
attribution and slot detection say which stored memories to pre-retrieve (by similarity per statement,
by slot when a slot is obvious, by subject when the statement is a correction or a forget request), and
the lite time resolver turns "yesterday" into a date the model can copy instead of computing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memscribe.core.records import Episode
from memscribe.core.text import estimate_tokens
from memscribe.write.lite.person import Referents, expand_contractions, find_subject
from memscribe.write.lite.requests import parse_correction, parse_forget
from memscribe.write.lite.segment import segment_episode
from memscribe.write.lite.slots import extract_facts
from memscribe.write.lite.tense import detect_tense
from memscribe.write.lite.timeref import resolve_times

__all__ = ["Chunk", "cjk_ratio", "language_of", "split_episode"]

_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x3040, 0x30FF), (0xAC00, 0xD7AF))
_ZH_THRESHOLD = 0.2  # of non-space characters; mixed chats with a few English names still read as Chinese


@dataclass
class Chunk:
    """Message indices of one model call, and what the rules read from them."""

    indices: list[int]
    queries: list[str] = field(default_factory=list)  # statements to find similar memories for
    slots: list[str] = field(default_factory=list)  # "subject/attribute" slots the statements touch
    subjects: list[str] = field(default_factory=list)  # subjects whose memories a correction may target
    dates: dict[int, dict[str, str]] = field(default_factory=dict)  # message → {"yesterday": "2023-06-02"}

    def text(self, episode: Episode) -> str:
        return "\n".join(episode.messages[i].content for i in self.indices)


def cjk_ratio(text: str) -> float:
    """The share of non-space characters that are Chinese, Japanese or Korean."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    cjk = sum(1 for c in chars if any(lo <= ord(c) <= hi for lo, hi in _CJK_RANGES))
    return cjk / len(chars)


def language_of(text: str) -> str:
    """``"zh"`` when the text is mostly CJK, else ``"en"``: which prompt variant to use."""
    return "zh" if cjk_ratio(text) >= _ZH_THRESHOLD else "en"


def split_episode(episode: Episode, *, max_messages: int, max_tokens: int) -> list[Chunk]:
    """Chunks of user/assistant messages with content, each ≤ ``max_messages`` and about ≤ ``max_tokens``.

    A single message longer than the budget is a chunk of its own rather than being cut mid-sentence.
    """
    chunks: list[Chunk] = []
    current: list[int] = []
    budget = 0
    for index, message in enumerate(episode.messages):
        if message.role not in ("user", "assistant") or not message.content.strip():
            continue  # system prompts and tool output are not anyone's statements
        cost = estimate_tokens(message.content)
        if current and (len(current) >= max_messages or budget + cost > max_tokens):
            chunks.append(Chunk(current))
            current, budget = [], 0
        current.append(index)
        budget += cost
    if current:
        chunks.append(Chunk(current))
    _read(episode, chunks)
    return chunks


def _read(episode: Episode, chunks: list[Chunk]) -> None:
    """Fill each chunk's retrieval hints and resolved dates from the lite rules."""
    owner = {i: chunk for chunk in chunks for i in chunk.indices}
    refs = Referents()
    for st in segment_episode(episode):
        chunk = owner.get(st.message_index)
        if chunk is None:
            continue
        refs.at_message(st.message_index)
        expanded = expand_contractions(st.text)
        tense = detect_tense(expanded)
        mention = find_subject(expanded, st.speaker, refs)
        chunk.queries.append(st.text)
        for fact in extract_facts(expanded, mention, st.speaker.subject, tense):
            _add(chunk.slots, fact.slot)
        if parse_correction(st.text) is not None or parse_forget(st.text) is not None:
            _add(chunk.subjects, st.speaker.subject)
        for ref in resolve_times(st.text, st.at, tense).refs:
            chunk.dates.setdefault(st.message_index, {})[st.text[ref.start : ref.end]] = ref.day.isoformat()


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)
