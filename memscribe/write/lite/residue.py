"""The old value left in a statement that replaces it: "I left Genentech for Moderna", "sad to leave Milan",
"not lactose at all", "Megan Pryce → Megan Doyle".

A statement that announces a change often names the value that stopped holding. Kept as the memory's text,
that clause makes the current memory carry the stale value. Here the statement is cut at clause boundaries;
a clause that says something ended (an end or negation cue, or the left side of an arrow) and names a word
that an older current statement of the same subject holds, and that no other clause repeats, is left out of
the memory's text. The words as said are kept beside it by the writer. Nothing is left out when no other
clause with content would remain, so a statement is never emptied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from memscribe.core.text import EMOJI
from memscribe.read.topics import has_cjk, topics_of
from memscribe.write.lite.cues import changes, end_cues, ends
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import CAR_BRANDS, CJK_HOME_GIVEN_UP, LANGUAGES
from memscribe.write.lite.matching import cjk_pairs, content_tokens
from memscribe.write.lite.segment import run_on_breaks

__all__ = ["drop_old_values", "ended_values", "still_holds"]

# Clause boundaries: punctuation, dashes, arrows, and "and"/"but"/"so" that open a new clause.
# An emoji closes a clause too: "dishoom has officially been dethroned 👑 kricket is my new favourite".
_BOUNDARY = lazy(
    r"((?<!\s)\s*(?:(?:[;!?。，；！？、\uFE0F\u200D]|(?<!\d)[,.:]|[,.:](?!\d)|" + EMOJI + r")+"
    r"|\s[—–-]+\s|→|->|\s\((?=\w)|\)\s?)\s*"
    r"|(?<!\s)\s+(?:but|so|and|AND|though|although|while|whereas)\s+(?=(?:i|i'm|i've|we|we're|my|our|it|it's|the|he|she"
    r"|they|now|then|that|this|there)\b)"
    r"|(?<!\s)\s+(?:but|so|though)\s+"
    r"|(?<!\s)\s+and\s+(?=(?:switched|moved|started|joined|went|took up|changed|now|picked up|bought|got|adopted"
    r"|found|signed)\b))",
    re.IGNORECASE,
)
# What says a value stopped holding, inside one clause.
_ENDED = lazy(
    r"\b(?:no longer|anymore|any more|not|no|never|nothing like|isn't|wasn't|aren't|ex|former|formerly|used to"
    r"|left|leave|leaving|quit|quitting|resigned|stepped down|stepping down|over|done with|dethroned|replaced"
    r"|instead of|rather than|sorry|goodbye|bye|got out of|moved out|moving out|less than|sold"
    r"|gave up|stopped|paused|on hold|passed away|died|rip|last day|is dead|is done)\b"
    r"|离职|辞职|离开|不再|不是|告别|以前|之前|原来|从|搬离|搬走了|" + CJK_HOME_GIVEN_UP,
    re.IGNORECASE,
)
_DATE = lazy(
    r"\b(?:on |in |since )?(?:\d{1,2} )?(?:January|February|March|April|May|June|July|August|September|October"
    r"|November|December)(?: \d{1,2})?(?:,? (?:19|20)\d{2})?\b|\b\d{4}-\d{2}-\d{2}\b"
)
_MONEY = lazy(r"[£$€¥]\s?\d[\d,.]*k?\b|\b\d[\d,.]*\s?(?:k|grand|quid|bucks|euros?|dollars?|pounds?)\b", re.I)
_BUT_SO = lazy(r"^\s*(?:but|so)\b", re.IGNORECASE)  # "… was 'Swift Lightning' 💀 but we call him pilot"
_WAS = lazy(r"\b(?:was|were|used to be)\b", re.IGNORECASE)
_NOW = lazy(
    r"\bnow\b(?! that)|\b(?:we|I|everyone) (?:call|calls|are calling|started calling) (?:him|her|it|them)\b"
    r"|\brenamed\b|\bgoes by\b",
    re.IGNORECASE,
)
_QUOTES = re.compile(r"['‘’\"“”]+(?=\W|$)|(?<!\w)['‘’\"“”]+")
_OVER = lazy(r"\b(?:is|'s|are|was) (?:so |totally |officially )?(?:over|dead|done)\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]+")
# Where what ended gives way to what comes next: "switched from violin to cello", "sold the civic to a neighbour".
_ONWARD = re.compile(r"(?<!\s)\s+(?:to|into|for)\s+", re.IGNORECASE)  # a blank run tried from its start only
_PLACED = lazy(r"\b(?:in|at|from|for|with|near|to)\s+(?:the\s+)?([^\W\d_]{4,})")
_LEADING = lazy(r"^(?:but|though|although|while|whereas|and)\b[\s,]*", re.IGNORECASE)
_WEAK = frozenset(
    {
        "like",
        "love",
        "get",
        "got",
        "go",
        "went",
        "make",
        "made",
        "day",
        "week",
        "month",
        "year",
        "time",
        "lol",
        "tbh",
        "ngl",
        "out",
        "ok",
        "okay",
        "yeah",
        "today",
        "tonight",
        "now",
        "new",
        "old",
        "back",
        "good",
    }
)


# A time of day, one spelling for each: "6:30am", "6.30" and "6:30" are "6:30"; "6am" is "6:00".
_CLOCK = lazy(r"\b(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s?(?P<ap>am|pm)?\b", re.IGNORECASE)


def _times(clause: str) -> set[str]:
    return {f"{m.group('h')}:{m.group('m') or '00'}" for m in _CLOCK.finditer(clause) if m.group("m") or m.group("ap")}


def _marks(clause: str) -> set[str]:
    """The words of a clause that can name a value: content words, times of day and CJK character pairs."""
    times = _times(clause)
    plain = _CLOCK.sub(lambda m: " " if m.group("m") or m.group("ap") else m.group(0), clause) if times else clause
    words = {w for w in content_tokens(_QUOTES.sub(" ", plain)) if w not in _WEAK and len(w) >= 3}
    return words | times | (cjk_pairs(clause) if has_cjk(clause) else set())


def _pieces(text: str) -> list[tuple[str, str]]:
    """``(clause, boundary after it)`` in order; joining them gives ``text`` back."""
    out: list[tuple[str, str]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if match.start() <= start:
            continue
        out.extend(_run_on(text[start : match.start()], match.group(0)))
        start = match.end()
    out.extend(_run_on(text[start:], ""))
    return out


def _run_on(clause: str, after: str) -> list[tuple[str, str]]:
    """``(clause, after)`` cut where another clause runs on with no punctuation between ("… team lead I'm …")."""
    out, start = [], 0
    for begin, end in run_on_breaks(clause):
        out.append((clause[start:begin], clause[begin:end]))
        start = end
    return [*out, (clause[start:], after)]


def _values(text: str) -> set[str]:
    """Marks that name a value whatever the topic: capitalised words after the first, and CJK pairs. In text
    typed without capitals, the word after "in", "at", "from" … stands in for a name ("from milan")."""
    named = " ".join(m.group(0) for m in _CAPITALISED.finditer(text) if m.start() > 0 and m.group(0) != "I")
    if not named and not has_cjk(text):
        named = " ".join(_PLACED.findall(text))
    return _marks(named) | (cjk_pairs(text) if has_cjk(text) else set())


def drop_old_values(text: str, on_topic: Iterable[str], others: Iterable[str] = (), own: Iterable[str] = ()) -> str:
    """``text`` without the clauses that name as ended a value held by ``on_topic`` (older statements on its
    topics) or a name or CJK value held by ``others`` (older statements of the same owner); a clause that
    plainly ends something ("quit", "is over") also by any word of ``own`` (older statements of its subject)."""
    held: set[str] = set()
    for old in on_topic:
        held |= _marks(old)
    for old in others:
        held |= _values(old)
    owned = held.union(*(_marks(old) for old in own))
    pieces = _pieces(text)
    if len(pieces) < 2:
        return text
    marks = [_marks(clause) for clause, _ in pieces]
    dropped: set[int] = set()
    replaced: set[int] = set()  # what the statement itself says was replaced: no further check
    said_now = [_NOW.search(clause) is not None for clause, _ in pieces]
    for i, (clause, after) in enumerate(pieces):
        following = pieces[i + 1][0] if i + 1 < len(pieces) else ""
        said_was = _WAS.search(clause) is not None
        if after.strip() in ("→", "->") and i + 1 < len(pieces) and marks[i + 1] - marks[i]:
            replaced.add(i)  # "Megan Pryce → Megan Doyle": the left side of an arrow is what it was
            continue
        turns = after.strip().lower() in ("but", "so") or _BUT_SO.match(following) is not None
        if said_was and turns and any(said_now[i + 1 : i + 3]):
            replaced.add(i)  # "my starter was called Doughnald but ... he's Bread Pitt now": what it was
            continue
        # when it ended or what it fetched is no new value: "last day at X was on 28 April", "sold it for £3.2k"
        undated = _marks(_MONEY.sub(" ", _DATE.sub(" ", clause)))
        # "gym's in the evenings now, the 6:30am thing was destroying me": what was, beside what is now
        was = said_was and any(now for j, now in enumerate(said_now) if j != i)
        if not (_ENDED.search(clause) or was) or any(ch.isdigit() for w in undated - held for ch in w):
            continue  # no end said, or a new number said with it
        elsewhere = set().union(*(m for j, m in enumerate(marks) if j != i))
        known = owned if ends(clause) or _OVER.search(clause) else held
        if (marks[i] & known) - elsewhere:
            dropped.add(i)
    dropped |= _ended_in_passing(pieces, marks, dropped | replaced)
    kept = [i for i in range(len(pieces)) if i not in dropped | replaced]
    if not (dropped | replaced) or not any(marks[i] - owned for i in kept if marks[i]):
        return text  # nothing to leave out, or nothing new would be left: keep the statement whole
    rest = " ".join(pieces[i][0] for i in kept)
    gone = " ".join(pieces[i][0] for i in dropped)
    if dropped and not (changes(rest) or topics_of(rest) & topics_of(gone)):
        # "I gave up knitting, it wasn't for me": the ending is the news, nothing replaces it
        return _join(pieces, replaced) if replaced else text
    return _join(pieces, dropped | replaced)


# What plainly gives a thing up, said beside what takes its place: "got a pixel 8, finally ditching my iphone 12".
_GIVEN_UP = lazy(
    r"\b(?:no more|ditch(?:ed|ing)?|dump(?:ed|ing)|dropp(?:ed|ing)|(?:good)?bye(?:-bye)?|instead of|rather than"
    r"|got rid of|sold|gave up|giving up|quit|quitting)\b",
    re.IGNORECASE,
)


def _ended_in_passing(pieces: list[tuple[str, str]], marks: list[set[str]], dropped: set[int]) -> set[int]:
    """Clauses that give up a thing while another clause of the statement says what took its place on the same
    topic, with a word of its own: the thing given up is named here for the first time, so no older statement
    holds it, yet it is no current value ("mateo started kindergarten, no more daycare!")."""
    out: set[int] = set()
    for i, (clause, _) in enumerate(pieces):
        found = _GIVEN_UP.search(clause)
        if i in dropped or found is None or _NOT_ENDED.search(clause[max(0, found.start() - 24) : found.start()]):
            continue
        topics = topics_of(clause)
        others = [j for j in range(len(pieces)) if j != i and j not in dropped and marks[j]]
        if topics and any(topics_of(pieces[j][0]) & topics and marks[j] - marks[i] for j in others):
            out.add(i)
    return out


# A conjunction left at the end once the clause it led to goes: "we bought a house so <dropped>!".
_DANGLING = re.compile(r"(?<=\w)\s+(?:so|but|and|though|although|because|while|whereas)$", re.IGNORECASE)

# Words that only lead into the clause after them: left alone when that clause goes ("Also, I gave up coffee.").
_LEAD_INS = frozenset({"also", "and", "plus", "so", "but", "anyway", "btw", "oh", "well", "ok", "okay", "then"})


def _with_asides(pieces: list[tuple[str, str]], dropped: set[int]) -> set[int]:
    """``dropped`` with the aside in brackets that follows a dropped clause, up to its closing bracket: "sold the
    golf for £3.2k (failed MOT and all lol)" goes whole, never leaving "failed MOT and all lol) and …"."""
    out = set(dropped)
    for i in sorted(dropped):
        if "(" not in pieces[i][1]:
            continue
        for j in range(i + 1, min(i + 8, len(pieces))):
            if ")" in pieces[j][1]:
                out.update(range(i + 1, j + 1))
                break
    return out


