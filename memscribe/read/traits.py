"""What the read path reads from a memory's own text: its topics, whether it is a fragment, whether it holds a
date, a number or a name, whether the speaker is in it. Computed once per memory version and kept: a version's
text never changes, and a writer's candidate searches rerank the same stored memories in every add.

The cache is keyed by version id and checked against a hash of the text, so a reused id never gets another
text's traits. Entries hold no text; an erasure (``forget``, ``purge``) empties the cache all the same.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import NamedTuple

from memscribe.core.records import MemoryRecord
from memscribe.core.text import STOPWORDS
from memscribe.read.topics import NOT_PLACES, forget_topics, topics_of

__all__ = ["Traits", "forget_traits", "traits_of"]

_HELD = 16_384  # versions kept (about 5 MB); the least recently used go first

# Greetings, thanks and reactions: words that carry no fact ("Hey Mel, thanks so much, that's awesome!").
_FILLER_WORDS = """hi hey hello hiya yo thanks thank bye goodbye wow great awesome cool nice amazing congrats
    congratulations glad happy sure yeah yes yep ok okay lol haha good love see soon talk later
    take care sounds sound really
    totally absolutely agree definitely exactly right true oh ah aw omg hope day chat catch fun well lovely
    beautiful gorgeous sweet super incredible wonderful fantastic proud"""
_FILLER = frozenset(_FILLER_WORDS.split())
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NAME_WORD = re.compile(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z][a-z]+)\b")
# A number in digits or in words ("two kids now"); "one" says "a" as often as a count, so it is left out.
_NUMBER = re.compile(r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen)\b", re.IGNORECASE)
_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z][a-z]+|[A-Z]{2,5})\b")
_CJK = re.compile(r"[\u3400-\u9fff]")
_PLACED = re.compile(r"\b(?:in|at|from|near)\s+([a-z]{3,})\b(?!')")
_SPEAKER_TOO = re.compile(r"\b(?:I|I'm|I've|me|we|us)\b|我(?!的)")
# A date or a year: its digits say when, not how many ("on 1 November 2023", "in 2023", "2023-11-01").
_MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_DATE_DIGITS = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}(?: \d{{4}})?\b"
    rf"|\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b(?:19|20)\d{2}\b|\d{4}年|\d{1,2}月\d{1,2}[日号]?",
)
_WEEKDAY = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
    r"|lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo|Montag|Dienstag|Mittwoch|Donnerstag"
    r"|Freitag|Samstag|Sonntag|segunda|terça|quarta|quinta|sexta)s?\b|周[一二三四五六日天]|星期[一二三四五六日天]",
    re.IGNORECASE,
)
_CALENDAR = re.compile(rf"{_MONTH}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?")
_HAS_DATE = re.compile(rf"\b(?:\d{{1,2}} {_MONTH}|{_MONTH} \d{{1,2}}|\d{{4}}-\d{{2}}-\d{{2}})\b|\d+月\d+")

# A sentence that asks the assistant for something rather than saying anything of the speaker ("help me write
# the guest email", "need a fantasy football team name", "is a hot dog a sandwich?").
_ASK = re.compile(
    r"^(?:(?:ok|okay|so|hey|hi|hii+|also|and|btw|quick question|random question|settle this|ok settle this)"
    r"[\s,:!.]+)*(?:help me|can you|could you|would you|can u|pls|please|need (?:a|an|some|ideas|help|advice|tips)"
    r"|give me|write|draft|suggest|recommend|explain|tell me|show me|make me|what'?s a good|whats a good"
    r"|any (?:tips|ideas|recs|recommendations|advice)|ideas for|tips for|how (?:do|can|should|would) (?:i|u|you|we)"
    r"|how to|is (?:a|an|it|there)|should (?:i|we)|do (?:i|u|you)|what (?:should|can) (?:i|we))\b"
    # "推荐几个找设计灵感的网站吧", "帮我想想周末干点啥": asks in Chinese open with the verb of the request.
    r"|^(?:推荐|帮我|帮忙|麻烦|请你?|给我|有没有|有什么|能不能|可不可以|你说|求)",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"^(?:(?:ok|okay|so|hey|hi|also|and|btw|but)[\s,:!.]+)*(?:what|whats|what's|how|where|when|why|who|which|is|are"
    r"|am|do|does|did|can|could|should|would|will|have|has|any)\b|吗|呢|什么|怎么|哪|谁|多少|啥|咋",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+")


class Traits(NamedTuple):
    topics: frozenset[str]  # topics_of(text)
    fragment: bool  # fewer than three words that say something
    dated: bool  # names a day
    numeric: bool  # holds a number that is not part of a date
    named: bool  # holds a proper name (or CJK text)
    speaker_too: bool  # the speaker is in it ("my friend dragged me to a chess club")
    asks: bool = False  # every sentence asks the assistant for something, none says anything of the speaker
    weekday: bool = False  # names a day of the week ("tuesday evenings", "le mercredi", "周三")


def _asks(text: str) -> bool:
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s]
    return bool(sentences) and all(_ASK.search(s) or (s.rstrip().endswith(("?", "？")) and _QUESTION.search(s))
                                   for s in sentences)  # fmt: skip


# A code that is a value in itself: a level, a grade, a time ("passed B1!!!", "JLPT N4", "got a 2:1").
_CODE = re.compile(r"\b(?:[A-Za-z]{1,3}\d{1,2}|\d{1,2}:\d{1,2})\b")
# What a clause with a verb or a speaker has: a form of be/have/do/go, a pronoun, a contraction, an -ed or -ing.
_VERBISH = re.compile(
    r"\b(?:am|is|are|was|were|be|been|have|has|had|do|does|did|got|get|go|went|i|we|my|our)\b|'(?:s|re|m|ve|d|ll)\b"
    r"|\w(?:ed|ing)\b",
    re.IGNORECASE,
)


def _fragment(text: str) -> bool:
    """Fewer than three words that say something (no stopwords, fillers or the names a turn addresses), or up to
    four with no verb and no speaker ("broke college kid edition", the tail of a question); never a code that is
    a value in itself: "passed B1!!!" says as much as a sentence."""
    if _CODE.search(text) is not None:
        return False
    names = {m.group(0).lower() for m in _NAME_WORD.finditer(text)}
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and w not in _FILLER and w not in names]
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    if cjk:
        return len(words) < 3 and cjk < 6
    return len(words) < 3 or (len(words) <= 4 and _VERBISH.search(text) is None)


def _named(text: str) -> bool:
    """Whether ``text`` holds a proper name: a month or a weekday is a date's, not a name ("in September"). In
    text typed without capitals, a word after "in", "at", "from" or "near" that is no common word stands in for
    one ("the new place in ballard")."""
    if _CJK.search(text):
        return True
    proper = _PROPER.findall(text)
    if proper:
        return any(not _CALENDAR.fullmatch(w) for w in proper)
    return any(w not in STOPWORDS and w not in NOT_PLACES for w in _PLACED.findall(text))


def _read(text: str) -> Traits:
    named = _named(text)
    return Traits(topics_of(text), _fragment(text), _HAS_DATE.search(text) is not None,
                  _NUMBER.search(_DATE_DIGITS.sub(" ", text)) is not None, named, _SPEAKER_TOO.search(text) is not None,
                  _asks(text), _WEEKDAY.search(text) is not None)  # fmt: skip


_cache: OrderedDict[str, tuple[int, Traits]] = OrderedDict()
_shared: dict[Traits, Traits] = {}  # one copy of each distinct value: most memories share a handful
_lock = threading.Lock()


def traits_of(record: MemoryRecord) -> Traits:
    """The traits of ``record``'s text, read once per version."""
    key, check = record.version_id, hash(record.text)
    with _lock:
        held = _cache.get(key)
        if held is not None and held[0] == check:
            _cache.move_to_end(key)
            return held[1]
    traits = _read(record.text)
    with _lock:
        traits = _shared.setdefault(traits, traits) if len(_shared) < _HELD else traits
        _cache[key] = (check, traits)
        if len(_cache) > _HELD:
            _cache.popitem(last=False)
    return traits


def forget_traits() -> None:
    """Empty the caches of memory texts' traits and topics (on every erasure)."""
    with _lock:
        _cache.clear()
        _shared.clear()
    forget_topics()
