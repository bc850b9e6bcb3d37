"""Relative time expressions resolved against the moment a statement was made.

Rules, not a date library: they are deterministic, fast, and only claim the precision the speaker gave
("last week" stays a week, "two weeks ago" becomes "around <the date>"). Resolved phrases replace the relative ones in
the memory text so the memory keeps its meaning months later.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from memscribe.write.lite.cjk_time import cjk_stay_until, resolve_cjk_times
from memscribe.write.lite.lazy import LazyPattern, lazy
from memscribe.write.lite.lexicon import MONTHS, NUMBER_WORDS, WEEKDAYS
from memscribe.write.lite.tense import Tense

__all__ = ["TimeRef", "Timing", "format_day", "resolve_times"]

_VAGUE = frozenset({"a couple of", "a couple", "a few", "few", "several"})
_NUM = (
    r"(?P<n>\d{1,3}|a couple of|a couple|a few|several|a|an|one|two|three|four|five|six|seven|eight|nine"
    r"|ten|eleven|twelve|fifteen|twenty|thirty)"
)
_UNIT = r"(?P<u>(?:day|night|week|month|year)s?)"
_MONTH = (
    r"(?P<m>january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
# A period after a month is an abbreviation's ("Jan. 5") only; after "january" it ends the sentence.
_ABBREV_DOT = (
    "(?:(?:"
    + "|".join(
        f"(?<={a})" for a in ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
    )
    + r")\.)?"
)
_PREP = r"(?:(?P<pre>in|on|since|until|till|by|during|from|back in|around)\s+)?"
_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


@dataclass(frozen=True)
class TimeRef:
    """One resolved expression: where it was, what replaces it, the first day it names and the first day after
    the period it names (``after``; None for a single day: the day after ``day``)."""

    start: int
    end: int
    phrase: str
    day: date
    after: date | None = None

    @property
    def ends(self) -> date:
        """The first day the expression no longer names: "in March 2024" ends on 1 April 2024."""
        return self.after or self.day + timedelta(days=1)


@dataclass(frozen=True)
class Timing:
    """A statement's time: its text with absolute dates, the event day, and the end of a temporary state."""

    text: str
    day: date | None
    until: datetime | None
    refs: tuple[TimeRef, ...]

    @property
    def ends(self) -> date | None:
        """The first day after the first period the statement names ("in summer 2023": 1 September 2023)."""
        if self.refs:
            return self.refs[0].ends
        return self.day + timedelta(days=1) if self.day is not None else None


def format_day(day: date) -> str:
    """2 June 2023: day-month-year, unambiguous in every locale."""
    return f"{day.day} {MONTHS[day.month - 1].capitalize()} {day.year}"


def _month_name(month: int) -> str:
    return MONTHS[month - 1].capitalize()


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _period_after(day: date, unit: str) -> date | None:
    """The first day after the ``unit`` that starts on ``day`` ("in March 2024", "in 2024"); None for a day or
    a week said as "around" a date, which name a day."""
    if unit == "month":
        return _add_months(day, 1)
    if unit == "year":
        return date(day.year + 1, 1, 1)
    return None


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]


def _said_over(m: re.Match[str]) -> bool:
    """Whether the day word of ``m`` is said twice over ("tomorrow and tomorrow and tomorrow", a title): no day."""
    word = re.escape(m.group("w"))
    around = m.string[max(0, m.start() - len(m.group(0)) - 6) : m.end() + len(m.group(0)) + 6]
    return re.search(rf"\b{word}(?:,? and |, ){word}\b", around, re.IGNORECASE) is not None