def _join(pieces: list[tuple[str, str]], dropped: set[int]) -> str:
    dropped = _with_asides(pieces, dropped)
    parts: list[str] = []
    for i, (clause, after) in enumerate(pieces):
        if i in dropped:
            if parts and parts[-1].strip(" ,;:—–-.!?").lower() in _LEAD_INS:
                parts.pop()  # "Also, <dropped>." leaves no "Also."
            if parts and re.search(r"[.!?。！？]", after) and not re.search(r"[.!?。！？]\s*$", parts[-1]):
                # the sentence ends with the dropped clause: the clause before it ends the sentence now
                parts[-1] = _DANGLING.sub("", parts[-1].rstrip(" ,;:—–-")) + after.strip(" ") + " "
            continue
        if i - 1 in dropped:
            clause = _LEADING.sub("", clause.lstrip())  # "but" went with the clause it contrasted
        parts.append(clause + after)
    return _DANGLING.sub("", re.sub(r"\s{2,}", " ", "".join(parts)).strip(" ,;:—–-"))


def still_holds(text: str, changed: Callable[[str], bool]) -> str | None:
    """What an older statement still says once the clauses ``changed`` names are gone: "adopting a rescue
    greyhound next week! the shelter calls him Dusty" after a rename keeps "adopting a rescue greyhound next
    week!", "I live in Seattle and I work at Boeing" after a move keeps "I work at Boeing". None when no
    clause goes, or when what stays names no topic of its own (then the statement is closed whole)."""
    pieces = _pieces(text)
    if len(pieces) < 2:
        return None
    dropped = {i for i, (clause, _) in enumerate(pieces) if clause.strip() and changed(clause)}
    if not dropped or len(dropped) == len(pieces):
        return None
    rest = _join(pieces, dropped)
    return rest if topics_of(rest) and len(content_tokens(rest)) >= 3 else None


