"""Which topics a statement's change or end cue bears on: a cue replaces a value only where it is said of it.

A statement that names a single-valued topic and carries a change cue somewhere is not yet a change of that
topic: "I'm working on a new project" says nothing new about a job, "it made me want to work even harder"
makes nobody anything, and "I went hiking in my town, I think I'm an expert hiker now" moves no one. A cue
bears on a topic when a cue word of that topic stands in the same sentence within a few words of it
("promoted to Director", "switched my major", "the new house"); "new" only bears on the word it comes before
("my new manger at Stripe", not "working on a new project"). Bracketed attachments (a shared photo's caption)
describe a picture, not the speaker, and are left out. Text in Chinese, Japanese or Korean is not split into
words here, so every cue in it bears on every topic it names, as do values in a telling shape (a sum, a dose).
"""

from __future__ import annotations

import re

from memscribe.read.topics import has_cjk, shaped_topics, topic_spans, topics_of
from memscribe.write.lite.cues import change_cues, end_cues
from memscribe.write.lite.lazy import lazy

__all__ = ["changed_topics", "stated_topics"]

_ATTACHMENT = lazy(r"\[[^\]]*\]")
_SENTENCE = lazy(r"[.!?;:]+(?=\s|$)|\s[—–-]+\s|\n")
_WORDS = lazy(r"[^\W_]+(?:['’][^\W_]+)*")
_REACH = 5  # words between a cue and the topic word it bears on
_NEW_REACH = 3  # "new" bears on a word this close after it: "the new house", "new custody schedule"


def stated_topics(text: str) -> frozenset[str]:
    """The topics ``text`` names outside bracketed attachments."""
    return topics_of(_ATTACHMENT.sub(" ", text))


def changed_topics(said: str, topics: set[str] | frozenset[str]) -> set[str]:
    """Those of ``topics`` that a change or end cue in ``said`` bears on (see the module docstring)."""
    plain = _ATTACHMENT.sub(" ", said)
    if has_cjk(plain):
        return set(topics)
    found = set(topics) & shaped_topics(plain)
    for sentence in _SENTENCE.split(plain):
        spans = [(s, e, t & topics) for s, e, t in topic_spans(sentence) if t & topics]
        if not spans:
            continue
        for cue in [*change_cues(sentence), *end_cues(sentence)]:
            for start, end, named in spans:
                if not named <= found and _bears(sentence, cue, start, end):
                    found |= named
    return found


def _bears(sentence: str, cue: re.Match[str], start: int, end: int) -> bool:
    """Whether ``cue`` bears on the topic word at ``start:end`` of ``sentence``."""
    if start < cue.end() and cue.start() < end:  # the cue is the topic word: "moved", "promoted", "hired"
        return True
    if cue.group(0).lower() in ("new", "newly"):
        return cue.end() <= start and len(_WORDS.findall(sentence[cue.end() : start])) < _NEW_REACH
    between = sentence[cue.end() : start] if cue.end() <= start else sentence[end : cue.start()]
    return len(_WORDS.findall(between)) < _REACH
