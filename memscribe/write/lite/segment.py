"""Split an episode into statements and attribute each to its speaker.

Sentences are split by punctuation with an abbreviation guard; sentences that join two first-person
clauses ("I moved to Sydney and I started at Atlassian") are split again so each clause can carry its own
fact. Speakers come from ``Message.name`` in multi-party chats, otherwise from the role.

A participant named only to address them ("Wow, Caroline!", "Sounds great, Mel.") is left out of the
statement: the speaker is in the memory's fields, and the name of whoever is spoken to would make every memory
of a two-person chat look like it is about that person. A bracketed attachment ("[shares a photo: a dog on a
beach]") stays with the sentence it illustrates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from memscribe.core.clock import ensure_utc
from memscribe.core.records import Episode, Message, Owner
from memscribe.core.text import STOPWORDS
from memscribe.read.topics import MULTI_TOPICS, topics_of
from memscribe.write.lite.cues import changes, ends
from memscribe.write.lite.language import someone_else
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import NOT_NAMES, RELATION_MODS, RELATION_WORD, words

__all__ = [
    "Speaker", "Statement", "Unit", "forget_names", "group_units", "run_on_breaks", "segment_episode", "sentences_of",
    "split_sentences",
]

_ABBREVIATIONS = words(
    """dr mr mrs ms st jr sr prof vs etc e.g i.e inc ltd co jan feb mar apr jun jul aug sep sept oct nov
    dec u.s u.k a.m p.m no mt ft approx dept est"""
)
# Sentence ends, line breaks (with the bullet or number a list line opens with) and an inline bullet glyph. A
# spaced hyphen inside a line is a dash ("a new project - a thriller set in Ohio"): it joins, it does not end.
_BOUNDARY = lazy(
    r"(?:[.!?]+[\"')\]]*|\u2026)\s+|[\u3002\uff01\uff1f\uff1b]+[\u201d\u300d)]*\s*|\n+\s*(?:[-*•]\s+|\d+[.)]\s+)?"
    r"|(?<!\s)\s+•\s+(?=\S)"
)
_CLAUSE = lazy(
    r"(?<!\s)(?:\s*[,;])?\s+(?:and|but|so|plus)\s+(?=(?:i|i'm|i've|i'd|i'll|we|we're|we've|my|he|she|he's|she's)\b)"
    r"|(?<!\s)\s*;\s+",
    re.IGNORECASE,
)
_FINITE = lazy(
    r"\b(?:i|we|am|is|are|was|were|has|have|had|do|does|did|\w{3,}ed|lives|works|loves|likes|moved|got|went)\b",
    re.IGNORECASE,
)
# A clause run on after another without a full stop: a first-person one ("stepped down from team lead I'm a
# senior engineer again"), a request ("jake and I broke up please forget about him") or a change told without its
# subject ("the nashville experiment is over moved back to atlanta"). The word before must not tie it to what
# came before ("so I", "think I", "the place I", "has moved").
_RUN_ON = lazy(
    r"(?<=[\w)])\s+(?=(?-i:I|I'm|I've|I'll|I'd)\s|(?i:we're|we've|he's|she's|they're|please|pls)\s"
    r"|(?P<verb>(?i:moved|switched|quit|started|joined|sold|bought|adopted|finished|passed|stopped|changed))\s)"
)
_TIES = words(
    """and but or nor so because cause cuz coz since when whenever if unless until till though although while as
    than that what where who whom whose which why how whether like before after once the a an this these those
    every each all any only even just also already finally recently officially actually really not never to of
    for with by from i me we us you he him she her they them it my our your his their have has had was were is
    are am be been being do does did don't doesn't didn't will would could should can got what's where's there's
    i'm we're i've we've sure glad"""
)
# Saying or thinking, up to three words before: what follows is what was said ("telling everyone she's a beagle").
_SAYING = words(
    """tell tells telling told say says saying said think thinks thinking thought know knows knew guess hope hoped
    feel felt wish wished mean meant realise realised realize realized heard hear swear promise promised"""
)
_LAST_PART = lazy(r"[,;:]\s")
_CLAUSE_END = words("now anymore lol lmao haha ago today yesterday tonight tho btw ok okay")
_LOWER_I = lazy(r"(?<![\w'])i(?=(?:'[a-z]+)?\b(?![.]))")
_ATTACHMENT = lazy(r"^\[[^\]]{3,}\]$")
_OPENER = (
    r"(?:hi|hey|hello|hiya|yo|oh|ah|aw+|wow|whoa|woah|omg|thanks|thank you|thx|congrats|congratulations|yes|yeah"
    r"|yep|yup|no|ok|okay|sure|dear|well|sorry|haha+|lol|woo+hoo+|yay|hooray)"
)


@dataclass(frozen=True)
class Speaker:
    """Who said a statement: the subject first-person words stand for, its display name and its owner."""

    subject: str
    display: str
    owner: Owner
    addressee: str | None = None  # the other person in a two-person chat, for "you"


@dataclass(frozen=True)
class Statement:
    """One sentence or clause, attributed, timed and located in its episode."""

    text: str
    speaker: Speaker
    message_index: int
    at: datetime
    position: int
    sentence: int = 0  # statements of one sentence share it: a memory keeps the whole sentence
    whole: str = ""  # the sentence the statement was split from
    runs_on: bool = False  # the sentence goes on from the one before with no full stop between (``_RUN_ON``)


@dataclass(frozen=True)
class Unit:
    """What one memory keeps: a sentence, with the short sentences around it, and its statements."""

    statements: tuple[Statement, ...]

    @property
    def first(self) -> Statement:
        return self.statements[0]

    def text(self, leave_out: frozenset[int] = frozenset()) -> str:
        """The unit's sentences as written, without those numbered in ``leave_out``."""
        wholes = dict.fromkeys((s.sentence, s.whole or s.text) for s in self.statements if s.sentence not in leave_out)
        return " ".join(text for _, text in wholes)


