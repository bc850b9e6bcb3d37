"""Rerank fused hits so the memory that answers comes first.

Fusion by rank alone cannot tell an answer from a near miss in a small store: every memory of the user is in
both candidate lists. Three preferences reorder the fused pool, each a multiplier on the fused score:

* **topic**: a memory on the query's topic ("Where does Ana live?" → home) beats one that only shares words;
* **recency**: among memories on the query's topic, the newest is preferred, so the latest of several
  near-equivalent statements wins;
* **shape**: fragments and filler, asks of the assistant, statements marked hypothetical, temporary or ended
  (when the query is on their topic), someone else's memories and the assistant's words rank below a plain
  statement of the user's own; a plan already carried out ranks below open plans when the question asks what
  is planned.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import NamedTuple

from memscribe.core.records import MemoryRecord, Owner
from memscribe.read.topics import topics_of
from memscribe.read.traits import Traits, traits_of

__all__ = ["rerank_hits"]

_TOPIC = 1.6
_RECENT = 0.6  # among memories on the query's topic
_STAYED = frozenset({"home"})  # the topics a stay says nothing of, unless asked about stays
_OCCUPATION_SHARE = 0.75  # the share of an occupation question's topics that a job-title fact answers
_RECENT_ANY = 0.08  # among all candidates: a tie goes to the newer statement
_DATED = 1.5  # "When did ...?" prefers a memory that holds a date
_TYPED = 1.4  # "How much ...?" a number, "Which company ...?" a name
_SHAPE = {"asks": 0.6, "hypothetical": 0.35, "temporary": 0.55, "ended": 0.7, "agent": 0.6, "fragment": 0.75,
          "other": 0.5, "shared": 0.85, "unnamed": 0.75, "superseded": 0.7}  # fmt: skip
# Queries about a stay, a trip, a plan, a wish or a goal want the memories the shape penalty would push down.
_ASKS_TEMPORARY = re.compile(
    r"\b(?:trip|travel\w*|visit\w*|staying|stay|this (?:quarter|month|week|summer)|right now|vacation|holiday"
    r"|business|plan\w*|going to|will|next|excited|looking forward|can'?t wait|hop(?:e|es|ing) to|wants? to"
    r"|would like to|interested in|dreams?|goals?|aspir\w*|intend\w*|thinking (?:of|about)|consider\w*)\b"
    r"|出差|旅|计划|打算|想|Geschäftsreise|gerade|viaje|voyage",
    re.IGNORECASE,
)
# Queries about what the speaker asked for want the asks the shape penalty would push down.
_ASKS_ASKED = re.compile(r"\b(?:ask\w*|help|advice|recommend\w*|suggest\w*|tips?|ideas?|questions?|need\w*)\b", re.I)
_ASKS_ENDED = re.compile(
    r"\b(?:happened|still|used to|before|previous\w*|former\w*|ex|die|died|pass(?:ed)? away|quit|stop(?:ped)?|left"
    r"|leave|end(?:ed)?|give up|gave up|sold|sell|got rid of|gave away|rehom\w*|broke up)\b",
    re.IGNORECASE,
)
_ASKS_WHEN = re.compile(
    # "What happened to Clover?" asks for an event, which holds its date as much as "When …?" does.
    r"^\s*(?:when|what (?:day|date|year|month|time)|which (?:day|date|year)|how long ago|what happened|cu[aá]ndo"
    r"|quand|wann|quando)\b|什么时候|哪天|哪一天|几号|几月",
    re.IGNORECASE,
)
_ASKS_WEEKDAY = re.compile(r"^\s*(?:which|what) days?\b|星期几|周几|quel jour|qué día|que dia|welche[nm]? Tag", re.I)
_ASKS_NUMBER = re.compile(
    r"^\s*(?:how (?:much|many|old|long|far|often|heavy)|what (?:is|was|'s) (?:\w+'s )?(?:\w+ )?(?:salary|rent"
    r"|weight|price|rate|age|score|time|level|grade|dose|pace)|what (?:grade|level|size|score|dose|number))\b"
    r"|多少|几|cu[aá]nto|combien|wie viel|quanto",
    re.IGNORECASE,
)
_ASKS_NAME = re.compile(
    r"^\s*(?:who|where|which|what (?:is|was) the name|what(?:'s| is) (?:\w+'s )?(?:\w+ )?name|what (?:company"
    r"|city|school|band|show|restaurant|car|phone|app|breed))\b|哪|谁|叫什么|d[oó]nde|qui|où|wo|wer|onde|qual",
    re.IGNORECASE,
)


# A slot fact is on its attribute's topic, whatever words it was said in: "I'm a physio so …" is one's occupation.
_SLOT_TOPICS = {"job_title": frozenset({"role", "occupation"}), "employer": frozenset({"work"}),
                "residence": frozenset({"home"})}  # fmt: skip
# "What does Lorcan do for a living?", "What is Eilidh's job?": the occupation, not what work life is like.
_ASKS_OCCUPATION = re.compile(
    r"\bdo(?:es)? (?:\w+ )?(?:do )?for (?:work|a living)\b|\bwhat (?:is|'s|was) (?:\w+'s |their |his |her )?(?:job"
    r"|occupation|profession|line of work)\b|\bwhat does \w+ do\b|\bwork as\b",
    re.IGNORECASE,
)


# A slot fact that only names who someone is to the speaker: "my wife Leona just handed in her notice at Deloitte"
# is kept as the user's partner fact too, which says nothing of the user's own work (unless the speaker is in it).
_NAMING_SLOTS = {"partner": frozenset({"relationship"})}


def _topics(record: MemoryRecord, traits: Traits) -> frozenset[str]:
    found = record.metadata.get("topics")
    topics = frozenset(t for t in found if isinstance(t, str)) if isinstance(found, list) else traits.topics
    if record.slot is not None:
        attribute = record.slot.rpartition("/")[2]
        if attribute in _NAMING_SLOTS and not traits.speaker_too:  # "my boyfriend Theo and I are moving in"
            return _NAMING_SLOTS[attribute]
        return topics | _SLOT_TOPICS.get(attribute, frozenset())
    return topics


class _Asked(NamedTuple):
    """What the query asks for, read once per rerank."""

    temporary: bool  # about a stay, a trip or a plan
    asked: bool  # about what the speaker asked for
    ended: bool  # about something that stopped
    kind: str | None  # a weekday, a date, a number, a name (or nothing in particular)


def _asks_for(query: str) -> str | None:
    """What kind of thing the question asks for: a day of the week, a date, a number, a name (or nothing in
    particular)."""
    if _ASKS_WEEKDAY.search(query):
        return "weekday"
    if _ASKS_WHEN.search(query):
        return "date"
    if _ASKS_NUMBER.search(query):
        return "number"
    return "name" if _ASKS_NAME.search(query) else None


def _answer_type(kind: str | None, record: MemoryRecord, traits: Traits) -> float:
    """A memory that holds what kind of thing the question asks for."""
    if kind is None:
        return 1.0
    if kind == "date":
        return _DATED if "event_date" in record.metadata or traits.dated else 1.0
    if kind == "weekday":  # "Which day is her swimming lesson?" — "tuesday evenings" (or a day's date)
        return _DATED if traits.weekday or traits.dated else 1.0
    return _TYPED if (traits.numeric if kind == "number" else traits.named) else 1.0


def _shape(record: MemoryRecord, traits: Traits, about: set[str], asked: _Asked, off_topic: bool) -> float:
    """``off_topic``: the query and the memory are on topics, and not on one the same."""
    factor = 1.0
    tags = record.tags
    if ("hypothetical" in tags or "plan" in tags) and not asked.temporary:
        factor *= _SHAPE["hypothetical"]
    if "temporary" in tags and not asked.temporary:
        factor *= _SHAPE["temporary"]
    if "ended" in tags and not asked.ended and not off_topic:
        # What ended is the memory's topic: "I left Genentech … we're in Cambridge now" still says where one lives
        factor *= _SHAPE["ended"]
    if "plan-done" in tags and asked.temporary and not asked.ended and asked.kind != "date":
        # "What am I planning next?": a plan already carried out is no longer one ("When was she planning
        # to …?" still wants it)
        factor *= _SHAPE["ended"]
    if traits.asks and not asked.asked:
        factor *= _SHAPE["asks"]
    if record.owner is Owner.AGENT:
        factor *= _SHAPE["agent"]
    if traits.fragment:
        factor *= _SHAPE["fragment"]
    if about and record.subject.lower() not in about:
        # "my friend dragged me to a chess club": someone else's memory that the speaker is part of; not a fact
        # of theirs ("my sister Dana just moved to seattle so now we can visit each other" is Dana's home)
        shared = traits.speaker_too and not record.slot
        factor *= _SHAPE["shared"] if shared else _SHAPE["other"]
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
    wanted = topics_of(query) | ({"occupation"} if _ASKS_OCCUPATION.search(query) else set())
    asked = _Asked(_ASKS_TEMPORARY.search(query) is not None, _ASKS_ASKED.search(query) is not None,
                   _ASKS_ENDED.search(query) is not None, _asks_for(query))  # fmt: skip
    traits = {vid: traits_of(records[vid]) for vid, _ in fused if vid in records}
    topics = {vid: _topics(records[vid], found) for vid, found in traits.items()}
    # A stay says nothing of home unless the query asks about stays ("renting an airbnb in Ribeira"); it is still on
    # its other topics ("been at St. Luke's since thursday, emergency appendectomy" is a health event).
    away = asked.temporary or not wanted & _STAYED
    passing = set() if away else {vid for vid, _ in fused if _passing(records.get(vid))}
    on_topic = [vid for vid, _ in fused if vid in records and vid not in passing and wanted & topics[vid]]
    # The newest statement on the topic is preferred among those about whom the query asks: a sister's move
    # is newer than the user's, and says nothing about where the user lives now.
    theirs = [vid for vid in on_topic if not about or records[vid].subject.lower() in about]
    recency = _recency({vid: _said_at(records[vid]) for vid in theirs})
    on_topic_set = set(on_topic)
    age = _recency({vid: _said_at(records[vid]) for vid, _ in fused if vid in records})
    scored = []
    for vid, score in fused:
        record = records.get(vid)
        if record is None:
            scored.append((vid, score))
            continue
        own = traits[vid]
        off_topic = bool(wanted) and bool(topics[vid]) and not wanted & topics[vid]
        factor = _shape(record, own, about, asked, off_topic) * (1.0 + _RECENT_ANY * age[vid])
        factor *= _answer_type(asked.kind, record, own)
        if named and not _is_about(record.subject.lower(), named):
            factor *= _SHAPE["unnamed"]
        if "ended" in record.tags and not asked.ended and recency.get(vid, 1.0) < 1.0:
            factor *= _SHAPE["superseded"]  # "sold the civic", then "charging the model 3": the newer says what is
        if vid in on_topic_set:
            shared = len(wanted & topics[vid]) / len(wanted)
            if "occupation" in wanted & topics[vid]:  # the occupation answers most of "what does X do for work?"
                shared = max(shared, _OCCUPATION_SHARE)
            factor *= (1.0 + (_TOPIC - 1.0) * shared) * (1.0 + _RECENT * recency.get(vid, 0.0))
        scored.append((vid, score * factor))
    order = {vid: i for i, (vid, _) in enumerate(fused)}
    return sorted(scored, key=lambda item: (-item[1], order[item[0]]))


def _recency(times: Mapping[str, datetime]) -> dict[str, float]:
    """Each memory's place from oldest to newest, in (0, 1]: memories said at the same time share the middle of
    their places (two statements of one message are equally recent, whichever ranked first)."""
    ordered = sorted(times.values())
    n = len(ordered)
    return {vid: (bisect_left(ordered, when) + bisect_right(ordered, when) + 1) / 2 / n for vid, when in times.items()}


def _said_at(record: MemoryRecord) -> datetime:
    """When the memory was last said as it stands: its start, or the later correction that fixed its value ("I
    said peanuts? I meant tree nuts" is the newest word on allergies, though the allergy dates from before)."""
    corrected = record.metadata.get("corrected_at")
    if isinstance(corrected, str):
        try:
            return max(record.valid_from, datetime.fromisoformat(corrected))
        except (TypeError, ValueError):
            pass
    return record.valid_from


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
