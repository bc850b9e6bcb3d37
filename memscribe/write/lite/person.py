"""Who a statement is about: the subject, and the predicate in a form one set of slot rules can read.

``find_subject`` reads the grammatical subject: the speaker ("I", "my ..."), a relative ("my brother" → the
subject "user's brother", a different subject from the user), a named person ("Priya lives in Lisbon"), or
"he"/"she" for the last person named in the message. The predicate comes back in a canonical first-person
form ("Priya's favourite food is sushi" → "my favourite food is sushi") so one set of slot rules serves all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from memscribe.core.text import STOPWORDS
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import NOT_NAMES, RELATION_MODS, RELATION_WORD
from memscribe.write.lite.segment import Speaker

__all__ = ["Mention", "Referents", "expand_contractions", "find_subject", "restore_subject"]

_CONTRACTIONS = (
    (r"\b(I|we|you|they)'re\b", r"\1 are"), (r"\bI'm\b", "I am"), (r"\b(I|we|you|they)'ve\b", r"\1 have"),
    (r"\b(I|we|you|they|he|she)'d\b", r"\1 would"), (r"\b(I|we|you|they|he|she)'ll\b", r"\1 will"),
    (r"\bcan't\b", "cannot"), (r"\bwon't\b", "will not"), (r"\b(\w+)n't\b", r"\1 not"),
    (r"\bim\b", "I am"), (r"\bive\b", "I have"), (r"\bdont\b", "do not"), (r"\b(he|she|it)'s\b", r"\1 is"),
)  # fmt: skip
_CONTRACTION_RES = tuple((lazy(p, re.IGNORECASE), r) for p, r in _CONTRACTIONS)
_LEAD_TIME = lazy(
    r"^(?:(?:on|in|during|since|around|by|after|before|back in|the week \w+|the weekend of"
    r"|\w+ \w+ (?:before|after))"
    r"\s+[^,]{1,40},\s*|(?:recently|finally|now|so|then|today|lately|also|actually|honestly|luckily|sadly"
    r"|unfortunately|fortunately|basically|after that|these days|nowadays|anyway|btw|plus|oh|ok|okay|omg|update)"
    r"[,:!]?\s+)",
    re.IGNORECASE,
)
_LEAD_PHRASE = lazy(r"^(?P<lead>[^,]{1,40}?),?\s+(?=(?:I|we|my)\s)")
_TIMEISH = lazy(
    r"\b(?:ago|last|next|this|yesterday|today|tomorrow|tonight|week|month|year|morning|evening|night|weekend"
    r"|day|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june"
    r"|july|august|september|october|november|december|\d{4}|recently|finally|earlier|later|soon|then|after"
    r"|before|since|now|eventually|lately)\b",
    re.IGNORECASE,
)
_SUBORDINATE = lazy(r"\b(?:when|if|because|although|though|while|unless|whether|as|I|we|my)\b", re.I)
_FIRST = lazy(r"^(?:I|we)\b\s*", re.IGNORECASE)
_RELATION = lazy(
    r"^(?:my|our)\s+(?P<mods>"
    + RELATION_MODS
    + r")(?P<rel>"
    + RELATION_WORD
    + r")\b(?P<poss>'s)?(?:,?\s+(?P<name>(?-i:[A-Z][a-z]+)|(?-i:[a-z]{2,})(?=,|\s+(?:is|was|has|just|says|got|and)\b))"
    r"\b,?)?\s*",
    re.IGNORECASE,
)
# A name with the relation in brackets, as chat writes it: "rohan (hubby) just accepted an offer".
_NAME_REL = lazy(r"^(?P<name>[A-Za-z][a-z]+)\s*\((?:my\s+)?(?P<rel>" + RELATION_WORD + r")\)\s*", re.IGNORECASE)
_MY = lazy(r"^(?:my|our)\b", re.IGNORECASE)
_BARE_KIN = lazy(r"^(?:mum|mom|mama|dad|papa|grandma|grandpa|nana|nan|granny)\b", re.IGNORECASE)
# Who acts for the speaker: what they do to "me" or "my …" right after their verb, or what they say, is the
# speaker's news ("my doctor upped my lexapro", "my doctor says it's not penicillin").
_ACTS_FOR = frozenset({"doctor", "therapist", "boss", "manager", "mentor"})
_ON_SPEAKER = lazy(r"^(?:\w+\s+){0,2}?\w+\s+(?:me|my)\b|^(?:says|said|thinks|reckons)\b", re.IGNORECASE)
_PERSON_VERB = (
    r"(?:lives|lived|works|worked|moved|is|was|has|had|got|gets|loves|likes|adopted|turned|married|started"
    r"|joined|studies|speaks|went|just|recently|finally|also|bought|visited|wants|plans|quit|left|became"
    r"|will|would|drives|teaches|said|told|and|eats|follows|studies|switched|retrained|traded|packed"
    r"|relocated|transferred|stopped|gave|still|celebrated|says|sent|texted|called|messaged|accepted)\b"
)
_NAME = lazy(
    r"^(?P<name>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))(?:(?P<poss>'s)\s+|\s+(?=" + _PERSON_VERB + r"))"
)
_PRONOUN = lazy(r"^(?:he|she)\b\s*", re.IGNORECASE)
_POSS_IS = lazy(r"^(?:\w+ing|a|an|the|in|from|at|now|been|going|so|very|really|still|not)\b", re.I)
_THIRD_POSS = lazy(r"\b(?:his|her|their)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    """The subject of a statement and its predicate in canonical first-person form."""

    subject: str
    display: str
    rest: str
    first_person: bool
    via: str = "pronoun"  # how the subject was found: "first", "relation", "name" or "pronoun"


@dataclass
class Referents:
    """People named so far in an episode: names for "my sister" and the antecedent for "she"; ``known`` tells
    whether a word typed lowercase is a person named before ("my brother kofi …", then "kofi is moving")."""

    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    last: tuple[str, str] | None = None  # (subject, display) of the last third person mentioned
    last_message: int = -1
    known: Callable[[str], bool] | None = None

    def knows(self, word: str) -> bool:
        """Whether ``word`` (lowercase) names a person of this episode or, through ``known``, one named before."""
        if word in NOT_NAMES or word in STOPWORDS:
            return False
        if any(subject == word for subject, _ in self.aliases.values()):
            return True
        return self.known is not None and self.known(word)

    def at_message(self, index: int) -> None:
        """Pronouns only reach back within one message; across turns they are too often someone else."""
        if index != self.last_message:
            self.last, self.last_message = None, index


# Chat drops the subject: "Gonna check out career options", "Just got back from Paris".
_DROPPED_SUBJECT = lazy(
    r"^(?P<verb>gonna|wanna|going to|planning to|planning on|hoping to|trying to|thinking about|thinking of"
    r"|just|finally|recently|already|went|got|moved|started|bought|adopted|visited|been|had|love|loved|spent|finished"
    r"|made|took|tried|joined|quit|signed up|handed in|gave notice|going(?= freelance)|sold|lost my|left my"
    r"|living|staying|working|renting|dating|studying|teaching|gave up|stopped|switched|ditched|dumped"
    r"|broke up|retired|graduated|passed|failed|changed|swapped|traded|picked up|took up|upped"
    r"|still(?=\s+(?:\w+ing|at|in|with|into|obsessed|single|dating|married|engaged|\d+)\b)"
    r"|(?:now |currently )?(?:based|settled)(?=\s+(?:in|out of)\b)|originally(?=\s+from\b))\b",
    re.IGNORECASE,
)
_DROPPED_MY = lazy(r"^(?:fave|fav|favou?rite|go-to)\s+[a-z]+(?:\s+[a-z]+){0,3}\s+(?:is|are)\b", re.IGNORECASE)
_PROGRESSIVE_DROP = {"gonna": "I am going to", "wanna": "I want to"}


def restore_subject(text: str) -> str:
    """Put back an "I" that chat left out, so the statement reads (and rewrites) as first person."""
    if _DROPPED_MY.match(text):  # "fave restaurant in london is Dishoom"
        return "my " + text[0].lower() + text[1:]
    match = _DROPPED_SUBJECT.match(text)
    if match is None:
        return text
    verb = match.group("verb").lower()
    if verb in _PROGRESSIVE_DROP:
        return _PROGRESSIVE_DROP[verb] + text[match.end() :]
    if verb.endswith("ing") or verb.startswith(("going", "planning", "hoping", "trying", "thinking", "still", "now",
                                                "currently", "based", "settled", "originally")):
        return "I am " + text[0].lower() + text[1:]
    return "I " + text[0].lower() + text[1:]


def expand_contractions(text: str) -> str:
    """ "I'm" → "I am", "don't" → "do not": one spelling per form for the slot rules."""
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
    if rel in _ACTS_FOR and not match.group("name") and _ON_SPEAKER.match(remainder):
        # "my doctor upped my lexapro", "my boss gave me a raise": the news is the speaker's
        return Mention(speaker.subject, speaker.display, remainder, first_person=True, via="first")
    if match.group("name") and match.group("name").lower() not in NOT_NAMES | STOPWORDS:
        name = match.group("name")
        subject, display = name.lower(), name if name[0].isupper() else name.capitalize()
        refs.aliases[key] = (subject, display)
    else:
        subject, display = refs.aliases.get(key, (key, f"{speaker.display}'s {rel}"))
        if match.group("name"):
            remainder = text[match.end("rel") + len(match.group("poss") or "") :].lstrip(" ,")
    refs.last = (subject, display)
    rest = "my " + remainder if match.group("poss") else remainder
    return Mention(subject, display, _third_rest(rest), first_person=False, via="relation")


def _named(match: re.Match[str], text: str, speaker: Speaker, refs: Referents) -> Mention | None:
    name = match.group("name")
    first = name.split()[0].lower()
    if first in NOT_NAMES or (len(first) >= 7 and first.endswith("ly") and not first.endswith("erly")):
        return None  # "Officially moved to nashville": an adverb opening a sentence (Kimberly is a name)
    subject = name.lower()
    if subject == speaker.subject:
        return Mention(speaker.subject, speaker.display, "my " + text[match.end() :], True, via="first")
    remainder = text[match.end() :]
    if match.group("poss"):
        remainder = ("is " + remainder) if _POSS_IS.match(remainder) else ("my " + remainder)
    refs.last = (subject, name)
    return Mention(subject, name, _third_rest(remainder), first_person=False, via="name")


def find_subject(text: str, speaker: Speaker, refs: Referents) -> Mention | None:
    """The subject of ``text`` (already contraction-expanded), or None when it cannot be told."""
    text = _LEAD_TIME.sub("", text, count=1)
    lead = _LEAD_PHRASE.match(text)
    if (lead and _TIMEISH.search(lead.group("lead")) and not _SUBORDINATE.search(lead.group("lead"))
            and not _NAME.match(lead.group("lead"))):  # "Emma turned 5 on saturday, we …" is her news, not a time
        text = text[lead.end() :]
    if match := _FIRST.match(text):
        return Mention(speaker.subject, speaker.display, text[match.end() :], first_person=True, via="first")
    kin = "my " + text if _BARE_KIN.match(text) else text  # "dad moved back to abuja": chat leaves out "my"
    if match := _RELATION.match(kin):
        return _relation(match, kin, speaker, refs)
    if (match := _NAME_REL.match(text)) and match.group("name").lower() not in NOT_NAMES:
        subject, display = match.group("name").lower(), match.group("name")
        refs.aliases[f"{speaker.subject}'s {match.group('rel').lower()}"] = (subject, display)
        refs.last = (subject, display)
        return Mention(subject, display, _third_rest(text[match.end() :]), first_person=False, via="relation")
    if match := _MY.match(text):
        return Mention(
            speaker.subject, speaker.display, "my" + text[match.end() :], first_person=True, via="first"
        )
    if (match := _NAME.match(text)) and (mention := _named(match, text, speaker, refs)):
        return mention
    # A name typed lowercase, of someone named before: "kofi is moving to toronto!!!", "sem says the train …". The
    # word is looked up only when a person's verb follows it.
    capital = text[:1].upper() + text[1:]
    if (
        text[:1].islower()
        and (match := _NAME.match(capital))
        and refs.knows(match.group("name").lower())
        and (mention := _named(match, capital, speaker, refs))
    ):
        return mention
    if (match := _PRONOUN.match(text)) and refs.last is not None:
        subject, display = refs.last
        return Mention(subject, display, _third_rest(text[match.end() :]), first_person=False)
    return None