def _day_words(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    if _said_over(m):
        return None
    offsets = {"the day before yesterday": -2, "the day after tomorrow": 2, "yesterday": -1, "last night": -1,
               "today": 0, "tonight": 0, "tomorrow": 1, "this morning": 0, "this afternoon": 0,
               "this evening": 0}  # fmt: skip
    day = anchor + timedelta(days=offsets[m.group("w").lower()])
    return TimeRef(m.start(), m.end(), f"{m.group('pre') or 'on'} {format_day(day)}", day)


def _ago(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    n, unit = _number(m.group("n")), m.group("u").lower().rstrip("s")
    vague = m.group("n").lower() in _VAGUE
    if unit in ("day", "night"):
        day = anchor - timedelta(days=n)
        phrase = f"on {format_day(day)}"
    elif unit == "week":
        day = anchor - timedelta(weeks=n)
        phrase = f"around {format_day(day)}"
    elif unit == "month":
        day = _add_months(anchor, -n)
        phrase = f"in {_month_name(day.month)} {day.year}"
    else:
        day = date(anchor.year - n, 1, 1)
        phrase = f"in {day.year}"
    if vague:
        phrase = f"around {format_day(day)}" if unit in ("day", "night", "week") else f"around {phrase[3:]}"
    return TimeRef(m.start(), m.end(), phrase, day, _period_after(day, unit))


# "haven't had a drink in 60 days", "first time in 3 years": "in" says how long, not when.
_FOR_SO_LONG = lazy(r"\b(?:haven't|hasn't|hadn't|have not|has not|had not|not|never|no|first|last)\b[^.!?]*$",
                    re.IGNORECASE)  # fmt: skip


def _in_n(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    if (tense.past and not tense.future) or _FOR_SO_LONG.compiled.search(m.string, 0, m.start()):
        return None  # "ran it in 3 days", "haven't had a drink in 60 days": a length of time, not a day
    n, unit = _number(m.group("n")), m.group("u").lower().rstrip("s")
    if unit in ("day", "night"):
        day = anchor + timedelta(days=n)
        phrase = f"on {format_day(day)}"
    elif unit == "week":
        day = anchor + timedelta(weeks=n)
        phrase = f"around {format_day(day)}"
    elif unit == "month":
        day = _add_months(anchor, n)
        phrase = f"in {_month_name(day.month)} {day.year}"
    else:
        day = date(anchor.year + n, 1, 1)
        phrase = f"in {day.year}"
    if m.group("n").lower() in _VAGUE:
        phrase = f"around {format_day(day)}" if unit in ("day", "night", "week") else f"around {phrase[3:]}"
    return TimeRef(m.start(), m.end(), phrase, day, _period_after(day, unit))


def _from_day(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    """ "three weeks from today", "10 days from tomorrow": counted from a day word, so a day, whatever the tense."""
    start = anchor + timedelta(days=1 if m.group("w").lower() == "tomorrow" else 0)
    n, unit = _number(m.group("n")), m.group("u").lower().rstrip("s")
    if unit in ("day", "night"):
        day = start + timedelta(days=n)
    elif unit == "week":
        day = start + timedelta(weeks=n)
    else:  # the same day of the month that many months on, or the month's last day ("a month from 31 January")
        first = _add_months(start, n if unit == "month" else 12 * n)
        day = min(first + timedelta(days=start.day - 1), _add_months(first, 1) - timedelta(days=1))
    vague = m.group("n").lower() in _VAGUE
    return TimeRef(m.start(), m.end(), f"{'around' if vague else 'on'} {format_day(day)}", day)


def _relative_period(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    rel, unit = m.group("rel").lower(), m.group("u").lower()
    step = {"last": -1, "previous": -1, "next": 1, "coming": 1, "this": 0}[rel]
    monday = anchor - timedelta(days=anchor.weekday())
    if unit == "week":
        word = {-1: "before", 0: "of", 1: "after"}[step]
        first = monday + timedelta(weeks=step)
        return TimeRef(m.start(), m.end(), f"the week {word} {format_day(anchor)}", first, first + timedelta(weeks=1))
    if unit == "weekend":
        saturday = monday + timedelta(days=5)
        if step < 0:
            saturday -= timedelta(weeks=1)
        elif step > 0 and anchor >= saturday:
            saturday += timedelta(weeks=1)
        return TimeRef(m.start(), m.end(), f"the weekend of {format_day(saturday)}", saturday, saturday + timedelta(2))
    if unit == "month":
        day = _add_months(anchor, step)
        return TimeRef(m.start(), m.end(), f"in {_month_name(day.month)} {day.year}", day, _add_months(day, 1))
    if unit == "year":
        year = anchor.year + step
        return TimeRef(m.start(), m.end(), f"in {year}", date(year, 1, 1), date(year + 1, 1, 1))
    start = _SEASON_START[unit]
    year = anchor.year
    if step < 0 and anchor.month < start + 3:
        year -= 1
    elif step > 0 and anchor.month >= start:
        year += 1
    season = "fall" if unit == "autumn" else unit
    first = date(year, start, 1)
    return TimeRef(m.start(), m.end(), f"in {season} {year}", first, _add_months(first, 3))


_NAMED_DAY = lazy(r"\b(?:a|an|the|one|any|entire|whole|typical|usual|lazy|rainy|sunny|quiet|busy)\s+$", re.I)
_DAY_PART = lazy(r"(?<!\s)\s+(morning|afternoon|evening|night)\b(?!s)", re.I)


def _weekday(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    rel = (m.group("rel") or "").lower()
    if not rel and not tense.past and not tense.future:
        return None  # a bare weekday in a timeless sentence is usually a habit ("Friday is pizza night")
    if re.match(r"s\b|\s+(?:mornings|evenings|afternoons|nights)\b", m.string[m.end() :], re.IGNORECASE) or re.search(
        r"\b(?:every|each)\s+$", m.string[: m.start()], re.IGNORECASE
    ):
        return None  # "tuesday evenings", "on tuesdays", "every tuesday": a routine, not a date
    if not rel and _NAMED_DAY.search(m.string[: m.start()]):
        return None  # "an entire Saturday", "a rainy Sunday": a kind of day, not a date to rewrite
    target = WEEKDAYS.index(m.group("wd").lower())
    back = (anchor.weekday() - target) % 7 or 7
    ahead = (target - anchor.weekday()) % 7 or 7
    if (
        rel in ("last", "past", "this past")
        or (rel in ("on", "") and tense.past and not tense.future)
        or (rel == "this" and tense.past)
    ):
        day = anchor - timedelta(days=back)
    else:
        day = anchor + timedelta(days=ahead)
    part = _DAY_PART.match(m.string[m.end() :])
    if part:  # "Saturday afternoon" -> "on the afternoon of 28 January 2023", not "on 28 January 2023 afternoon"
        return TimeRef(m.start(), m.end() + part.end(), f"on the {part.group(1).lower()} of {format_day(day)}", day)
    return TimeRef(m.start(), m.end(), f"on {format_day(day)}", day)


def _month(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    raw_month = m.group("m")
    if raw_month[0].islower() and raw_month.lower() in ("may", "march") and not (m.group("pre") or m.group("dd")):
        return None  # "I may move", "we march on": modal and verb, not months
    if len(raw_month) <= 4 and raw_month.lower() not in ("may", "june", "july") and raw_month[0].islower():
        return None  # lower-case abbreviations ("mar", "dec") are too often other words
    month = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(raw_month.lower()[:3]))
    rel = (m.group("rel") or "").lower()
    if m.group("y"):
        year = int(m.group("y"))
    elif rel == "last" or (tense.past and not tense.future and rel != "next"):
        year = anchor.year if month < anchor.month or (month == anchor.month and rel != "last") else anchor.year - 1
    elif rel == "next" or tense.future:
        year = anchor.year if month > anchor.month else anchor.year + 1
    else:
        year = anchor.year
    day_of_month = int(m.group("dd")) if m.group("dd") else 1
    try:
        day = date(year, month, day_of_month)
    except ValueError:
        return None
    pre = m.group("pre") or ("on" if m.group("dd") else "in")
    when = format_day(day) if m.group("dd") else f"{_month_name(month)} {year}"
    after = None if m.group("dd") else _add_months(day, 1)
    return TimeRef(m.start(), m.end(), f"{pre} {m.group('part') or ''}{when}", day, after)


def _year(m: re.Match[str], anchor: date, tense: Tense) -> TimeRef | None:
    year = int(m.group("y"))
    return TimeRef(m.start(), m.end(), m.group(0), date(year, 1, 1), date(year + 1, 1, 1))


_Handler = Callable[[re.Match[str], date, Tense], TimeRef | None]
_RULES: tuple[tuple[LazyPattern, _Handler], ...] = tuple(
    (lazy(pattern, re.IGNORECASE), handler)
    for pattern, handler in (
        (r"\b" + _NUM + r"\s+" + _UNIT + r"\s+from\s+(?P<w>today|now|tomorrow)\b", _from_day),
        (
            _PREP + r"(?P<w>the day before yesterday|the day after tomorrow|yesterday|last night|today|tonight"
            r"|tomorrow|this morning|this afternoon|this evening)\b",
            _day_words,
        ),
        (r"\b" + _NUM + r"\s+" + _UNIT + r"\s+ago\b", _ago),
        (r"\bin\s+" + _NUM + r"\s+" + _UNIT + r"\b", _in_n),
        (
            r"\b(?:in\s+|during\s+)?(?P<rel>last|next|this|coming|previous)\s+"
            r"(?P<u>weekend|week|month|year|summer|winter|spring|fall|autumn)\b",
            _relative_period,
        ),
        (
            r"\b(?:(?P<rel>last|next|this|coming|this past|past|on)\s+)?(?P<wd>monday|tuesday|wednesday"
            r"|thursday"
            r"|friday|saturday|sunday)\b(?!s)",
            _weekday,
        ),
        (
            r"\b" + _PREP + r"(?:(?P<rel>last|next|this)\s+)?(?P<part>(?:early|late|mid)[- ])?(?P<dd>\d{1,2})"
            r"(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\b" + _ABBREV_DOT + r"(?:,?\s+(?P<y>(?:19|20)\d{2}))?",
            _month,
        ),
        (
            r"\b"
            + _PREP
            + r"(?:(?P<rel>last|next|this)\s+)?(?P<part>(?:early|late|mid)[- ])?"
            + _MONTH
            + r"\b"
            + _ABBREV_DOT
            + r"(?:\s+(?P<dd>\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(?P<y>(?:19|20)\d{2})\b)?",
            _month,
        ),
        (r"\b(?:in|since|until|by|during|from|back in)\s+(?P<y>(?:19|20)\d{2})\b", _year),
    )
)
_DURATION = lazy(r"\bfor\s+(?:the\s+(?:next|coming)\s+|another\s+)?" + _NUM + r"\s+" + _UNIT + r"\b", re.IGNORECASE)
_CJK = lazy(r"[\u3400-\u9fff]")
_PERFECT = lazy(r"\b(?:have|has|had|'ve|'d)\s+(?:\w+\s+)?(?:been|lived|worked|known|had|used)\b", re.I)


def _find_refs(text: str, anchor: date, tense: Tense) -> list[TimeRef]:
    refs: list[TimeRef] = []
    taken: list[tuple[int, int]] = []
    for pattern, handler in _RULES:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            ref = handler(match, anchor, tense)
            if ref is not None:
                refs.append(ref)
                taken.append((ref.start, ref.end))
    return sorted(refs, key=lambda r: r.start)


def _temporary_until(text: str, start: date, tense: Tense) -> date | None:
    """ "In Madrid for ten days": a present or future state with a length ends after it."""
    match = _DURATION.search(text)
    if match is None or tense.past or _PERFECT.search(text) or re.search(r"'ve\b|\bsince\b", text):
        return None
    n, unit = _number(match.group("n")), match.group("u").lower().rstrip("s")
    if unit in ("day", "night"):
        return start + timedelta(days=n)
    if unit == "week":
        return start + timedelta(weeks=n)
    if unit == "month":
        return _add_months(start, n) + timedelta(days=start.day - 1)
    return None  # "for 6 years" is how long something has lasted far more often than how long it will


# A preposition already said before the phrase: "the end of next month", "due by friday", "since monday"; or "the"
# ("not the 3rd of march").
_OF_BEFORE = re.compile(r"\b(?:of|by|since|until|till|before|after|from|for|the)\s+$", re.IGNORECASE)
_LEAD_PREPOSITION = re.compile(r"^(?:in|on)\s+")


def resolve_times(text: str, anchor: datetime, tense: Tense) -> Timing:
    """Replace relative expressions in ``text`` with absolute ones resolved against ``anchor``."""
    if _CJK.search(text):
        resolved, cjk_day = resolve_cjk_times(text, anchor.date())
        stay = cjk_stay_until(text, cjk_day if cjk_day and cjk_day > anchor.date() else anchor.date())
        stay_at = datetime(stay.year, stay.month, stay.day, tzinfo=UTC) if stay else None
        if cjk_day is not None or stay_at is not None:
            return Timing(resolved, cjk_day, stay_at, ())
    refs = _find_refs(text, anchor.date(), tense)
    out = text
    for ref in reversed(refs):
        phrase = ref.phrase
        if _OF_BEFORE.search(out[: ref.start]):  # "the end of August 2024", "by 8 September": not "of in", "by on"
            phrase = _LEAD_PREPOSITION.sub("", phrase)
        if out[ref.start : ref.end] != phrase:
            out = out[: ref.start] + phrase + out[ref.end :]
    day = refs[0].day if refs else None
    start = day if day is not None and day > anchor.date() else anchor.date()
    until = _temporary_until(text, start, tense)
    until_at = datetime(until.year, until.month, until.day, tzinfo=UTC) if until else None
    return Timing(out, day, until_at, tuple(refs))
