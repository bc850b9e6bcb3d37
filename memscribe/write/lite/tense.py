"""Coarse tense of a statement and verb lemmas: enough to date an event and to match a plan to its outcome."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import IRREGULAR_PAST

__all__ = ["Tense", "detect_tense", "lemmas"]

_FUTURE = lazy(
    r"\b(?:will|'ll|shall|going to|gonna|planning|plan to|plans to|about to|tomorrow|next|upcoming|soon"
    r"|intend|intends|hope to|hoping to|want to|wants to|would like to|'d like to|looking forward|in \d+ \w+"
    r"|in (?:a|an|one|two|three|four|five|six|a few|a couple of) (?:day|week|month|year)s?)\b",
    re.IGNORECASE,
)
_PAST_WORDS = lazy(r"\b(?:ago|yesterday|last|used to|did|was|were|had|born|arrived|passed away|died)\b", re.IGNORECASE)
# "-ed" right after a subject is a past verb; after "am/is" it is usually an adjective ("I'm excited").
_PAST_ED = lazy(
    r"\b(?:(?i:i|we|he|she|they|you)|[A-Z][a-z]+)\s+(?:(?:just|finally|also|recently|already|actually|really|"
    r"then|first|once|even|never)\s+)?[a-z]{2,}(?:ed)\b",
)
_IRREGULAR = lazy(r"\b(?:" + "|".join(sorted(IRREGULAR_PAST, key=len, reverse=True)) + r")\b")
_AMBIGUOUS_IRREGULAR = frozenset({"read", "put", "set", "cut", "hurt", "let", "quit", "bit"})


@dataclass(frozen=True)
class Tense:
    """Whether a statement talks about the past, the future, both or neither (present)."""

    past: bool
    future: bool


def detect_tense(text: str) -> Tense:
    """A coarse reading from marker words; good enough to pick a year for "in April"."""
    future = _FUTURE.search(text) is not None
    past = _PAST_WORDS.search(text) is not None or _PAST_ED.search(text) is not None
    if not past:
        past = any(m.group(0) not in _AMBIGUOUS_IRREGULAR for m in _IRREGULAR.finditer(text.lower()))
    return Tense(past=past, future=future)


def lemmas(word: str) -> frozenset[str]:
    """Possible base forms of a verb ("adopted" → adopt, "moved" → move, "stopped" → stop)."""
    word = word.lower()
    if word in IRREGULAR_PAST:
        return frozenset({IRREGULAR_PAST[word], word})
    forms = {word}
    if word.endswith("ied") and len(word) > 4:
        forms.add(word[:-3] + "y")
    elif word.endswith("ed") and len(word) > 3:
        stem = word[:-2]
        forms.update({stem, word[:-1]})
        if len(stem) > 2 and stem[-1] == stem[-2]:
            forms.add(stem[:-1])
    elif word.endswith("ing") and len(word) > 4:
        stem = word[:-3]
        forms.update({stem, stem + "e"})
        if len(stem) > 2 and stem[-1] == stem[-2]:
            forms.add(stem[:-1])
    elif word.endswith("ies") and len(word) > 4:
        forms.add(word[:-3] + "y")
    elif word.endswith("es") and len(word) > 3:
        forms.update({word[:-2], word[:-1]})
    elif word.endswith("s") and len(word) > 3:
        forms.add(word[:-1])
    return frozenset(forms)
