"""Memory text for a slot fact: the statement itself when it says what it is about, else a plain sentence.

"Nothing beats ramen for me" holds the favourite food, but neither a keyword search nor an embedding of
"What is my favourite food?" finds it by those words; "User's favourite food is ramen" is found by both. A
statement that names several facts ("I moved to Oslo and joined Equinor") gets one plain sentence per fact,
so that changing one fact later leaves no stale value inside the memory of another. An intention said as a
wish or a goal is kept as a plan ("User plans to learn Japanese").
"""

from __future__ import annotations

import re

from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.slots import Fact, FactKind

__all__ = ["fact_text"]

# Per attribute: words that show a statement already says what it is about, and the plain sentence.
_FORMS: dict[str, tuple[str, str]] = {
    "residence": (r"live|lives|living|lived|moved|relocated|reside|resides|based", "{d} lives in {v}"),
    "location": (r"staying|visiting|trip|vacation|holiday|travell?ing", "{d} is staying in {v}"),
    "employer": (r"work|works|working|worked|job|employer|hired|joined", "{d} works at {v}"),
    "job_title": (r"job", "{d}'s job title is {v}"),
    "relationship_status": (r"relationship", "{d}'s relationship status is {v}"),
    "partner": (r"partner", "{d}'s partner is {v}"),
    "diet": (r"diet", "{d} follows a {v} diet"),
    "vehicle": (r"drive|drives|driving|car", "{d} drives {a}"),
    "age": (r"years old|age", "{d} is {v} years old"),
    "school": (r"study|studies|studying|student|school|university|college", "{d} studies at {v}"),
    "hobbies": (r"hobby|hobbies", "{d} has a hobby: {v}"),
    "pets": (r"pet|pets", "{d} has a pet {v}"),
    "address": (r"address", "{d}'s home address is {v}"),
    "favorite": (r"favou?rite", "{d}'s favourite is {v}"),
}
_CUES = {attr: lazy(r"\b(?:" + cues + r")\b", re.IGNORECASE) for attr, (cues, _) in _FORMS.items()}
_FAVOURITE = lazy(r"\bfavou?rite\b", re.IGNORECASE)
# An intention said as a wish or goal ("really want to", "my goal this year is to") is kept as a plan, in the
# words people ask about plans with; a statement that already says "plan" is kept as it is.
_PLAN_SAID = lazy(r"\bplan(?:s|ned|ning)?\b", re.IGNORECASE)
_PLAN_WISH = lazy(
    r"\b(?:wants?|wanted|hop(?:e|es|ing)|inten(?:d|ds|ding)|aim(?:s|ing)?|(?:goal|dream|resolution|aim)\b[^.!?]*?"
    r"\bis|would (?:really )?(?:like|love)|going|trying|determined|eager|decided|preparing|saving up|set"
    r"|scheduled)\s+to\s+(?P<act>[^.!?;]+)",
    re.IGNORECASE,
)
# When a job began ("since 2019", "joined back in 2021", "Starting in May 2022"): kept in the employer memory,
# so "What year did I start at Litware?" finds it.
_STARTED = lazy(
    r"(?:\b(?:since|back in|starting in|starting|joined [^,.;!?]*?\bin|started [^,.;!?]*?\bin)\s+"
    r"|^(?:in|on) (?=[^,.;!?]*\b(?:joined|started|began)\b))"
    r"(?P<when>(?:\d{1,2} )?(?:(?-i:[A-Z])[a-z]+ )?\d{4})\b",
    re.IGNORECASE,
)
_DATED = lazy(r"\b(?:in|on|by|during|for) (?:\d{1,2} )?(?:[A-Z][a-z]+ )?\d{4}\b")


def _cased(value: str, text: str) -> str:
    """``value`` as the speaker wrote it ("Lisbon", not "lisbon"), when the statement holds it."""
    found = re.search(re.escape(value), text, re.IGNORECASE)
    return found.group(0) if found else value


def _article(value: str) -> str:
    return f"{'an' if value[:1].lower() in 'aeiou' else 'a'} {value}"


def _pet(value: str, text: str) -> str:
    kind, _, name = value.partition(" ")
    return f"{kind} named {_cased(name, text)}" if name else kind


def _plan_text(statement: str, display: str) -> str:
    """ "User's goal in 2022 is to renovate the kitchen." → "User plans to renovate the kitchen in 2022"."""
    wish = _PLAN_WISH.search(statement)
    if _PLAN_SAID.search(statement) or wish is None:
        return statement
    act = wish.group("act").strip()
    date = _DATED.search(statement[: wish.start("act")])
    return f"{display} plans to {act}" + (f" {date.group(0)}" if date and date.group(0) not in act else "")


def fact_text(fact: Fact, statement: str, display: str, several: bool) -> str:
    """The memory text for ``fact`` read from ``statement`` (third person, dates resolved)."""
    if fact.kind is FactKind.INTENT and fact.attribute == "plan" and not several:
        return _plan_text(statement, display)
    if fact.kind is not FactKind.STATE or fact.value is None:
        return statement
    attribute = fact.attribute
    if attribute.startswith("favorite_"):
        category = attribute.removeprefix("favorite_").replace("_", " ")
        if not several and _FAVOURITE.search(statement) and category in statement.lower():
            return statement
        return f"{display}'s favourite {category} is {_cased(fact.value, statement)}"
    if attribute == "employer" and (start := _STARTED.search(statement)):
        return f"{display} has worked at {_cased(fact.value, statement)} since {start.group('when')}"
    if attribute not in _FORMS:
        return statement
    if not several and _CUES[attribute].search(statement):
        return statement
    value = _pet(fact.value, statement) if attribute == "pets" else _cased(fact.value, statement)
    return _FORMS[attribute][1].format(d=display, v=value, a=_article(value))
