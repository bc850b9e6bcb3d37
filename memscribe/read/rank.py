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
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from memscribe.core.records import MemoryRecord, Owner
from memscribe.core.text import STOPWORDS
from memscribe.read.topics import topics_of

__all__ = ["forget_traits", "rerank_hits"]

_TOPIC = 1.6
_RECENT = 0.6  # among memories on the query's topic
_RECENT_ANY = 0.08  # among all candidates: a tie goes to the newer statement
_DATED = 1.5  # "When did ...?" prefers a memory that holds a date
_TYPED = 1.4  # "How much ...?" a number, "Which company ...?" a name
_SHAPE = {"hypothetical": 0.55, "temporary": 0.55, "ended": 0.7, "agent": 0.6, "fragment": 0.75, "other": 0.5,
          "shared": 0.85, "unnamed": 0.75}  # fmt: skip
# Queries about a stay, a trip or a plan want the memories the shape penalty would push down.
_ASKS_TEMPORARY = re.compile(
    r"\b(?:trip|travel\w*|visit\w*|staying|stay|this (?:quarter|month|week|summer)|right now|vacation|holiday"
    r"|business|plan\w*|going to|will|next)\b|出差|旅|计划|打算|Geschäftsreise|gerade|viaje|voyage",
    re.IGNORECASE,
)
_ASKS_ENDED = re.compile(
    r"\b(?:happened|still|used to|before|previous\w*|former\w*|ex|die|died|pass(?:ed)? away|quit|stop(?:ped)?|left"
    r"|leave|end(?:ed)?|give up|gave up)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SPEAKER_TOO = re.compile(r"\b(?:I|I'm|I've|me|we|us)\b|我(?!的)")
_ASKS_WHEN = re.compile(
    r"^\s*(?:when|what (?:day|date|year|month|time)|which (?:day|date|year)|how long ago|cu[aá]ndo|quand|wann"
    r"|quando)\b|什么时候|哪天|哪一天|几号|几月",
    re.IGNORECASE,
)
_ASKS_NUMBER = re.compile(
    r"^\s*(?:how (?:much|many|old|long|far|often|heavy)|what (?:is|was|'s) (?:\w+'s )?(?:\w+ )?(?:salary|rent"
    r"|weight|price|rate|age|score|time|level|grade|dose|pace))\b|多少|几|cu[aá]nto|combien|wie viel|quanto",
    re.IGNORECASE,
)
_ASKS_NAME = re.compile(
    r"^\s*(?:who|where|which|what (?:is|was) the name|what(?:'s| is) (?:\w+'s )?(?:\w+ )?name|what (?:company"
    r"|city|school|band|show|restaurant|car|phone|app|breed))\b|哪|谁|叫什么|d[oó]nde|qui|où|wo|wer|onde|qual",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z][a-z]+|[A-Z]{2,5})\b")
_CJK = re.compile(r"[\u3400-\u9fff]")
_HAS_DATE = re.compile(
    r"\b(?:\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"|(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}"
    r"|\d{4}-\d{2}-\d{2})\b|\d+月\d+",
)


def _topics(record: MemoryRecord) -> frozenset[str]:
    found = record.metadata.get("topics")
    if isinstance(found, list):
        return frozenset(t for t in found if isinstance(t, str))
    return _traits(record)[0]


# What the rerank reads from a memory's text (its topics, whether it is a fragment), computed once per version:
# a version's text never changes, and a writer's candidate searches rerank the same memories over and over.
# Keyed by version id and checked against a hash of the text, so a reused id never gets another text's traits;
# the entries hold no text, and an erasure empties the cache all the same (``forget_traits``).
_TRAITS_HELD = 32_768
_traits_cache: OrderedDict[str, tuple[int, frozenset[str], bool]] = OrderedDict()
_traits_lock = threading.Lock()


def _traits(record: MemoryRecord) -> tuple[frozenset[str], bool]:
    key, check = record.version_id, hash(record.text)
    with _traits_lock:
        held = _traits_cache.get(key)
        if held is not None and held[0] == check:
            _traits_cache.move_to_end(key)
            return held[1], held[2]
    topics, fragment = topics_of(record.text), _fragment(record.text)
    with _traits_lock:
        _traits_cache[key] = (check, topics, fragment)
        if len(_traits_cache) > _TRAITS_HELD:
            _traits_cache.popitem(last=False)
    return topics, fragment


def forget_traits() -> None:
    """Empty the per-version cache of what the rerank read from memories' texts (called on every erasure)."""
    with _traits_lock:
        _traits_cache.clear()


# Greetings, thanks and reactions: words that carry no fact ("Hey Mel, thanks so much, that's awesome!").
_FILLER_WORDS = """hi hey hello hiya yo thanks thank bye goodbye wow great awesome cool nice amazing congrats
    congratulations glad happy sure yeah yes yep ok okay lol haha good love see soon talk later
    take care sounds sound really
    totally absolutely agree definitely exactly right true oh ah aw omg hope day chat catch fun well lovely
    beautiful gorgeous sweet super incredible wonderful fantastic proud"""
_FILLER = frozenset(_FILLER_WORDS.split())
_NAME_WORD = re.compile(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z][a-z]+)\b")


def _fragment(text: str) -> bool:
    """Fewer than three words that say something: no stopwords, fillers or the names a turn addresses."""
    names = {m.group(0).lower() for m in _NAME_WORD.finditer(text)}
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and w not in _FILLER and w not in names]
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    return len(words) < 3 and cjk < 6


