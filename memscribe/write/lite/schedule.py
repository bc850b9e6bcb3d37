"""A weekday or a time of day moved for one activity of several: "pottery moved to wednesdays" after "my week:
pottery class tuesdays, climbing thursdays", "gym is at 7pm now" after "I go to the gym at 6am".

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

_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
# A time of day stands where a weekday does: "runs moved to the evening", "gym is at 7pm now".
_TIME = r"(?:morning|evening|afternoon|night|lunchtime|noon)s?|\d{1,2}(?::\d{2})?\s?(?:am|pm)"
_WHEN = r"(?:" + _DAY + "|" + _TIME + ")"
_KIND = r"(?:\s+(?:class|classes|lesson|lessons|practice|training|night|club|session|sessions))?"
_MOVED = lazy(
    r"\b(?P<what>[a-z]{3,})" + _KIND + r"\s+(?:is\s+|are\s+|has\s+|have\s+|got\s+|was\s+|just\s+|now\s+)*"
    r"(?:moved|moving|switched|changed|shifted|pushed|bumped)\s+(?:over\s+)?to\s+(?:on\s+|the\s+)?"
    r"(?P<day>" + _WHEN + r")\b"
    r"|\b(?:moved|switched|changed|shifted|pushed)\s+(?:my|our|the)\s+(?P<what3>[a-z]{3,})" + _KIND
    + r"\s+to\s+(?:on\s+|the\s+)?(?P<day3>" + _WHEN + r")\b"
    r"|\b(?P<what2>[a-z]{3,})" + _KIND + r"\s+(?:(?:is|are)\s+)?(?:now\s+)?(?:on|at|in the)\s+(?P<day2>" + _WHEN
    + r")\s+now\b",
    re.IGNORECASE,
)
_ANY_DAY = lazy(r"\b(?P<day>" + _WHEN + r")\b", re.IGNORECASE)
_PIECE = re.compile(r"(?:(?<!\s)\s+)?(?:[,;:]|\band\b|\.(?=\s|$))\s*", re.IGNORECASE)
_NOT_ACTIVITIES = frozenset({"dentist", "appointment", "meeting", "everything", "it", "that", "this", "mine"})


def moved_days(text: str) -> list[tuple[str, str]]:
    """``(activity stem, new weekday)`` for each activity ``text`` says moved to another weekday."""
    out = []
    for m in _MOVED.finditer(text):
        what = (m.group("what") or m.group("what2") or m.group("what3")).lower()
        day = _when(m.group("day") or m.group("day2") or m.group("day3"))
        if what not in _NOT_ACTIVITIES and what not in ("class", "lesson", "lessons", "classes"):
            out.append((stem(what), day))
    return out


def _when(said: str) -> str:
    """A weekday or a time of day as one spelling: "Wednesdays" → "wednesday", "7 pm" → "7pm"."""
    return said.lower().replace(" ", "").removesuffix("s")


def without_old_day(text: str, activity: str, day: str) -> str | None:
    """``text`` without the clause that puts ``activity`` on another weekday than ``day``; ``""`` when that
    clause is all of it; None when no clause of ``text`` does."""
    pieces = [p for p in _PIECE.split(text) if p.strip()]
    hits = [
        p
        for p in pieces
        if activity in content_tokens(p)
        and (days := {_when(d) for d in _ANY_DAY.findall(p)})
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