# Words of an end clause that say when or how it ended, not what ended.
_NOT_VALUES = lazy(
    r"\b(?:said|put|to sleep|last|final|january|february|march|april|may|june|july|august|september|october"
    r"|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|yesterday|week"
    r"|weekend|month|year|night|morning|evening|afternoon|tonight|ago)\b",
    re.IGNORECASE,
)


# End cues whose subject is what ended: "biscuit died", "our old cat Milo passed away", "pepper ran away".
_ENDS_ITS_SUBJECT = lazy(r"died|passed away|ran away|crossed the rainbow bridge", re.IGNORECASE)


# Just before an end cue: it is negated or only imagined ("I won't quit", "never gave up", "would quit").
_NOT_ENDED = lazy(
    r"\b(?:not|never|won't|wouldn't|don't|didn't|can't|cannot|shouldn't|would|could|might|if|gonna not|almost"
    r"|nearly)"
    r"(?: (?:ever|just|really|even|want to|going to|gonna|be))*\s*$",
    re.IGNORECASE,
)


def ended_values(text: str) -> set[str]:
    """The words that name what ended, just after an end cue ("last day at target was friday" → {"target"},
    "sold the civic to my neighbour" → {"civic"}): content words of three letters or more among the next four
    words of the clause, without topic cues, numbers or dates; a negated or imagined end ("I won't quit on my
    dreams") names nothing."""
    out: set[str] = set()
    for match in end_cues(text):
        if _NOT_ENDED.search(text[max(0, match.start() - 24) : match.start()]):
            continue  # "I won't quit on my dreams", "anyone else would quit": nothing ended
        after = _ONWARD.split(re.split(r"[,;:!?.。，；！？—–()]", text[match.end() :], maxsplit=1)[0], maxsplit=1)[0]
        if _ENDS_ITS_SUBJECT.compiled.fullmatch(match.group(0)):  # "biscuit died on sunday": what ended comes first
            before = re.split(r"[,;:!?.。，；！？—–()]", text[: match.start()])[-1].split()
            after = " ".join(before[-1:] + [w for w in before[-3:-1] if w[:1].isupper()])
        # The cue may name what ended: "put Clover to sleep", "had to put pepper down".
        named = " ".join([*_CAPITALISED.findall(match.group(0)), *(g for g in [match.groupdict().get("put")] if g)])
        near = named + " " + " ".join(after.split()[:4])
        plain = _NOT_VALUES.sub(" ", near)
        kept = (w for w in _marks(plain) if not any(ch.isdigit() for ch in w) and not has_cjk(w))
        switched = match.group(0).lower().endswith("from")
        # A make is a cue and a value ("the civic"); so is a language ("dropped spanish") and what one switched from.
        out |= {w for w in kept if switched or w in CAR_BRANDS or w in LANGUAGES or not topics_of(w)}
    return out
