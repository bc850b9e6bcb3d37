"""Slot values: cut a captured phrase down to the value and normalise it, or reject it."""

from __future__ import annotations

import re

from memscribe.core.text import EMOJI
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import (
    CONDITIONS,
    JOB_HEADS,
    JOB_HEADS_PATTERN,
    LANGUAGES,
    NOT_NAMES,
    PETS,
    RELATIONS,
    words,
)

__all__ = [
    "clean_phrase",
    "split_list",
    "value_condition",
    "value_employer",
    "value_hobby",
    "value_job",
    "value_language",
    "value_liked",
    "value_name",
    "value_pet",
    "value_place",
    "value_school",
    "value_school_name",
    "value_self_employed",
    "value_thing",
    "value_title",
]

# A value ends where a preposition, conjunction or time word starts the next part of the sentence.
_CUT = lazy(
    r"(?<!\s)\s*(?:[,;:()\[\]!?\"]|(?<!\bSt)(?<!\bDr)(?<!\bMt)(?<!\bFt)(?<!\bJr)(?<!\bSr)(?<!\bCo)\.(?:\s|$)|\s-\s)|(?<!\s)\s+(?:and|but|because|since|so|with|for|when|while|where|which"
    r"|who|that|after|before|until|till|as|to|from|on|at|in|by|near|last|next|this|yesterday|today|tomorrow"
    r"|ago|now|anymore|again|too|though|although|these|lately|recently|already|around|about|during|if|or"
    r"|than|then|just|right|every|each|since|starting|soon|nowadays|instead|full-time|part-time|back|more than"
    r"|is|are|was|were|it|specifically|especially|mainly|mostly|here|there|atm|(?-i:rn|lol|tbh))\b"
    r"|(?<!\s)\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several)\s+"
    r"(?:minute|hour|day|night|week|month|year)s?\b"
    # a time resolved before values are read: "started at Monzo the week before 10 September 2024"
    r"|(?<!\s)\s+the\s+(?:week|weekend|day|month|year)\s+(?:before|after|of)\b"
    r"|(?<!\s)\s*" + EMOJI,  # "got the job at Arup 🎉" (a blank run is tried from its first character only)
    re.IGNORECASE,
)
# "new" goes only in lower case: "a new car", but "New York".
_LEADING = lazy(
    r"^(?:(?:a|an|the|my|our|some|this|that|his|her|their|(?-i:new|brand new))\s+)+", re.IGNORECASE
)
_REJECT = words(
    """it that this there here them him her you me us one something everything anything someone somewhere
    home team job role position department company project it all what how when why which who place town
    city area way time lot bit"""
)
# A value starting with one of these is a pronoun phrase ("it here", "how you did it"), not a value.
_PRONOUN_START = words("it that this these those you them him her me us how what when why where which who")
_ABSTRACT_PLACES = words(
    """fear hope denial peace harmony moment past present future bubble head poverty luxury comfort dread
    shame style love limbo dark world reality fantasy debt silence chaos"""
)
_NOT_EMPLOYERS = words("home night nights weekends living myself yourself free fun money it them")
_NOT_LIKED_FIRST = words("to she he they it it's we you i i'm this that")
_NOT_LIKED = RELATIONS | words("life job work people everyone everybody things stuff idea ideas")


def clean_phrase(raw: str, max_words: int = 5, cut: bool = True) -> str | None:
    """The value at the start of ``raw``: cut at the next clause, determiners dropped, lower-cased."""
    text = raw.strip()
    if cut and (match := _CUT.search(text)):
        text = text[: match.start()]
    text = _LEADING.sub("", text.strip().rstrip(".")).strip().lower()
    tokens = text.split()
    if not tokens or len(tokens) > max_words or text in _REJECT or tokens[0] in _PRONOUN_START:
        return None
    return " ".join(tokens)


def split_list(raw: str) -> list[str]:
    """ "reading, painting and hiking" → three items."""
    parts = re.split(r"\s*(?:,|\band\b|\bor\b|&|/)\s*", raw, flags=re.IGNORECASE)
    return [p for p in parts if p.strip()]


def value_place(raw: str) -> str | None:
    """A place: any short noun phrase that is not a pronoun or a generic word."""
    value = clean_phrase(raw, max_words=4)
    if value is None or value in ("back", "out", "abroad", "away") or value.split()[0] in _ABSTRACT_PLACES:
        return None
    return value


def value_thing(raw: str) -> str | None:
    """A short noun phrase (a vehicle, a favourite, an allergy)."""
    return clean_phrase(raw, max_words=5)


def value_self_employed(raw: str) -> str | None:
    """Working for oneself, however said ("freelance", "sole trader"): one value, so that a later job replaces it."""
    return "self-employed"


