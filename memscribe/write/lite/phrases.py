"""The old value named inside the clause that replaces it: "the bear has replaced succession as my favourite
show", "oat milk instead of dairy", "a 2br for less than my brooklyn 1br".

:mod:`residue` leaves out whole clauses that say a value ended. These phrases put the old value in the same clause
as the new one, so the clause cannot go; the phrase naming the old value can. It is left out of the memory's
text only when its words name something an older statement of the same subject said (the words as said are
kept beside the memory by the writer), so a comparison with something never mentioned stays as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from memscribe.core.text import EMOJI
from memscribe.write.lite.lazy import LazyPattern, lazy
from memscribe.write.lite.lexicon import CLOSES_CLAUSE
from memscribe.write.lite.matching import content_tokens

__all__ = ["believed_values", "drop_old_phrases", "drop_replaced_clause"]

_END = r"(?=[,.;:!?)]|\s[—–-]\s|$)"
# "X has replaced Y as my favourite show" → "X is now my favourite show".
_REPLACED_AS = lazy(
    r"\b(?:has |have |had |just |finally )*replaced (?P<old>[^,.;!?]{1,40}?) as (?=(?:my|our|the)\b)", re.I
)
# "oat milk instead of dairy", "rather than the gym": the alternative left behind.
_INSTEAD_OF = lazy(r"(?:,|(?<!\s))\s*\b(?:instead of|rather than|in place of) (?P<old>[^,.;!?]{1,40}?)" + _END, re.I)
# "for less than my brooklyn 1br", "way bigger than our old place": a comparison with what was before.
_THAN_OLD = lazy(
    r"(?:,|(?<!\s))\s*\b(?:for )?(?:way |much |a lot |so )?(?:less|more|cheaper|pricier|better|bigger|smaller"
    r"|nicer|worse|closer|further|farther) than (?:my|our|the) (?:old |last |previous )?"
    r"(?P<old>[^,.;!?]{1,40}?)" + _END,
    re.I,
)
# "I've been telling everyone she's a beagle but the DNA test says…": what was believed, then what is true.
_BELIEVED = lazy(
    r"\b(?:I(?:'ve| have) been (?:telling|saying to) (?:everyone|people|you|friends)|I(?:'ve| have)? always (?:said"
    r"|thought|assumed)|I (?:thought|assumed|was sure)|everyone (?:thinks|thought|assumes)|I told (?:you|everyone))"
    r"(?: that)? (?P<old>[^,.;!?]{1,60}?),? but\s+",
    re.IGNORECASE,
)
# "we're in wellington not auckland 😅", "je suis à grenoble moi pas lyon": the value put right, named after "not".
_NOT_OLD = lazy(
    r"(?:,\s*|(?<=\S)\s+)\b(?:not|pas|nicht|não)\s+(?:the |a |an |le |la |les |l'|der |die |das |o )?"
    r"(?P<old>[^\W_][\w'-]*(?:\s+[^\W_][\w'-]*){0,2}?)" + CLOSES_CLAUSE,
    re.IGNORECASE,
)
_RULES: tuple[tuple[LazyPattern, Callable[[re.Match[str]], str]], ...] = (
    (_REPLACED_AS, lambda m: "are now " if re.match(r"have\b", m.group(0), re.IGNORECASE) else "is now "),
    (_INSTEAD_OF, lambda m: ""),
    (_THAN_OLD, lambda m: ""),
    (_BELIEVED, lambda m: ""),
    (_NOT_OLD, lambda m: ""),
)


def drop_old_phrases(text: str, older: Iterable[str]) -> str:
    """``text`` without the phrases that name a value of ``older`` (older statements of its subject) as the
    one replaced or compared with; unchanged when none does."""
    held = frozenset().union(*(content_tokens(o) for o in older))
    if not held:
        return text
    out = text
    for pattern, replacement in _RULES:

        def swap(m: re.Match[str], replacement: Callable[[re.Match[str]], str] = replacement) -> str:
            named = content_tokens(m.group("old")) & held
            return replacement(m) if any(not w.isdigit() for w in named) else m.group(0)

        out = pattern.sub(swap, out)
    out = re.sub(r"\s{2,}", " ", out).strip().lstrip(",;: ")  # nothing left over from a phrase that opened it
    return out if content_tokens(out) else text


# Clause ends inside one statement: punctuation, an emoji, a spaced dash.
_PIECE_END = re.compile(
    r"(?:(?<!\s)\s+)?(?:[,;.!?。，；！？]+|" + EMOJI + r"+\ufe0f?|\s[—–-]\s)\s*"
)  # leading whitespace only where a run of it starts: a long run is scanned once, not once per position
_INSTEAD = lazy(r"\binstead\b(?!\s+of)|\bthese days\b|\bnow\b(?! that)", re.IGNORECASE)
_PLAIN_INSTEAD = lazy(r"\binstead\b(?!\s+of)", re.IGNORECASE)
_WEAK = frozenset({"new", "year", "month", "week", "time", "thing", "good", "back", "really", "still", "day"})


def _telling(text: str) -> set[str]:
    return {w for w in content_tokens(text) if len(w) >= 4 and not any(c.isdigit() for c in w) and w not in _WEAK}


def drop_replaced_clause(text: str, on_topic: Iterable[str]) -> str:
    """ "after 6 weeks of keto 😬 doctor wants me on a mediterranean diet instead": a clause that says "instead"
    replaces what the other clauses of the statement name; a clause naming a value of ``on_topic`` (older
    statements of the subject on its topics) that the "instead" clause does not name is left out."""
    if not _PLAIN_INSTEAD.search(text):
        return text
    held = set().union(*(_telling(o) for o in on_topic))
    if not held:
        return text
    bounds = [(m.start(), m.end()) for m in _PIECE_END.finditer(text)]
    starts = [0, *(end for _, end in bounds)]
    ends = [*(start for start, _ in bounds), len(text)]
    pieces = [(a, b) for a, b in zip(starts, ends, strict=True) if text[a:b].strip()]
    instead = [i for i, (a, b) in enumerate(pieces) if _INSTEAD.search(text[a:b])]
    if not instead:
        return text
    kept_words = set().union(*(_telling(text[a:b]) for i, (a, b) in enumerate(pieces) if i in instead))
    dropped = [
        (a, b)
        for i, (a, b) in enumerate(pieces)
        if i not in instead and i < max(instead) and (_telling(text[a:b]) & held) - kept_words
    ]
    if not dropped:
        return text
    out = text
    for a, b in reversed(dropped):
        tail = re.match(r"\s*(?:[,;]+|" + EMOJI + r"+\ufe0f?)?\s*", out[b:])
        out = out[:a] + out[b + (tail.end() if tail else 0) :]
    return out.strip() if content_tokens(out) else text


def believed_values(text: str, older: Iterable[str]) -> set[str]:
    """The words of what ``text`` says was only believed ("been telling everyone she's a beagle but …") that
    ``older`` statements said and the rest of ``text`` does not: the values it corrects."""
    held = set().union(*(_telling(o) for o in older))
    out: set[str] = set()
    for m in _BELIEVED.finditer(text):
        rest = _telling(text[: m.start()] + " " + text[m.end() :])
        out |= (_telling(m.group("old")) & held) - rest
    return out
