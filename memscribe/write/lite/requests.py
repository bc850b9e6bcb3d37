"""Statements about memory itself: corrections ("sorry, I meant 2017, not 2018") and forget requests
("please don't keep my phone number"). Neither is stored; both change what is already there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memscribe.write.lite.lazy import lazy

__all__ = ["Correction", "forget_attributes", "parse_correction", "parse_forget", "value_shape"]

_MARKER = (
    r"(?:(?:sorry|oops|whoops|wait|no|nope|actually|correction|my bad|my mistake|i misspoke|to be clear"
    r"|let me correct (?:that|myself)|scratch that|typo)[\s,:;.!-]+)+"
)
_LEAD = (
    r"(?:i meant|i mean|it'?s|it is|it was|that'?s|that is|that was|that should be|should be|make that"
    r"|i said|i should have said)?\s*"
)
_CORRECTIONS = tuple(
    lazy(p, re.IGNORECASE)
    for p in (
        "^" + _MARKER + _LEAD + r"(?P<new>[^,]+?),?\s+not\s+(?P<old>[^,.!]+?)[.!]*$",
        "^" + _MARKER + r"not\s+(?P<old>[^,]+),\s*(?:but\s+|it'?s\s+|it is\s+)?(?P<new>.+?)[.!]*$",
        "^"
        + _MARKER
        + r"(?:i meant|i mean|make that|that should be|it should be|it'?s actually|it was actually)"
        r"\s+(?P<new>.+?)[.!]*$",
        r"^(?:i meant|it'?s|it is|that'?s|that is)\s+(?P<new>[^,]+?),?\s+not\s+(?P<old>[^,.!]+?)[.!]*$",
        r"^i meant\s+(?P<new>.+?)[.!]*$",
    )
)
_OPENER = r"^(?:(?:actually|oh|also|and|so|wait|no|ok|okay|oops|hmm|sorry|on second thought)[\s,!.]+)*"
_FORGETS = tuple(
    lazy(_OPENER + p.removeprefix("^"), re.IGNORECASE)
    for p in (
        r"^(?:(?:please|pls|can you|could you|would you|i want you to|i need you to|i would like you to"
        r"|i'd like you to)\s+)*(?:forget|delete|erase|remove|discard|wipe|purge)\s+(?:about\s+|that\s+"
        r"|what i (?:said|told you) about\s+|everything (?:about|regarding)\s+"
        r"|the (?:fact|info|information|memory|note) (?:that|about)"
        r"\s+|any (?:record|memory|mention) of\s+)?(?P<topic>.+?)[.!?]*$",
        r"^(?:please\s+)?(?:don'?t|do not|stop|never)\s+(?:keep|keeping|store|storing|remember|remembering"
        r"|save"
        r"|saving|record|recording|track|tracking|hold on to)\s+(?:that\s+|about\s+)?(?P<topic>.+?)[.!?]*$",
        r"^(?:i don'?t want you to|i do not want you to|i'd rather you didn'?t|i would rather you did not)\s+"
        r"(?:remember|know|keep|store|save)\s+(?:that\s+|about\s+)?(?P<topic>.+?)[.!?]*$",
        r"^(?:no need to remember|you don'?t need to remember|you can forget)\s+(?:that\s+|about\s+)?"
        r"(?P<topic>.+?)[.!?]*$",
    )
)
# "I'm not a fan of sushi" is a negation, not "I'm" corrected from "a fan of sushi".
_DANGLING = lazy(
    r"\b(?:am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|i'm|it's|that's|i)$", re.I
)
_IDIOMS = frozenset({"it", "about it", "it all"})  # "forget it" means "never mind"
# Topic words that name an attribute directly ("my phone number" is the phone slot).
_TOPIC_ATTRIBUTES = (
    (r"\b(?:phone|cell|mobile)(?: number)?\b|\bnumber\b", ("phone",)),
    (r"\be-?mail\b", ("email",)),
    (r"\baddress\b", ("address", "residence")),
    (r"\bwhere i live\b|\bhome\b|\bcity\b|\bresidence\b", ("residence",)),
    (r"\bjob\b|\bwork\b|\bemployer\b|\bcompany\b", ("employer", "job_title")),
    (r"\bage\b|\bhow old\b", ("age",)),
    (r"\bbirthday\b|\bbirth ?date\b", ("birthday",)),
    (r"\bdiet\b", ("diet",)),
    (r"\bname\b", ("name", "surname")),
    (r"\bkids\b|\bchildren\b", ("children", "children_count")),
    (r"\bpets?\b", ("pets",)),
    (r"\bhealth\b|\bdiagnosis\b|\bcondition\b|\bmedical\b", ("health",)),
    (r"\ballerg", ("allergies",)),
    (r"\bpartner\b|\bwife\b|\bhusband\b|\bgirlfriend\b|\bboyfriend\b", ("partner", "relationship_status")),
    (r"\bplans?\b", ("plan",)),
)
_TOPIC_RES = tuple((lazy(p, re.IGNORECASE), attrs) for p, attrs in _TOPIC_ATTRIBUTES)


@dataclass(frozen=True)
class Correction:
    """A correction: what the speaker meant, and what they said before if they repeated it."""

    new: str
    old: str | None


def parse_correction(text: str) -> Correction | None:
    """The correction ``text`` makes, if it is one."""
    text = text.strip()
    for pattern in _CORRECTIONS:
        if match := pattern.match(text):
            groups = match.groupdict()
            new = groups["new"].strip(" ,.!\"'")
            old = (groups.get("old") or "").strip(" ,.!\"'") or None
            if new and len(new.split()) <= 12 and not _DANGLING.search(new):
                return Correction(new, old)
    return None


def parse_forget(text: str) -> str | None:
    """The topic a forget request names ("my phone number"), or None when ``text`` is not one."""
    text = text.strip()
    for pattern in _FORGETS:
        if match := pattern.match(text):
            topic = match.group("topic").strip(" ,.!?\"'")
            if topic and topic.lower() not in _IDIOMS:
                return topic
    return None


def forget_attributes(topic: str) -> tuple[str, ...]:
    """Attributes a forget topic names directly."""
    found: list[str] = []
    for pattern, attributes in _TOPIC_RES:
        if pattern.search(topic):
            found.extend(a for a in attributes if a not in found)
    return tuple(found)


def value_shape(value: str) -> re.Pattern[str] | None:
    """A pattern for tokens shaped like ``value`` (a year, a number, a capitalised name), to find what a
    bare "I meant 2017" replaces."""
    value = value.strip()
    if re.fullmatch(r"(?:19|20)\d{2}", value):
        return re.compile(r"\b(?:19|20)\d{2}\b")
    if re.fullmatch(r"\d+(?:[.,]\d+)?", value):
        return re.compile(r"\b\d+(?:[.,]\d+)?\b")
    if re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*", value):
        return re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b")
    return None