def value_employer(raw: str) -> str | None:
    """An organisation: not "home", "night" or "myself" ("I work from home" is no employer)."""
    value = clean_phrase(raw, max_words=5)
    return None if value is None or value in _NOT_EMPLOYERS else value


_NOT_HOBBIES = words(
    """working going doing getting being having making taking trying thinking feeling looking living moving
    planning seeing saying telling using spending starting leaving coming staying waiting wondering
    hoping wanting talking hearing learning think say know believe imagine see hear keep be have do make
    get go try help take stay wait hope feel look talk spend come"""
)


def value_hobby(raw: str) -> str | None:
    """A hobby: "hiking", "playing guitar"; not everyday verbs ("working", "going")."""
    value = clean_phrase(raw, max_words=3)
    if value is None or value.split()[0] in _NOT_HOBBIES:
        return None
    return value


def value_liked(raw: str) -> str | None:
    """A liked or disliked thing; gerunds are hobbies and are read by the hobby rules instead."""
    value = clean_phrase(raw, max_words=5)
    # "puking up hairballs like she plans it": a clause after "like" is a comparison, not a thing liked
    if value is None or value in _NOT_LIKED or value.split()[0] in _NOT_LIKED_FIRST:
        return None
    first = value.split()[0]
    return None if first.endswith("ing") and len(first) > 4 else value


def value_name(raw: str) -> str | None:
    """A proper name, capitalised in the source ("Anna", "Mary Jane")."""
    match = re.match(r"(?:[A-Z][a-z'-]+)(?:\s+[A-Z][a-z'-]+)?", raw.strip())
    if not match or match.group(0).split()[0].lower() in NOT_NAMES:
        return None
    return match.group(0).lower()


def value_job(raw: str) -> str | None:
    """A job title whose head noun is a profession ("senior software engineer")."""
    value = clean_phrase(raw, max_words=4)
    if value is None:
        return None
    head = value.split()[-1]
    if head in JOB_HEADS or head.endswith(("ist", "ician", "eer", "ologist", "grapher")):
        return value
    return None


def value_title(raw: str) -> str | None:
    """A title said without an article: a profession, "design lead" or "head of design" (not "in the lead")."""
    value = clean_phrase(raw, max_words=4, cut=False)
    if value is None or {"in", "the", "a", "an", "my", "our", "their"} & set(value.split()):
        return None
    if value.endswith(" lead") or value.startswith("head of "):
        return value
    return value_job(value)


def value_pet(raw: str) -> str | None:
    """Canonical species ("puppy" → "dog")."""
    key = raw.strip().lower()
    return PETS.get(key) or PETS.get(key.rstrip("s"))


def value_condition(raw: str) -> str | None:
    """A health condition named in the lexicon ("type 2 diabetes" keeps its qualifier)."""
    value = clean_phrase(raw, max_words=4)
    if value is None or not any(
        word.strip("'s") in CONDITIONS or word in CONDITIONS for word in value.split()
    ):
        return None
    return value


def value_language(raw: str) -> str | None:
    value = clean_phrase(raw, max_words=2)
    return value if value is not None and value.split()[-1] in LANGUAGES else None


def value_school(raw: str) -> str | None:
    """A school: a capitalised name with a school word, or an all-caps acronym (MIT, UCLA)."""
    text = raw.strip()
    match = re.match(r"(?:the\s+)?((?:[A-Z][\w&.'-]*)(?:\s+(?:of|de|for|and|at|[A-Z][\w&.'-]*))*)", text)
    if not match:
        return None
    name = re.sub(r"\s+(?:of|de|for|and|at)$", "", match.group(1))
    words = name.split()
    school_word = re.search(
        r"\b(?:University|College|School|Institute|Academy|Polytechnic|Conservatory)\b", name
    )
    if school_word or (len(words) == 1 and name.isupper() and len(name) >= 2 and not _AS_JOB.search(raw)):
        return name.lower()
    return None


# "started at BMW as a junior analyst": an acronym one works at, not a school.
_AS_JOB = lazy(r"\bas an?\s+(?:[\w-]+\s+){0,2}(?:" + JOB_HEADS_PATTERN + r")\b", re.IGNORECASE)


def value_school_name(raw: str) -> str | None:
    """After a verb that already says "school" ("I study at Ridgemont"): any capitalised name will do."""
    if (named := value_school(raw)) is not None:
        return named
    match = re.match(r"(?:the\s+)?([A-Z][\w&.'-]+(?:\s+[A-Z][\w&.'-]+){0,2})", raw.strip())
    name = match.group(1).rstrip(".'").lower() if match else ""
    return name if name and name not in NOT_NAMES else None