def _answer_type(query: str, record: MemoryRecord, when: bool) -> float:
    """A memory that holds what kind of thing the question asks for: a date, a number, a name."""
    if when:
        return _DATED if "event_date" in record.metadata or _HAS_DATE.search(record.text) else 1.0
    if _ASKS_NUMBER.search(query):
        return _TYPED if _NUMBER.search(record.text) else 1.0
    if _ASKS_NAME.search(query):
        return _TYPED if _PROPER.search(record.text) or _CJK.search(record.text) else 1.0
    return 1.0


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
    if _traits(record)[1]:
        factor *= _SHAPE["fragment"]
    if about and record.subject.lower() not in about:
        # "my friend dragged me to a chess club": someone else's memory that the speaker is part of
        factor *= _SHAPE["shared"] if _SPEAKER_TOO.search(record.text) else _SHAPE["other"]
    return factor


def _relevance(
    fused: Sequence[tuple[str, float]], vector: Mapping[str, float], keyword: Mapping[str, float]
) -> dict[str, float]:
    """How well each hit matches the query, from its vector and keyword scores scaled to the pool's best:
    fused ranks alone are nearly flat in a small store, so they cannot carry the preferences below."""
    vmax = max((vector[v] for v, _ in fused if v in vector), default=0.0)
    kmax = max((keyword[v] for v, _ in fused if v in keyword), default=0.0)
    out = {}
    for vid, _ in fused:
        v = vector.get(vid, 0.0) / vmax if vmax > 0 else 0.0
        k = keyword.get(vid, 0.0) / kmax if kmax > 0 else 0.0
        out[vid] = 0.1 + 0.6 * max(v, 0.0) + 0.3 * max(k, 0.0)
    return out


def rerank_hits(
    query: str,
    fused: Sequence[tuple[str, float]],
    records: Mapping[str, MemoryRecord],
    about: set[str],
    vector: Mapping[str, float] | None = None,
    keyword: Mapping[str, float] | None = None,
    *,
    named: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[tuple[str, float]]:
    """``fused`` (version id, score) reordered by topic, recency and shape; a permutation of it.

    The preferences multiply the fused (reciprocal-rank) score. When ``vector`` and ``keyword`` hold every
    candidate's scores (the caller saw every match), they multiply each hit's relevance from those scores
    instead: in a small store every memory is in both lists and ranks alone barely separate them."""
    if vector is not None or keyword is not None:
        relevance = _relevance(fused, vector or {}, keyword or {})
        fused = [(vid, relevance[vid]) for vid, _ in fused]
    wanted = topics_of(query)
    # A stay is on no topic unless the query asks about stays: "renting an airbnb in Ribeira" says nothing of home.
    passing = set() if _ASKS_TEMPORARY.search(query) else {vid for vid, _ in fused if _passing(records.get(vid))}
    on_topic = [vid for vid, _ in fused if vid in records and vid not in passing and wanted & _topics(records[vid])]
    # The newest statement on the topic is preferred among those about whom the query asks: a sister's move
    # is newer than the user's, and says nothing about where the user lives now.
    theirs = [vid for vid in on_topic if not about or records[vid].subject.lower() in about]
    newest = sorted(theirs, key=lambda vid: records[vid].valid_from)
    recency = {vid: (i + 1) / len(newest) for i, vid in enumerate(newest)}
    on_topic_set = set(on_topic)
    every = sorted((vid for vid, _ in fused if vid in records), key=lambda vid: records[vid].valid_from)
    age = {vid: (i + 1) / len(every) for i, vid in enumerate(every)}
    when = _ASKS_WHEN.search(query) is not None
    scored = []
    for vid, score in fused:
        record = records.get(vid)
        if record is None:
            scored.append((vid, score))
            continue
        factor = _shape(record, about, query) * (1.0 + _RECENT_ANY * age[vid]) * _answer_type(query, record, when)
        if named and not _is_about(record.subject.lower(), named):
            factor *= _SHAPE["unnamed"]
        if vid in on_topic_set:
            shared = len(wanted & _topics(record)) / len(wanted)
            factor *= (1.0 + (_TOPIC - 1.0) * shared) * (1.0 + _RECENT * recency.get(vid, 0.0))
        scored.append((vid, score * factor))
    order = {vid: i for i, (vid, _) in enumerate(fused)}
    return sorted(scored, key=lambda item: (-item[1], order[item[0]]))


def _passing(record: MemoryRecord | None) -> bool:
    return record is not None and "temporary" in record.tags


def _is_about(subject: str, named: set[str]) -> bool:
    """Whether ``subject`` is one of ``named`` or someone of theirs ("melanie's husband")."""
    return subject in named or subject.partition("'s ")[0] in named


_SAME_SOURCE = 0.5


def spread_sources(
    ranked: Sequence[tuple[str, float]], records: Mapping[str, MemoryRecord]
) -> list[tuple[str, float]]:
    """``ranked`` reordered so that each further memory drawn from the same message(s) as a better hit (a
    fact beside the statement it came from, the sentences of one long turn) scores half of what it would:
    the top of a result list then covers more of what was said. A permutation of ``ranked``."""
    seen: dict[tuple[str | None, tuple[int, ...]], int] = {}
    scored = []
    for vid, score in ranked:
        record = records.get(vid)
        if record is None or record.episode_id is None:
            scored.append((vid, score))
            continue
        key = (record.episode_id, record.message_indices)
        scored.append((vid, score * _SAME_SOURCE ** seen.get(key, 0)))
        seen[key] = seen.get(key, 0) + 1
    order = {vid: i for i, (vid, _) in enumerate(ranked)}
    return sorted(scored, key=lambda item: (-item[1], order[item[0]]))