def canonical_name(name: str) -> str:
    """Lower-case, space-collapsed: the subject key for a named speaker."""
    return " ".join(name.split()).lower()


def _speakers(messages: tuple[Message, ...]) -> list[Speaker | None]:
    names = sorted({canonical_name(m.name) for m in messages if m.name and m.role in ("user", "assistant")})
    multi_party = len(names) >= 2
    displays = {canonical_name(m.name): " ".join(m.name.split()) for m in messages if m.name}
    result: list[Speaker | None] = []
    for message in messages:
        if message.role not in ("user", "assistant"):
            result.append(None)  # system prompts and tool output are not anyone's statements
        elif message.name and (message.role == "user" or multi_party):
            key = canonical_name(message.name)
            others = [n for n in names if n != key]
            other = displays[others[0]] if len(others) == 1 else None
            result.append(Speaker(key, displays[key], Owner.USER, other))
        elif message.role == "user":
            result.append(Speaker("user", "User", Owner.USER))
        else:
            result.append(Speaker("assistant", "Assistant", Owner.AGENT))
    return result


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; a period after a known abbreviation or a single initial does not end one."""
    return [sentence for sentence, _ in sentences_of(text)]


def sentences_of(text: str) -> list[tuple[str, bool]]:
    """Sentences of ``text``, each with whether it runs on from the one before, no full stop between them."""
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        # the end of the sentence so far, no further back than an aside or a word reaches (linear on long text)
        chunk = text[max(start, match.start() - 200) : match.start()]
        last_word = chunk.rsplit(None, 1)[-1].lower().rstrip(".") if chunk.strip() else ""
        ends_with_period = text[match.start()] == "."
        if ends_with_period and (last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha())):
            continue
        if _inside_aside(chunk, text, match.end()):
            continue  # "(tin anniversary apparently?? lol)": an aside ends where its bracket closes
        piece = text[start : match.end()].strip()
        if piece:
            sentences.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    cleaned = (s.strip().strip("-*•").strip() for s in sentences)
    return [(part, i > 0) for s in cleaned if s for i, part in enumerate(_run_on(s))]


def _inside_aside(chunk: str, text: str, at: int) -> bool:
    """Whether a sentence end at ``at`` falls inside a bracket ``chunk`` (the sentence's last 200 characters)
    opened that closes within 200 after: asides are short, and the bounds keep a long text linear."""
    if chunk.rfind("(") <= chunk.rfind(")"):
        return False
    closes = text.find(")", at, at + 200)
    return closes >= 0 and "(" not in text[at:closes]


def run_on_breaks(sentence: str) -> list[tuple[int, int]]:
    """The spans of whitespace where a clause runs on (``_RUN_ON``) after one that can stand alone."""
    breaks: list[tuple[int, int]] = []
    start = 0
    for match in _RUN_ON.finditer(sentence):
        if len(sentence[match.end() :].split(None, 2)) >= 2 and _stands_alone(
            sentence[start : match.start()], match.group("verb") is not None
        ):
            breaks.append(match.span())
            start = match.end()
    return breaks


def _stands_alone(left: str, before_verb: bool) -> bool:
    """Three words or more with a verb, or closed by a word that ends a clause ("3 weeks now"); a last word that
    does not tie it to what follows, and no saying or thinking just before. Before a verb, the verb must be in
    the last part (after a comma): "and pottery moved to wednesdays" is one clause."""
    said = left.split()
    last = said[-1].lower() if said else ""
    if len(said) < 3 or last in _TIES or last.endswith(",") or _SAYING.intersection(w.lower() for w in said[-3:]):
        return False
    return last in _CLAUSE_END or _FINITE.search(_LAST_PART.split(left)[-1] if before_verb else left) is not None


def _run_on(sentence: str) -> list[str]:
    breaks = run_on_breaks(sentence)
    starts = [0, *(end for _, end in breaks)]
    ends = [*(begin for begin, _ in breaks), len(sentence)]
    return [sentence[a:b].strip() for a, b in zip(starts, ends, strict=True)]


def split_clauses(sentence: str) -> list[str]:
    """Split "X and I Y" into two statements, but only when X can stand alone (has a verb)."""
    parts: list[str] = []
    start = 0
    for match in _CLAUSE.finditer(sentence):
        left = sentence[start : match.start()]
        if len(left.split()) >= 2 and _FINITE.search(left):
            parts.append(left.strip())
            start = match.end()
    parts.append(sentence[start:].strip())
    return [p[0].upper() + p[1:] if p[:1].islower() and not p.startswith("i ") else p for p in parts if p]


def participant_names(messages: tuple[Message, ...]) -> tuple[str, ...]:
    """The names the episode's speakers go by: each word of each name (from ``Message.name``)."""
    names = {w for m in messages if m.name for w in m.name.split() if len(w) >= 3 and w[:1].isupper()}
    return tuple(sorted(names))


_THANKS_FOR = re.compile(r"(?i)thanks?(?: you)?(?: so much)? for\b")


@lru_cache(maxsize=64)
def _vocative(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """A participant addressed by name, or by a shortening of it ("Mel" for Melanie), with the punctuation
    that sets the name apart: at the start ("Caroline, ...", "Wow, Mel! ..."), or at the end (", Mel.")."""
    if not names:
        return None
    shortened = {n[:k] for n in names for k in range(3, len(n) + 1)}
    name = "(?:" + "|".join(re.escape(n) for n in sorted(shortened, key=len, reverse=True)) + ")"
    return re.compile(
        rf"^(?P<open>(?i:{_OPENER})[,!.]?\s+)?{name}\b(?P<sep>\s*[,!:]+|\s*[.](?=\s|$))\s*"
        rf"|(?<=\w)\s*,\s+(?:my (?:dear |friend )?)?{name}(?=\s*[!.?~]*\s*$)"
    )


def forget_names() -> None:
    """Empty the cache of participants' names read (on every erasure)."""
    _vocative.cache_clear()


def without_vocative(sentence: str, names: tuple[str, ...]) -> str:
    """``sentence`` without a participant's name used only to address them: "Wow, Caroline! I did it" →
    "Wow! I did it", "Sounds great, Mel." → "Sounds great."; a name that is part of what is said stays."""
    pattern = _vocative(names)
    if pattern is None:
        return sentence

    def keep(match: re.Match[str]) -> str:
        opener = (match.group("open") or "").strip().rstrip(",!.")
        sep = (match.group("sep") or "").strip()[:1]
        if not opener:
            return ""
        if sep == "," and _THANKS_FOR.match(opener + " " + match.string[match.end() :]):
            return f"{opener} "  # "Thank you, Mel, for everything" -> "Thank you for everything": one clause
        return f"{opener}{sep} "

    out = pattern.sub(keep, sentence).strip()
    if not re.search(r"\w", out):
        return sentence  # "Melanie!": nothing but the name, kept as said (and dropped as too little content)
    return out[0].upper() + out[1:] if out[:1].islower() and sentence[:1].isupper() else out


# Contractions typed without their apostrophe that spell no other word ("its", "were", "cant", "ill" do).
_BARE = lazy(
    r"\b(?:(i)(m|ve)|(did|does|do|is|are|was|were|has|have|had|could|would|should)(nt)|(she|he|that|what)(s)"
    r"|(they|you)(re)|(we|they|you)(ve))\b",
    re.IGNORECASE,
)


# "were" opening a clause, before what "we're" leads to: "— were in Cambridge now", "were planning a wedding".
_WERE = lazy(
    r"(?:^|(?<=[.!?,;:—–-] ))(w)ere(?= (?:\w+ing|in|at|now|still|finally|so|back|here|done|officially|all|both"
    r"|not|moving|engaged|married|expecting)\b)",
    re.IGNORECASE,
)


# "its" before what only "it's" leads to: "its not peanuts", "its officially our fave", "its getting late". The
# possessive ("its name", "its own") is left alone.
_ITS = lazy(
    r"\b(i)ts(?= (?:not|so|a|an|the|been|gonna|going|fine|ok|okay|over|done|too|very|pretty|kinda|such|about"
    r"|all|only|just|still|also|like|my|our|your|his|her|their|this|that|what|in|at|on|from|for|with|time"
    r"|[a-z]+ly|[a-z]+ing)\b)",
    re.IGNORECASE,
)


def _apostrophe(match: re.Match[str]) -> str:
    head, tail = [g for g in match.groups() if g is not None]
    if head.lower() == "i":
        head = "I"
    return f"{head}{tail[0]}'{tail[1:]}" if tail.lower() == "nt" else f"{head}'{tail}"


# A name typed in lowercase right after the relation it names, before what a person does: "my boyfriend jake and
# I", "my son theo just started", "my son finn (4) goes". A word that is no name ("my son really likes") is not.
_RELATED_NAME = lazy(
    r"(?<![\w'])(?:my|our)\s+" + RELATION_MODS + "(?:" + RELATION_WORD + r")\s+(?-i:([a-z]{2,15}))\b"
    r"(?=\s*\(|,?\s+(?:and (?:I|me)\b|is|was|has|had|just|lives|works|moved|started"
    r"|goes|got|turned|loves|wants|said|told|will|would|finally|also|still|who)\b)",
    re.IGNORECASE,
)
_NOT_A_NAME = frozenset(NOT_NAMES | STOPWORDS | words("really always never often usually sometimes ever too again"))


def _capital_name(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _NOT_A_NAME or name.endswith(("ly", "ing", "ed")):
        return match.group(0)
    return match.group(0)[: match.start(1) - match.start(0)] + name.capitalize()


def normalise_chat(text: str) -> str:
    """Typographic quotes to ASCII, a lone lower-case "i" to "I", a contraction's lost apostrophe back ("Im" →
    "I'm", "didnt" → "didn't") and a relative's name its capital ("my boyfriend jake and I"): chat input is
    rarely tidy."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = _ITS.sub(r"\1t's", _WERE.sub(r"\1e're", _BARE.sub(_apostrophe, _LOWER_I.sub("I", text))))
    return _RELATED_NAME.sub(_capital_name, text)


def segment_episode(episode: Episode) -> Iterator[Statement]:
    """Statements of every user or assistant message, in order, with their speaker and time."""
    position = 0
    names = participant_names(episode.messages)
    for index, (message, speaker) in enumerate(zip(episode.messages, _speakers(episode.messages), strict=True)):
        if speaker is None or not message.content.strip():
            continue
        at = ensure_utc(message.timestamp or episode.timestamp)
        for number, (said, runs_on) in enumerate(sentences_of(normalise_chat(message.content))):
            sentence = without_vocative(said, names)
            for clause in split_clauses(sentence):
                yield Statement(clause, speaker, index, at, position, number, sentence, runs_on)
                position += 1


_CJK = lazy(r"[\u3400-\u9fff]")


def _short(text: str) -> bool:
    """A fragment that means little alone ("SDE at Amazon.", "Monzo, data team.")."""
    cjk = len(_CJK.findall(text))
    return cjk < 8 if cjk else len(text.split()) < 6


WHOLE_MESSAGE_WORDS = 30
STORY_WORDS = 80  # a message that changes no value is one thought up to this length


def _apart(named: list[frozenset[str]]) -> bool:
    """Whether two sentences speak of different attributes, each naming one the other does not ("I moved to
    Denver. I'm a nurse now"); a sentence that only repeats a topic of another keeps the story together."""
    said = [t for t in named if t]
    return any(a - b and b - a for i, a in enumerate(said) for b in said[i + 1 :])


_THEY = re.compile(r"they\b", re.IGNORECASE)


def group_units(statements: list[Statement]) -> list[Unit]:
    """Sentences of one message as units: a short sentence joins the one before it (or after, if first).

    A message is kept whole up to :data:`WHOLE_MESSAGE_WORDS` words, or up to :data:`STORY_WORDS` when none of its
    sentences changes or ends a value on an attribute's topic (home, work …: "I finally took my kids to a pottery
    workshop" names none) or opens with someone else, and it names at most one single-valued topic: a
    turn that tells one story stays one memory, so its details stay together, while a turn that changes a value or
    speaks of two attributes (home and work) is split, so a later change replaces only what it names."""
    sentences: list[list[Statement]] = []
    for st in statements:
        if (
            sentences
            and sentences[-1][0].sentence == st.sentence
            and sentences[-1][0].message_index == st.message_index
        ):
            sentences[-1].append(st)
        else:
            sentences.append([st])
    words: dict[int, int] = {}
    for group in sentences:
        words[group[0].message_index] = words.get(group[0].message_index, 0) + len(group[0].whole.split())
    changing: dict[int, bool] = {}
    topics: dict[int, list[frozenset[str]]] = {}
    for group in sentences:
        index = group[0].message_index
        whole = group[0].whole
        said = topics_of(whole) - MULTI_TOPICS
        # Someone else ("mum was just diagnosed …", "she's all settled in …") splits the message; "they talked
        # about …" in the speaker's own story (the people of a workshop, a shop, a team) does not.
        other = someone_else(whole) is not None and not _THEY.match(whole.lstrip())
        split = (bool(said) and (changes(whole) or ends(whole))) or other
        changing[index] = changing.get(index, False) or split
        topics.setdefault(index, []).append(said)
    for index, named in topics.items():
        changing[index] = changing[index] or _apart(named)  # two attributes: each kept apart, replaced apart
    units: list[list[Statement]] = []
    for group in sentences:
        prev = units[-1] if units else None
        same_message = prev is not None and prev[0].message_index == group[0].message_index
        limit = WHOLE_MESSAGE_WORDS if changing.get(group[0].message_index) else STORY_WORDS
        if same_message and prev is not None and words[group[0].message_index] <= limit:
            prev.extend(group)  # a short message is one thought: kept whole
            continue
        lone_short = prev is not None and all(_short(s.whole) for s in prev)
        attachment = _ATTACHMENT.match(group[0].whole) is not None  # a photo's caption joins its sentence
        if same_message and prev is not None and (_short(group[0].whole) or lone_short or attachment):
            prev.extend(group)
        else:
            units.append(list(group))
    return [Unit(tuple(u)) for u in units]
