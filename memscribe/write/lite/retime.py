"""Relative times of a memory of several sentences, each resolved in the tense of its own clause.

A memory keeps every sentence of its group, and the sentences need not share a tense: "said bye to my team
today. first day at the new place is monday" is about the past and then the future. Read in the tenses of all
of them, "monday" would become the Monday just gone. So each clause is read in its own tense; a clause with no
tense of its own ("on tuesday, I had a checkup": "on tuesday") takes its sentence's, and a clause in the present
("physio starts monday") stays in the present.
"""

from __future__ import annotations

import re
from datetime import datetime

from memscribe.read.topics import has_cjk
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.person import expand_contractions
from memscribe.write.lite.tense import Tense, detect_tense
from memscribe.write.lite.timeref import resolve_times

__all__ = ["complete_days", "resolve_by_clause"]

_SENTENCE = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+")
# A comma before a number may sit inside a date ("March 3, 2024"); it does not end a clause.
_CLAUSE = re.compile(r"(,\s+(?!\d)|;\s+|(?<!\s)\s+(?:but|so|and then)\s+)", re.IGNORECASE)
_PRESENT = lazy(r"\b(?:is|are|am|starts|begins|opens|runs|meets|happens|lands|arrives|kicks off|due)\b", re.IGNORECASE)


# A present clause about one start ("physio starts monday", "first day at the new place is monday") is upcoming.
_STARTS = lazy(r"\b(?:starts|begins|kicks off|opens|first day\b.{0,40}\bis)\b", re.IGNORECASE)


def _tense(text: str) -> Tense:
    text = text.strip()
    # Chat rarely capitalises: "rocky passed away" reads as past once its first word is a name.
    return detect_tense(expand_contractions(text[:1].upper() + text[1:]))


def resolve_by_clause(text: str, anchor: datetime) -> str:
    """``text`` with its relative times resolved against ``anchor``, clause by clause."""
    out: list[str] = []
    for sentence, gap in _pairs(_SENTENCE, text):
        own = _tense(sentence)
        if has_cjk(sentence):
            out.append(resolve_times(sentence, anchor, own).text + gap)
            continue
        for clause, sep in _pairs(_CLAUSE, sentence):
            tense = _tense(clause)
            if not (tense.past or tense.future):
                if _STARTS.search(clause):
                    tense = Tense(False, True)
                else:
                    tense = Tense(False, False) if _PRESENT.search(clause) else own
            out.append(resolve_times(clause, anchor, tense).text + sep)
        out.append(gap)
    return "".join(out)


_MONTH_WORDS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre"
    "|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre"
    "|janeiro|fevereiro|março|marco|maio|junho|julho|setembro|outubro|novembro|dezembro"
)
# A day dated in full: "16 June", "June 16", "21 mai", "3 de mayo".
_DATED_DAY = lazy(
    rf"\b[0-3]?\d(?:st|nd|rd|th|er)?\s+(?:of\s+|de\s+)?(?P<after>{_MONTH_WORDS})\b"
    rf"|\b(?P<before>{_MONTH_WORDS})\s+[0-3]?\d\b",
    re.IGNORECASE,
)
# A day of the month said alone, as what something is or was: "the 14th is my brother's", "Le 12 c'est …".
_BARE_DAY = lazy(
    rf"\b(?P<art>the|le|el|o)\s+(?P<day>[0-3]?\d)(?P<suffix>st|nd|rd|th|er)?"
    rf"(?!\s*(?:of\s+|de\s+)?(?:{_MONTH_WORDS})\b)(?=\s+(?:is|was|c'est|c’est|es|era|é)\b|\s*[,.!?;]|\s*$)",
    re.IGNORECASE,
)


def complete_days(text: str, before: str) -> str:
    """``text`` with each day said alone given the month of the day last dated before it, in the same message
    (``before``, then ``text`` itself): "on 16 June. the 14th is my brother's" → "the 14th of June is my
    brother's", "c'est le 21 mai ! Le 12 c'est l'anniversaire de ma mère" → "Le 12 mai c'est …". A day with
    no month dated before it stays as said."""

    def complete(m: re.Match[str]) -> str:
        day = int(m.group("day"))
        months = list(_DATED_DAY.finditer(before + " " + text[: m.start()]))
        if not months or not 1 <= day <= 31:
            return m.group(0)
        month = months[-1].group("after") or months[-1].group("before")
        art = m.group("art")
        if art.lower() == "the":
            return f"{m.group(0)} of {month}"
        return f"{m.group(0)} de {month}" if art.lower() in ("el", "o") else f"{m.group(0)} {month}"

    return _BARE_DAY.sub(complete, text)


def _pairs(pattern: re.Pattern[str], text: str) -> list[tuple[str, str]]:
    """``(piece, separator after it)`` in order; joining them gives ``text`` back."""
    pairs: list[tuple[str, str]] = []
    start = 0
    for match in pattern.finditer(text):
        pairs.append((text[start : match.start()], match.group(0)))
        start = match.end()
    pairs.append((text[start:], ""))
    return pairs
