"""Slot facts: subject + attribute + value, read from a statement by the rules in :mod:`rules`.

A fact is a *state* ("lives in Sydney"), an *intention* ("planning to adopt a dog") or an *ending* ("quit my
job at Google"). Auxiliaries decide which: "do not", "never" negate (an ending when "anymore"/"no longer"
says the value used to hold); "was", "had" put a state in the past (kept as a plain memory, not a slot);
"would", "will" make it hypothetical.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import ADVERBS, words
from memscribe.write.lite.person import Mention
from memscribe.write.lite.rules import AUX, MENTION_RULES, PRE_RULES, STATE_RULES, Rule
from memscribe.write.lite.tense import Tense
from memscribe.write.lite.values import split_list

if TYPE_CHECKING:
    from memscribe.write.lite.ledger import Ledger

__all__ = ["Fact", "FactKind", "extract_facts", "first_verb", "plan_value", "resolve_fact"]

_LIST_ATTRIBUTES = frozenset({"hobbies", "allergies", "languages", "likes", "dislikes"})
_ENDED = lazy(r"\b(?:anymore|any more|no longer)\b", re.IGNORECASE)
_INTENT_TO = lazy(
    "^"
    + AUX
    + r"(?P<verb>planning|plan|plans|hoping|hope|hopes|want|wants|would like|would love|would really"
    r" like|really want|intend|intends|intending|aiming|aim|going|about|trying|excited|eager|determined"
    r"|decided|getting ready|preparing|set|scheduled|saving up|looking)\s+to\s+(?P<act>.+)$",
    re.IGNORECASE,
)
_INTENT_GOAL = lazy(
    r"^my (?:main |big |new )?(?:goal|plan|dream|resolution|aim)(?:\s+(?:this|next|for the) \w+|\s+in \d{4})?"
    r"\s+is to\s+(?P<act>.+)$",
    re.IGNORECASE,
)
_INTENT_SLANG = lazy("^" + AUX + r"(?:gonna|wanna)\s+(?P<act>.+)$", re.IGNORECASE)
_INTENT_GERUND = lazy(
    "^" + AUX + r"(?:thinking about|thinking of|considering|looking forward to|dreaming of|planning on)\s+"
    r"(?P<act>\w+ing\b.*)$",
    re.IGNORECASE,
)
_INTENT_WANT = lazy(
    "^" + AUX + r"(?:want|wants|would like|would love)\s+(?P<act>(?:a|an|another)\s+.+)$", re.I
)
_INTENT_PROGRESSIVE = lazy(
    r"^(?:am|is|are)\s+(?:(?:\w+ly|also|finally|soon|now)\s+)*(?P<act>(?:moving|relocating|getting married"
    r"|having a baby|retiring|quitting|starting|adopting|buying|selling|visiting|flying|traveling|travelling"
    r"|heading|leaving|going|taking|running|getting)\b.*)$",
    re.IGNORECASE,
)
_ALWAYS_PLANS = frozenset(
    {"moving", "relocating", "retiring", "quitting", "getting married", "having a baby"}
)
_INTENT_END = lazy(
    "^"
    + AUX
    + r"(?:decided not to|not going to|changed my mind about|gave up on|cancelled|canceled|called off"
    r"|postponed|no longer planning to|not planning to)\s+(?P<act>.+)$",
    re.IGNORECASE,
)
_ACT_CUT = lazy(
    r"(?<!\s)\s*[,;:!?()]|\.(?:\s|$)|(?<!\s)\s+(?:because|since|so that|so|but|when|while|after|before|until"
    r"|next|this|last|on|in|by|soon|someday|one day|eventually|tomorrow|tonight|today|at some point|and then|if|or)\b",
    re.IGNORECASE,
)
_GO_TO_NP = lazy(
    r"^(?:the|a|an|my|our|his|her|(?-i:[A-Z])\w*|school|work|college|university|church|class|bed|town|dinner"
    r"|lunch|practice|therapy|camp|visit)\b",
    re.IGNORECASE,
)
_CONJUNCT = lazy(r",\s*(?:and\s+)?(?:I\s+)?|(?<!\s)\s+and\s+(?:I\s+)?", re.IGNORECASE)
_SPEAKER_CLAUSE = lazy(r"(?:,|(?<!\s)\s+and)\s+I\s+(?=am\b|have\b|work\b|live\b|moved\b|started\b)")
_REPORTED = lazy(r"^(?:\w+\s+)?told (?:me|us|User)\s+(?:that\s+)?(?:they|he|she)\s+(?:are|is)\s+", re.IGNORECASE)
_DROP = frozenset({"a", "an", "the", "my", "our", "some", "their", "his", "her"})
_AUX_WORDS = words(
    """am is are was were have has had will would do does did been be being not never just to going"""
)


class FactKind(enum.StrEnum):
    """A state holds now; an intention is planned; an ending closes a value that held before."""

    STATE = "state"
    INTENT = "intent"
    END = "end"


@dataclass(frozen=True)
class Fact:
    """One slot fact. ``value`` is None for an ending that names no value ("I quit my job")."""

    subject: str
    attribute: str
    value: str | None
    single: bool
    kind: FactKind = FactKind.STATE

    @property
    def slot(self) -> str:
        return f"{self.subject}/{self.attribute}"


def plan_value(act: str) -> str | None:
    """A plan's normalised value: the action, cut before times and reasons, without determiners."""
    if match := _ACT_CUT.search(act):
        act = act[: match.start()]
    words = [w for w in re.findall(r"[\w'-]+", act.lower()) if w not in _DROP]
    return " ".join(words[:6]) or None


