"""A weekday moved for one activity of several: "pottery moved to wednesdays" after "my week: pottery class
tuesdays, climbing thursdays".

A routine is often said as one list of activities and days, so the older statement is about many things at once.
When a newer statement moves one activity to another weekday, only that activity's clause of the older
statement stops holding: it is left out of the older memory's next version, and the other activities stay
current. When the clause is all the older statement says, the statement closes.
"""

from __future__ import annotations

import re

from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.matching import content_tokens, stem

__all__ = ["moved_days", "without_old_day"]

_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MOVED = lazy(
    r"\b(?P<what>[a-z]{3,})(?:\s+(?:class|classes|lesson|lessons|practice|training|night|club|session|sessions))?"
    r"\s+(?:is\s+|are\s+|has\s+|have\s+|got\s+|was\s+|just\s+|now\s+)*(?:moved|moving|switched|changed|shifted"
    r"|pushed|bumped)\s+(?:over\s+)?to\s+(?:on\s+)?(?P<day>" + _DAY + r")s?\b"
    r"|\b(?P<what2>[a-z]{3,})(?:\s+(?:class|classes|lesson|lessons|practice|training|night|club|session))?"
    r"\s+(?:is|are)\s+(?:now\s+)?on\s+(?P<day2>" + _DAY + r")s?\s+now\b",
    re.IGNORECASE,
)
_ANY_DAY = lazy(r"\b(?P<day>" + _DAY + r")s?\b", re.IGNORECASE)
_PIECE = re.compile(r"(?:(?<!\s)\s+)?(?:[,;:]|\band\b|\.(?=\s|$))\s*", re.IGNORECASE)
_NOT_ACTIVITIES = frozenset({"dentist", "appointment", "meeting", "everything", "it", "that", "this", "mine"})


def moved_days(text: str) -> list[tuple[str, str]]:
    """``(activity stem, new weekday)`` for each activity ``text`` says moved to another weekday."""
    out = []
    for m in _MOVED.finditer(text):
        what = (m.group("what") or m.group("what2")).lower()
        day = (m.group("day") or m.group("day2")).lower()
        if what not in _NOT_ACTIVITIES and what not in ("class", "lesson", "lessons", "classes"):
            out.append((stem(what), day))
    return out


def without_old_day(text: str, activity: str, day: str) -> str | None:
    """``text`` without the clause that puts ``activity`` on another weekday than ``day``; ``""`` when that
    clause is all of it; None when no clause of ``text`` does."""
    pieces = [p for p in _PIECE.split(text) if p.strip()]
    hits = [
        p
        for p in pieces
        if activity in content_tokens(p)
        and (days := {d.lower() for d in _ANY_DAY.findall(p)})
        and day not in days
        and len(_ANY_DAY.findall(p)) == 1
    ]
    if len(hits) != 1:
        return None
    rest = [p for p in pieces if p is not hits[0]]
    if not any(_ANY_DAY.search(p) or len(content_tokens(p)) >= 2 for p in rest):
        return ""
    start = text.find(hits[0])
    before, after = text[:start], text[start + len(hits[0]) :]
    after = re.sub(r"^\s*(?:,|;|\band\b)\s*", " ", after, flags=re.IGNORECASE)
    joined = (before.rstrip() + " " + after.lstrip()).strip()
    joined = re.sub(r"\s+([,.;!?])", r"\1", joined)
    joined = re.sub(r"([:,;])\s*,", r"\1", joined)
    return re.sub(r"\s{2,}", " ", joined)
