"""Rerank fused hits so the memory that answers comes first.

Fusion by rank alone cannot tell an answer from a near miss in a small store: every memory of the user is in
both candidate lists. Three preferences reorder the fused pool, each a multiplier on the fused score:

* **topic**: a memory on the query's topic ("Where does Ana live?" → home) beats one that only shares words;
* **recency**: among memories on the query's topic, the newest is preferred, so the latest of several
  near-equivalent statements wins;
* **shape**: fragments and filler, statements marked hypothetical, temporary or ended, someone else's memories
  and the assistant's words rank below a plain statement of the user's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memscribe.core.records import MemoryRecord, Owner
from memscribe.core.text import STOPWORDS
from memscribe.read.topics import topics_of

__all__ = ["rerank_hits"]

_TOPIC = 1.6
_RECENT = 0.15
_SHAPE = {"hypothetical": 0.75, "temporary": 0.8, "ended": 0.85, "agent": 0.6, "fragment": 0.75, "other": 0.8}
# Queries about a stay, a trip or a plan want the memories the shape penalty would push down.
_ASKS_TEMPORARY = re.compile(
    r"\b(?:trip|travel\w*|visit\w*|staying|stay|this (?:quarter|month|week|summer)|right now|vacation|holiday"
    r"|business|plan\w*|going to|will|next)\b|出差|旅|计划|打算|Geschäftsreise|gerade|viaje|voyage",
    re.IGNORECASE,
)
_ASKS_ENDED = re.compile(r"\b(?:happened|still|used to|before|previous\w*|former\w*|ex)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _topics(record: MemoryRecord) -> frozenset[str]:
    found = record.metadata.get("topics")
    if isinstance(found, list):
        return frozenset(t for t in found if isinstance(t, str))
    return topics_of(record.text)


def _fragment(text: str) -> bool:
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    return len(words) < 3 and cjk < 6


def _shape(record: MemoryRecord, about: set[str], query: str) -> float:
    factor = 1.0
    tags = set(record.tags)
    if "hypothetical" in tags or "plan" in tags:
        factor *= 1.0 if _ASKS_TEMPORARY.search(query) else _SHAPE["hypothetical"]
    if "temporary" in tags:
        factor *= 1.0 if _ASKS_TEMPORARY.search(query) else _SHAPE["temporary"]
    if "ended" in tags and not _ASKS_ENDED.search(query):
        factor *= _SHAPE["ended"]
    if record.owner is Owner.AGENT:
        factor *= _SHAPE["agent"]
    if _fragment(record.text):
        factor *= _SHAPE["fragment"]
    if about and record.subject.lower() not in about:
        factor *= _SHAPE["other"]
    return factor


def rerank_hits(
    query: str,
    fused: Sequence[tuple[str, float]],
    records: Mapping[str, MemoryRecord],
    about: set[str],
) -> list[tuple[str, float]]:
    """``fused`` (version id, score) reordered by topic, recency and shape; a permutation of its input."""
    wanted = topics_of(query)
    on_topic = [vid for vid, _ in fused if vid in records and wanted & _topics(records[vid])]
    newest = sorted(on_topic, key=lambda vid: records[vid].valid_from)
    recency = {vid: (i + 1) / len(newest) for i, vid in enumerate(newest)}
    scored = []
    for vid, score in fused:
        record = records.get(vid)
        if record is None:
            scored.append((vid, score))
            continue
        factor = _shape(record, about, query)
        if vid in recency:
            shared = len(wanted & _topics(record)) / len(wanted)
            factor *= (1.0 + (_TOPIC - 1.0) * shared) * (1.0 + _RECENT * recency[vid])
        scored.append((vid, score * factor))
    order = {vid: i for i, (vid, _) in enumerate(fused)}
    return sorted(scored, key=lambda item: (-item[1], order[item[0]]))