def _negated(match: re.Match[str]) -> bool:
    aux = (match.groupdict().get("aux") or "").lower()
    return bool(set(aux.split()) & {"not", "never"}) or "no longer" in aux


def _intention(rest: str, tense: Tense) -> tuple[str | None, FactKind] | None:
    if match := _INTENT_GOAL.match(rest):
        return plan_value(match.group("act")), FactKind.INTENT
    if match := _INTENT_END.match(rest):
        return plan_value(match.group("act")), FactKind.END
    if (match := _INTENT_TO.match(rest)) and not _negated(match):
        act = match.group("act")
        if match.group("verb").lower() == "going" and _GO_TO_NP.match(act):
            act = "go to " + act
        return plan_value(act), FactKind.INTENT
    if (match := (_INTENT_SLANG.match(rest) or _INTENT_GERUND.match(rest))) and not _negated(match):
        return plan_value(match.group("act")), FactKind.INTENT
    if (match := _INTENT_WANT.match(rest)) and not _negated(match):
        return plan_value("get " + match.group("act")), FactKind.INTENT
    if (match := _INTENT_PROGRESSIVE.match(rest)) and (
        (tense.future and not tense.past)
        or any(match.group("act").lower().startswith(p) for p in _ALWAYS_PLANS)
    ):
        act = match.group("act")
        if act.lower().startswith("going ") and not act.lower().startswith("going to "):
            return None
        return plan_value(act), FactKind.INTENT
    return None


def _kind(rule: Rule, match: re.Match[str], rest: str) -> FactKind | None:
    """What the auxiliaries make of a match: a state, an ending, or nothing (None)."""
    aux_text = (match.groupdict().get("aux") or "").lower()
    aux = set(aux_text.split())
    if rule.copula and not aux & {"am", "is", "are", "was", "were", "been"}:
        return None
    if aux & {"would", "will"}:
        return None
    negated = not rule.negation_ok and (aux & {"not", "never"} or "no longer" in aux_text)
    if negated:
        return FactKind.END if _ENDED.search(rest) else None
    if aux & {"was", "were", "had"} and not aux & {"have", "has"} and not rule.past_ok:
        return None
    return FactKind.END if rule.ends else FactKind.STATE


def _facts_from(rule: Rule, match: re.Match[str], subject: str, kind: FactKind) -> list[Fact]:
    groups = match.groupdict()
    attribute = rule.attribute
    if attribute == "favorite" and groups.get("x"):
        category = groups["x"].strip().lower().replace(" ", "_")
        attribute = f"favorite_{category[:-1] if category.endswith('s') and len(category) > 3 else category}"
    if attribute == "role":  # one rule for every role one person holds at a time: the slot is the role matched
        attribute = groups["role"].lower()
    if rule.fixed is not None:
        return [Fact(subject, attribute, rule.fixed, rule.single, kind)]
    raw = groups.get("v")
    if raw is None:
        return [Fact(subject, attribute, None, rule.single, kind)] if kind is FactKind.END else []
    items = split_list(raw) if attribute in _LIST_ATTRIBUTES else [raw]
    facts = []
    for item in items:
        value = rule.value(item)
        if value is None:
            continue
        if groups.get("n"):
            value = f"{value} {groups['n'].lower()}"
        facts.append(Fact(subject, attribute, value, rule.single, kind))
    return facts


