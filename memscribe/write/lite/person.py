"""Who a statement is about, and the statement rewritten so it stands on its own.

``find_subject`` reads the grammatical subject: the speaker ("I", "my ..."), a relative ("my brother" → the
subject "user's brother", a different subject from the user), a named person ("Priya lives in Lisbon"), or
"he"/"she" for the last person named in the message. The predicate comes back in a canonical first-person
form ("Priya's favourite food is sushi" → "my favourite food is sushi") so one set of slot rules serves all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memscribe.write.lite.lexicon import NOT_NAMES, RELATIONS
from memscribe.write.lite.segment import Speaker

__all__ = ["Mention", "Referents", "expand_contractions", "find_subject"]

_CONTRACTIONS = (
    (r"\b(I|we|you|they)'re\b", r"\1 are"), (r"\bI'm\b", "I am"), (r"\b(I|we|you|they)'ve\b", r"\1 have"),
    (r"\b(I|we|you|they|he|she)'d\b", r"\1 would"), (r"\b(I|we|you|they|he|she)'ll\b", r"\1 will"),
    (r"\bcan't\b", "cannot"), (r"\bwon't\b", "will not"), (r"\b(\w+)n't\b", r"\1 not"),
    (r"\bim\b", "I am"), (r"\bive\b", "I have"), (r"\bdont\b", "do not"), (r"\b(he|she|it)'s\b", r"\1 is"),
)  # fmt: skip
_CONTRACTION_RES = tuple((re.compile(p, re.IGNORECASE), r) for p, r in _CONTRACTIONS)
_LEAD_TIME = re.compile(
    r"^(?:(?:on|in|during|since|around|by|after|before|back in|the week \w+|the weekend of|\w+ \w+ (?:before|after))"
    r"\s+[^,]{1,40},\s*|(?:recently|finally|now|so|then|today|lately|also|actually|honestly|luckily|sadly"
    r"|unfortunately|fortunately|basically|after that|these days|nowadays),?\s+)",
    re.IGNORECASE,
)
_FIRST = re.compile(r"^(?:I|we)\b\s*", re.IGNORECASE)
_REL_MODS = r"(?:(?:older|younger|little|big|baby|eldest|oldest|youngest|new|twin|half|best|ex|step)[- ]?)*"
_RELATION = re.compile(
    r"^(?:my|our)\s+(?P<mods>" + _REL_MODS + r")(?P<rel>" + "|".join(sorted(RELATIONS, key=len, reverse=True))
    + r")\b(?P<poss>'s)?(?:,?\s+(?P<name>(?-i:[A-Z][a-z]+))\b,?)?\s*",
    re.IGNORECASE,
)
_MY = re.compile(r"^(?:my|our)\b", re.IGNORECASE)
_PERSON_VERB = (
    r"(?:lives|lived|works|worked|moved|is|was|has|had|got|gets|loves|likes|adopted|turned|married|started"
    r"|joined|studies|speaks|went|just|recently|finally|also|bought|visited|wants|plans|quit|left|became"
    r"|will|would|drives|teaches|said|told|and)\b"
)
_NAME = re.compile(
    r"^(?P<name>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))(?:(?P<poss>'s)\s+|\s+(?=" + _PERSON_VERB + r"))"
)
_PRONOUN = re.compile(r"^(?:he|she)\b\s*", re.IGNORECASE)
_POSS_IS = re.compile(r"^(?:\w+ing|a|an|the|in|from|at|now|been|going|so|very|really|still|not)\b", re.I)
_THIRD_POSS = re.compile(r"\b(?:his|her|their)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    """The subject of a statement and its predicate in canonical first-person form."""

    subject: str
    display: str
    rest: str
    first_person: bool


@dataclass
class Referents:
    """People named so far in an episode: names for "my sister" and the antecedent for "she"."""

    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    last: tuple[str, str] | None = None  # (subject, display) of the last third person mentioned
    last_message: int = -1

    def at_message(self, index: int) -> None:
        """Pronouns only reach back within one message; across turns they are too often someone else."""
        if index != self.last_message:
            self.last, self.last_message = None, index


def expand_contractions(text: str) -> str:
    """"I'm" → "I am", "don't" → "do not": one spelling per form for the slot rules."""
    for pattern, replacement in _CONTRACTION_RES:
        text = pattern.sub(replacement, text)
    return text


def _third_rest(rest: str) -> str:
    """A third person's predicate in first-person canonical form ("her dog" → "my dog")."""
    return _THIRD_POSS.sub("my", rest)


def _relation(match: re.Match[str], text: str, speaker: Speaker, refs: Referents) -> Mention:
    mods = [m for m in re.split(r"[- ]", match.group("mods").lower()) if m in ("ex", "step", "best", "half")]
    rel = "-".join([*mods, match.group("rel").lower()]) if mods else match.group("rel").lower()
    key = f"{speaker.subject}'s {rel}"
    remainder = text[match.end() :]
    if match.group("name") and match.group("name").lower() not in NOT_NAMES:
        subject, display = match.group("name").lower(), match.group("name")
        refs.aliases[key] = (subject, display)
    else:
        subject, display = refs.aliases.get(key, (key, f"{speaker.display}'s {rel}"))
        if match.group("name"):
            remainder = text[match.end("rel") + len(match.group("poss") or "") :].lstrip(" ,")
    refs.last = (subject, display)
    rest = "my " + remainder if match.group("poss") else remainder
    return Mention(subject, display, _third_rest(rest), first_person=False)


def _named(match: re.Match[str], text: str, speaker: Speaker, refs: Referents) -> Mention | None:
    name = match.group("name")
    if name.split()[0].lower() in NOT_NAMES:
        return None
    subject = name.lower()
    if subject == speaker.subject:
        return Mention(speaker.subject, speaker.display, "my " + text[match.end() :], first_person=True)
    remainder = text[match.end() :]
    if match.group("poss"):
        remainder = ("is " + remainder) if _POSS_IS.match(remainder) else ("my " + remainder)
    refs.last = (subject, name)
    return Mention(subject, name, _third_rest(remainder), first_person=False)


def find_subject(text: str, speaker: Speaker, refs: Referents) -> Mention | None:
    """The subject of ``text`` (already contraction-expanded), or None when it cannot be told."""
    text = _LEAD_TIME.sub("", text, count=1)
    if match := _FIRST.match(text):
        return Mention(speaker.subject, speaker.display, text[match.end() :], first_person=True)
    if match := _RELATION.match(text):
        return _relation(match, text, speaker, refs)
    if match := _MY.match(text):
        return Mention(speaker.subject, speaker.display, "my" + text[match.end() :], first_person=True)
    if (match := _NAME.match(text)) and (mention := _named(match, text, speaker, refs)):
        return mention
    if (match := _PRONOUN.match(text)) and refs.last is not None:
        subject, display = refs.last
        return Mention(subject, display, _third_rest(text[match.end() :]), first_person=False)
    return None
