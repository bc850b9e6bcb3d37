"""First person to third person, so a memory reads the same whoever retrieves it.

"I live in Seattle" from an unnamed user becomes "User lives in Seattle"; from Caroline in a group chat,
"Caroline lives in Seattle". The first "I" takes the speaker's name and its verb is conjugated; later ones
become "they", whose verbs need no change. In a two-person chat "you" is the other speaker.
"""

from __future__ import annotations

import re
from datetime import date

from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import ADVERBS, IRREGULAR_PAST, MODALS, words
from memscribe.write.lite.timeref import Timing

__all__ = ["conjugate_third", "lead_with_date", "to_third_person"]

_TOKEN = lazy(r"[A-Za-z]+(?:'[a-z]+)?|[^A-Za-z\s]+|\s+")
_FIRST_FORMS = {
    "I'm": ("{d} is", "they're"), "I've": ("{d} has", "they've"), "I'd": ("{d} would", "they'd"),
    "I'll": ("{d} will", "they'll"), "my": ("{d}'s", "their"), "mine": ("{d}'s", "theirs"),
    "me": ("{d}", "them"), "myself": ("{d}", "themself"),
}  # fmt: skip
_SECOND_FORMS = {
    "you're": "{d} is", "you've": "{d} has", "you'll": "{d} will", "you'd": "{d} would", "your": "{d}'s",
    "yours": "{d}'s", "yourself": "{d}", "you": "{d}",
}  # fmt: skip
_THIRD_SPECIAL = {
    "am": "is", "have": "has", "do": "does", "don't": "doesn't", "haven't": "hasn't", "go": "goes",
    "are": "is", "were": "was", "aren't": "isn't", "weren't": "wasn't",
}  # fmt: skip
_THEY_SPECIAL = {"am": "are", "was": "were", "wasn't": "weren't"}
_WE = lazy(r"\b(?:we|we're|we've|we'll|we'd|our|ours|us|ourselves)\b", re.IGNORECASE)


def conjugate_third(verb: str) -> str:
    """The third-person singular of a present-tense verb; other words are returned unchanged."""
    lower = verb.lower()
    if lower in _THIRD_SPECIAL:
        return _THIRD_SPECIAL[lower]
    if lower in MODALS or lower in IRREGULAR_PAST or lower.endswith(("ed", "n't")) or not lower.isalpha():
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _next_word(tokens: list[str], start: int) -> int | None:
    """Index of the verb after a subject, skipping adverbs ("I really love" → "love")."""
    for index in range(start, len(tokens)):
        token = tokens[index]
        if token.isspace():
            continue
        if not token[0].isalpha():
            return None
        if token.lower() not in ADVERBS:
            return index
    return None


def _rewrite(tokens: list[str], forms: dict[str, tuple[str, str]], display: str) -> bool:
    """Replace first-person tokens in place; returns whether any was found."""
    seen = False
    for index, token in enumerate(tokens):
        key = token if token in ("I", "I'm", "I've", "I'd", "I'll") else token.lower()
        if key == "I":
            nxt = _next_word(tokens, index + 1)
            if nxt is not None:
                table = _THEY_SPECIAL if seen else None
                word = tokens[nxt]
                tokens[nxt] = table.get(word.lower(), word) if table is not None else conjugate_third(word)
            tokens[index] = "they" if seen else display
            seen = True
        elif key in forms:
            tokens[index] = forms[key][1] if seen else forms[key][0].format(d=display)
            seen = True
    return seen


def _second_person(tokens: list[str], addressee: str) -> None:
    for index, token in enumerate(tokens):
        key = token.lower()
        if key not in _SECOND_FORMS:
            continue
        if key == "you":
            nxt = _next_word(tokens, index + 1)
            if nxt is not None and tokens[nxt].lower() in ("are", "were", "have", "do", "don't", "aren't"):
                tokens[nxt] = conjugate_third(tokens[nxt])
        tokens[index] = _SECOND_FORMS[key].format(d=addressee)


def to_third_person(text: str, display: str, addressee: str | None = None) -> str:
    """``text`` with the speaker's first person replaced by ``display`` (and "you" by ``addressee``)."""
    tokens = _TOKEN.findall(text)
    _rewrite(tokens, {k: v for k, v in _FIRST_FORMS.items()}, display)
    if addressee:
        _second_person(tokens, addressee)
    out = "".join(tokens)
    out = out[:1].upper() + out[1:]
    if _WE.search(out):
        out = f"{display}: {out}"  # "we" is the speaker and others; naming the speaker keeps it anchored
    return out


_LOWER_FIRST = words("""my we our the a an it this that there he she they his her their""")
_JOINED = lazy(r",|\b(?:and|but|so|because|which|who|when|while|since|although|after|before)\b", re.I)
_CLAUSE_END = lazy(r"^\s*(?:$|[,;.!]|(?:and|but|so|because|which|where|with|after|before|while)\b)", re.I)


def lead_with_date(text: str, timing: Timing, anchor: date) -> str:
    """Move a past date that closes the first clause to the front, so the memory leads with when it happened:
    "I went to a support group on 2 June 2023" → "On 2 June 2023 I went to a support group"."""
    if len(timing.refs) != 1 or timing.refs[0].day > anchor:
        return text
    phrase = timing.refs[0].phrase
    position = text.find(" " + phrase)
    if phrase.split(" ", 1)[0] not in ("on", "in") or position <= 0:
        return text
    head, tail = text[:position].rstrip(" ,"), text[position + 1 + len(phrase) :]
    if not _CLAUSE_END.match(tail):
        return text
    if _JOINED.search(head):
        return text  # the date may belong to a later clause ("X, and she moved here in 1990")
    first, _, rest = head.partition(" ")
    if first.lower() in _LOWER_FIRST:
        head = f"{first.lower()} {rest}"
    tail = tail.lstrip(",").rstrip(" .!") if tail.strip(" .!,") else ""
    tail = tail if not tail or tail.startswith(" ") else " " + tail
    return f"{phrase[0].upper()}{phrase[1:]} {head}{tail}"