def _apply(rules: tuple[Rule, ...], text: str, subject: str, search: bool = False) -> list[Fact]:
    facts: list[Fact] = []
    for rule in rules:
        matches = rule.pattern.finditer(text) if search else filter(None, [rule.pattern.match(text)])
        for match in matches:
            kind = _kind(rule, match, text)
            if kind is not None:
                facts.extend(_facts_from(rule, match, subject, kind))
    return facts


def _conjuncts(rest: str) -> list[str]:
    """Later predicates of the same subject: "left my job and joined Globex", "got promoted, I am a chef now".

    "told me they are married" reports the subject's own state, so it reads as "am married".
    """
    reported = _REPORTED.sub("am ", rest)
    pieces = _CONJUNCT.split(reported)
    return [piece for piece in pieces[0 if reported != rest else 1 :] if piece]


def extract_facts(text: str, mention: Mention | None, speaker: str, tense: Tense) -> list[Fact]:
    """All slot facts of one statement (``text`` contraction-expanded), without duplicates."""
    facts = _apply(PRE_RULES, text, speaker)
    if mention is not None:
        intention = _intention(mention.rest, tense)
        if intention is not None and intention[0]:
            facts.append(Fact(mention.subject, "plan", intention[0], False, intention[1]))
        else:
            facts.extend(_apply(STATE_RULES, mention.rest, mention.subject))
            for piece in _conjuncts(mention.rest):
                facts.extend(_apply(STATE_RULES, piece, mention.subject))
    if mention is None or mention.subject != speaker:
        # "they have made it official, I am design lead now": a later clause that is the speaker's own
        for piece in _SPEAKER_CLAUSE.split(text)[1:]:
            facts.extend(_apply(STATE_RULES, piece, speaker))
    stated = {f.slot for f in facts if f.kind is FactKind.STATE}
    # "I left my old job and joined Globex": the new value replaces the old one; no separate ending.
    facts = [f for f in facts if not (f.kind is FactKind.END and f.value is None and f.slot in stated)]
    facts.extend(_apply(MENTION_RULES, text, speaker, search=True))
    if mention is not None and not mention.first_person:
        facts.extend(_apply(MENTION_RULES, mention.rest, mention.subject, search=True))  # "her dog Max"
    # "My wife's name is Anna" names the speaker's partner: the partner fact says it, not a name of "user's wife".
    partners = {f.value for f in facts if f.slot == f"{speaker}/partner"}
    facts = [f for f in facts if not (f.attribute == "name" and f.value in partners)]
    # "Still obsessed with pho": a favourite is liked too; one memory, so a new favourite leaves no stale like.
    favourites = {(f.subject, f.value) for f in facts if f.attribute.startswith("favorite")}
    facts = [f for f in facts if not (f.attribute == "likes" and (f.subject, f.value) in favourites)]
    unique: dict[tuple[str, str | None, FactKind], Fact] = {}
    for fact in facts:
        unique.setdefault((fact.slot, fact.value, fact.kind), fact)
    return list(unique.values())


def first_verb(rest: str) -> str | None:
    """The main verb of a predicate, after auxiliaries and adverbs ("have finally adopted" → "adopted")."""
    words: list[str] = re.findall(r"[A-Za-z'-]+", rest)
    for word in words:
        lower = word.lower()
        if lower not in _AUX_WORDS and lower not in ADVERBS:
            return lower
    return None


def _slot_values(subject: str, ledger: Ledger) -> dict[str, set[str]]:
    """Current values per attribute of ``subject``, stored or proposed earlier in the episode."""
    found: dict[str, set[str]] = {}
    pairs = [(r.slot, r.value) for r in ledger.stored_subject(subject)]
    pairs += [(e.draft.slot, e.draft.value) for e in ledger.pending() if e.draft is not None]
    for slot, value in pairs:
        head, _, attribute = (slot or "").lower().partition("/")
        if head == subject.lower() and attribute:
            found.setdefault(attribute, set()).add((value or "").lower())
    return found


def resolve_fact(fact: Fact, ledger: Ledger) -> Fact:
    """Settle what a fact left open from what is known about its subject.

    "It's my new favourite" names no category: it is the subject's one known favourite category, if there is
    exactly one. "I'm still in Lisbon" where the subject lives in Lisbon confirms the residence, no trip.
    """
    if fact.kind is not FactKind.STATE or fact.attribute not in ("favorite", "location"):
        return fact
    known = _slot_values(fact.subject, ledger)
    if fact.attribute == "location":
        homes = known.get("residence", set())
        return replace(fact, attribute="residence") if (fact.value or "").lower() in homes else fact
    categories = [a for a in known if a.startswith("favorite_")]
    return replace(fact, attribute=categories[0]) if len(categories) == 1 else fact
