"""Values that name a step on a ladder: exam levels (JLPT N3, CEFR B1, HSK 4), the year of a course, a school
grade, a class year (sophomore, junior), a race time.

A topic such as languages or school takes many values at once, so a new statement on it adds rather than
replaces. A step on a ladder is different: one person holds one JLPT level, one year of study, one grade at a
time, and a newer statement that names a step of the same ladder with another value says the older step no
longer holds, with or without a change cue ("N3 results came in, PASSED" after "passed JLPT N4"). Steps are
read by their shape only; what the ladder is about comes from the shape, never from a list of subjects.
"""

from __future__ import annotations

import re

from memscribe.write.lite.lazy import LazyPattern, lazy
from memscribe.write.lite.lexicon import LANGUAGES

__all__ = ["ladder_steps", "stepped_past"]

_ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
             "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10", "eleventh": "11", "twelfth": "12"}  # fmt: skip
_ORDINAL = r"(?:(\d{1,2})(?:st|nd|rd|th)|(" + "|".join(_ORDINALS) + r"))"
_LADDERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("jlpt", re.compile(r"\b(?-i:N)([1-5])\b")),
    ("cefr", re.compile(r"\b(?-i:([ABC][12]))\b")),
    ("hsk", re.compile(r"\bHSK\s?([1-9])\b", re.IGNORECASE)),
    ("year", re.compile(rf"\b{_ORDINAL}[ -]year\b|\byear (\d)\b(?! old)", re.IGNORECASE)),
    ("grade", re.compile(rf"\b{_ORDINAL} grade\b|\bgrade (\d{{1,2}})\b", re.IGNORECASE)),
    ("race time", re.compile(r"(?<![\d:])(\d{1,2}:\d{2}:\d{2})(?![\d:])")),
    # "junior" and "senior" name a class year as a noun ("a junior at UCLA", "senior year"), not before the noun
    # they qualify ("a senior data analyst", "a junior analyst")
    (
        "class year",
        re.compile(
            r"\b(freshman|sophomore)\b|\b(junior|senior)\b(?=\s+year\b|\s*(?:$|[,.!?;:)(]|[^\w\s])"
            r"|\s+(?:at|in|of|from|this|now|next|and|so|but|lol|haha|omg|already)\b)",
            re.IGNORECASE,
        ),
    ),
)


# A level typed in lowercase ("passed jlpt n4", "my german is a2") counts where its ladder is named.
_LOWERCASE: tuple[tuple[str, LazyPattern, LazyPattern], ...] = (
    ("jlpt", lazy(r"\bjlpt\b|日本語能力試験", re.IGNORECASE), lazy(r"\bn([1-5])\b")),
    ("cefr", lazy(r"\b(?:cefr|level|" + "|".join(sorted(LANGUAGES)) + r")\b", re.IGNORECASE), lazy(r"\b([abc][12])\b")),
)


def ladder_steps(text: str, context: str = "") -> dict[str, frozenset[str]]:
    """Ladder → the steps ``text`` names on it ("2nd year nursing student" → {"year": {"2"}}); a level typed in
    lowercase counts where ``text`` or its ``context`` (an older statement) names its ladder ("n3 results came
    in, passed" after "passed jlpt n4")."""
    found: dict[str, set[str]] = {}
    for ladder, named, lowercase in _LOWERCASE:
        if named.search(text) or named.search(context):
            found.setdefault(ladder, set()).update(m.group(1).upper() for m in lowercase.finditer(text))
    for ladder, pattern in _LADDERS:
        for match in pattern.finditer(text):
            value = next(g for g in match.groups() if g)
            found.setdefault(ladder, set()).add(_ORDINALS.get(value.lower(), value.upper()))
    return {ladder: frozenset(steps) for ladder, steps in found.items() if steps}


def stepped_past(new: dict[str, frozenset[str]], old_text: str) -> list[str]:
    """The ladders on which ``old_text`` names a step that ``new`` (a newer statement's steps) leaves behind."""
    old = ladder_steps(old_text)
    return [ladder for ladder, steps in new.items() if old.get(ladder, frozenset()) - steps]
