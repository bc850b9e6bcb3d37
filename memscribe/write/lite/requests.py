"""Statements about memory itself: corrections ("sorry, I meant 2017, not 2018") and forget requests
("please don't keep my phone number"). Neither is stored; both change what is already there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import CLOSES_CLAUSE, JUDGEMENTS

__all__ = [
    "POINTERS",
    "Correction",
    "day_in_month",
    "forget_attributes",
    "parse_cjk_correction",
    "parse_correction",
    "parse_embedded_correction",
    "parse_forget",
    "parse_self_check",
    "value_shape",
]

_MARKER = (
    r"(?:(?:also|and|oh|ok|okay|so|hmm|lol|omg)[\s,!.]+)*"  # words that only lead in: "ALSO wait, …"
    r"(?:(?:sorry|oops|whoops|wait|no|nope|actually|correction|my bad|my mistake|i misspoke|to be clear|ugh|turns out"
    r"|let me correct (?:that|myself)|scratch that|typo|i misread(?: \w+){0,3}|i was wrong|i got (?:it|that)"
    r" wrong|i mixed (?:it|them|those) up|i made a mistake|i'?m an idiot|i am an idiot|silly me|duh|oups"
    r"|je me suis tromp\w*|je me suis plant\w*|perdón|me equivoqué"
    r"|desculpa|enganei-me|me enganei|entschuldigung|ich habe mich geirrt"
    # what a doctor or a test found puts a belief right as the speaker would: "my doctor says it's not X, it's Y"
    r"|(?:my |the )?(?:doctor|doc|allergist|dermatologist|vet|dentist|test|tests|results|lab|blood test|dna test)"
    r" (?:says|said|showed|shows|confirmed|found)(?: that)?)[\s,:;.!-]+)+"
)
_LEAD = (
    r"(?:i meant|i mean|it'?s|it is|it was|that'?s|that is|that was|that should be|should be|make that"
    r"|i said|i should have said|(?:the|my|our|his|her) \w+ (?:is|was|'s))?\s*"
)
_CORRECTIONS = tuple(
    lazy(p, re.IGNORECASE)
    for p in (
        "^" + _MARKER + _LEAD + r"(?P<new>(?:[^,]|,(?=\d))+?),?\s+not\s+(?P<old>(?:[^,.!]|[,.](?=\d))+?)[.!]*"
        r"(?:[,;]\s+.*)?$",
        "^" + _MARKER + r"(?:it'?s\s+|it is\s+|it was\s+|they'?re\s+|they are\s+)?not\s+(?P<old>[^,]+),\s*(?:but\s+)?"
        r"(?:it'?s\s+|it is\s+|it was\s+|they'?re\s+|they are\s+)?(?P<new>.+?)[.!]*$",
        "^"
        + _MARKER
        + r"(?:c'est|c'était|es|era|é|era|ist|war)\s+(?:le\s+|el\s+|o\s+|der\s+)?(?P<new>[^,.!]+?)\s*[.!]*$",
        "^" + _MARKER + r"(?:i meant|i mean|make that|that should be|it should be|it'?s actually|it was actually)"
        r"\s+(?P<new>.+?)[.!]*$",
        r"^(?:i meant|it'?s|it is|that'?s|that is)\s+(?P<new>[^,]+?),?\s+not\s+(?P<old>[^,.!]+?)[.!]*$",
        r"^i meant\s+(?P<new>.+?)[.!]*$",
    )
)
_OPENER = (
    r"^(?:(?:actually|oh|also|and|so|wait|no|ok|okay|oops|hmm|sorry|on second thought|hey|hi|um|pls|please|just"
    r"|for privacy reasons|btw|ah|ugh|ei|oi|olá|hola|oye|salut|hallo|hey du)[\s,!.]+)*"
)
_FORGETS = tuple(
    lazy(_OPENER + p.removeprefix("^"), re.IGNORECASE)
    for p in (
        r"^(?:(?:please|pls|just|can you|could you|would you|i want you to|i need you to|i would like you to"
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
        r"^(?:esquece|esqueça|apaga|olvida|borra|oublie|efface|supprime|vergiss|lösch\w*)\s+(?P<topic>.+?)"
        r"(?:,?\s*(?:por favor|pfv|s'il te plaît|s'il vous plaît|stp|bitte))?[.!?]*$",
        # "i don't really want that saved anywhere", "não quero isso salvo", "no quiero que guardes eso"
        r"^(?:i\s+(?:really\s+)?(?:don'?t|do not)\s+(?:really\s+)?want\s+|não quero\s+|no quiero(?:\s+que\s+\w+)?\s+"
        r"|je ne veux pas que tu \w+\s+)(?P<topic>that|this|it|isso|isto|eso|esto|ça|cela)\s+"
        r"(?:saved|stored|kept|remembered|written down|on record|salvo|guardado|anotado|guardes)\b.*$",
        r"^ich (?:will|möchte) (?P<topic>das|dies) nicht (?:gespeichert|gemerkt|notiert)\b.*$",
        # "i'd rather that wasn't saved", "prefiro que isso não fique salvo", "je préfère que ça ne soit pas gardé"
        r"^(?:i'?d (?:prefer|rather)(?: if| that)?|i would (?:prefer|rather)(?: if| that)?|prefiro que|prefiero que"
        r"|je préfère que)\s+(?P<topic>that|this|it|isso|isto|eso|esto|ça|cela)\s+(?:(?:is|was|were)n'?t|not be"
        r"|não (?:fique|seja)|no (?:quede|se guarde|sea)|ne soit pas)\s+(?:saved|stored|kept|remembered|on record"
        r"|salv[oa]|guardad[oa]|registrad[oa]|anotad[oa]|enregistrée?|gardée?|sauvegardée?)\b.*$",
    )
)
# A forget request may follow a short lead clause: "hey so kind of a weird one, can you forget the medication
# thing". At most this many words before the comma, so a statement is not read as a request.
_LEAD_CLAUSE = re.compile(r"^(?P<lead>[^,;]{1,60}?)[,;]\s+(?=\S)")
_LEAD_WORDS = 8
# Words that only point at what is forgotten: "aquilo do meu aniversário", "lo de mi cumpleaños", "the
# medication thing", "ce que je t'ai dit sur mon salaire", "das mit meinem Geburtstag".
_TOPIC_POINTERS = re.compile(
    r"^(?:aquilo|isso|isto|o que (?:eu )?(?:te )?(?:disse|falei))\s+(?:d[oae]s?|sobre)\s+"
    r"|^(?:lo|eso|esto|lo que te dije)\s+(?:de(?:l)?|sobre)\s+"
    r"|^ce que je (?:t'ai|vous ai) dit (?:sur|à propos de|de)\s+"
    r"|^(?:das|dies) mit\s+|^(?:was ich (?:dir )?(?:über|zu) )",
    re.IGNORECASE,
)
_THING = re.compile(r"^the\s+(?P<what>.+?)\s+(?:thing|stuff|business|bit)$", re.IGNORECASE)
# A forget topic ends where the reason for it begins ("forget about him, I don't want his name coming up").
# A blank run is tried from its first character only ((?<!\s)), so a long run costs linear time.
_TOPIC_END = re.compile(
    r",\s+|(?<!\s)\s+[—–-]\s+|;|[.?!]\s|(?<!\s)\s+(?:because|since|as|so that|so)\s+"
    # "the X thing i said in that convo", not "everything i told you about X"
    r"|(?<!\s)(?<!everything)(?<!anything)(?<!\ball)(?<!what)\s+(?:that\s+)?i\s+"
    r"(?:said|mentioned|told you|shared|wrote)\b",
    re.IGNORECASE,
)
_CJK_FORGET = re.compile(
    r"把(?P<topic>[^，。！？]{1,20}?)(?:删掉|删除|删了|忘掉|忘了|清除)|(?:别记|不要记|忘掉|删掉)(?P<topic2>[^，。！？]{1,20})"
    # "昨天说的工资能帮我忘掉吗", "那个地址你删了吧": the topic first, then the request
    r"|(?P<topic3>[^，。！？\s把]{1,20}?)(?:你)?(?:能不能|能|可以|可不可以)?(?:帮我)?(?:忘掉|忘了吧|删掉|删了吧|删除)"
)
# Words that only say when the topic was said: "昨天说的工资" is "工资".
_CJK_SAID = re.compile(r"^(?:(?:我)?(?:昨天|之前|上次|刚才|前面|刚刚)?(?:跟你)?(?:说|讲|提)的)")
# What rounds a Chinese topic off without naming anything: "我前任的事都" is "我前任" (everything about them).
_CJK_ABOUT = re.compile(r"(?:的)?(?:事情|事|东西|一切|信息|资料|相关的?)?(?:都|全都|全部|了|吧|啊)*$")
# "I'm not a fan of sushi" is a negation, not "I'm" corrected from "a fan of sushi".
_DANGLING = lazy(
    r"\b(?:am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|i'm|it's|that's|they're"
    r"|we're|you're|he's|she's|i)$",
    re.I,
)
_IDIOMS = frozenset({"it", "about it", "it all"})  # "forget it" means "never mind"
# Words that point at what was just said: parse_forget reads them as the topic "that".
_POINTING = frozenset({"this", "isso", "isto", "eso", "esto", "ça", "cela", "das", "dies"})
# Forget topics that only point back at what was just said.
POINTERS = _POINTING | {"that", "what i said", "what i just said", "that last part", "the last thing", "those"}
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


_MONTH_WORDS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December|janvier|février"
    r"|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo"
    r"|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|Januar|Februar|März|Juni|Juli|Oktober"
    r"|Dezember|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro)"
)
_DAY_MONTH = (
    r"\d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH_WORDS + r"(?: \d{4})?|" + _MONTH_WORDS + r" \d{1,2}(?:st|nd|rd|th)?"
)
_CJK_DATE = r"\d{1,2}月\d{1,2}[号日]?"
_CJK_MARKER = re.compile(r"不对|记错|说错|搞错|写错|弄错|更正|纠正")


def parse_cjk_correction(text: str) -> Correction | None:
    """ "啊不对，我记错了，是5月8号！": the date or number said after a correction marker."""
    if not _CJK_MARKER.search(text):
        return None
    tail = text[_CJK_MARKER.search(text).end() :]  # type: ignore[union-attr]
    found = re.search(_CJK_DATE, tail) or re.search(r"\d+(?:[.,]\d+)?", tail)
    return Correction(found.group(0), None) if found else None


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
            new = _ASIDE.sub("", groups["new"]).strip(" ,.!\"'")
            old = (groups.get("old") or "").strip(" ,.!\"'") or None
            if new and len(new.split()) <= 12 and not _DANGLING.search(new):
                return _narrow(new, old)
    return None


# "wait no, just checked the letter — it's thursday the 16th, not tuesday": what the speaker did before the
# dash or colon is an aside; the value meant is what follows it.
_ASIDE = lazy(
    r"^[^—–:;]*(?:\s[—–-]+\s|[:;]\s)\s*(?:(?:it'?s|it is|it was|that'?s|that is|i meant|i mean|should be)\s+)?",
    re.IGNORECASE,
)

_VALUE = (_DAY_MONTH, _CJK_DATE, r"\d+(?:[.,]\d+)*")
_BARE_DAY = re.compile(r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?", re.IGNORECASE)
_DAY_OF_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(" + _MONTH_WORDS + r")\b", re.IGNORECASE)


def _narrow(new: str, old: str | None) -> Correction:
    """ "the flight is on 13 March 2024, not on 3 March 2024": the values, not the phrases, are swapped."""
    if old is None or len(new.split()) <= len(old.split()):
        return Correction(new, old)
    for shape in _VALUE:
        was = re.search(shape, old, re.IGNORECASE)
        now = list(re.finditer(shape, new, re.IGNORECASE))
        if was and now:
            return Correction(now[-1].group(0), was.group(0))
    return Correction(new, old)


def day_in_month(correction: Correction, text: str) -> tuple[str, str] | None:
    """For a correction that names the new day alone ("the 8th, not the 3rd", "the 8th not the 3rd of march"):
    the date of ``text`` on the old day (in the old month, when one is said), and the same date on the new day
    ("on 3 March" → "8 March", "March 3rd" → "March 8"); None otherwise."""
    new, said = _BARE_DAY.fullmatch(correction.new), correction.old or ""
    old = _BARE_DAY.fullmatch(said) or _DAY_OF_MONTH.search(said)
    if new is None or old is None:
        return None
    day = rf"(?<!\d){old.group(1)}(?:st|nd|rd|th)?(?!\d)"
    month = re.escape(old.group(2)) if old.re is _DAY_OF_MONTH else _MONTH_WORDS
    found = re.search(rf"{day} (?:of )?{month}\b|\b{month} {day}", text, re.IGNORECASE)
    return None if found is None else (found.group(0), re.sub(day, new.group(1), found.group(0), count=1))


# "we're in wellington not auckland", "its ADAEZE not adaze", "it's the 17th not the 14th 🤦": a value put right in
# passing, inside a longer sentence. The value meant is as many words as the one it replaces, right before "not"
# or before a word that only sets it against the old one ("chapel allerton this time not hyde park").
_IN_PASSING = lazy(
    r"(?<![\w'-])(?P<new>(?:[^\W_][\w'-]*\s+){0,2}[^\W_][\w'-]*)(?:\s+(?:this time|instead|now|actually|tho"
    r"|though|lol))?,?\s+not\s+(?P<old>(?:the\s+)?[^\W_][\w'-]*"
    r"(?:\s+[^\W_][\w'-]*){0,2}?)" + CLOSES_CLAUSE,
    re.IGNORECASE,
)
# What follows "not" in a plain negation rather than a value put right ("not sure", "not a doctor"): a judgement,
# or an article (a comparison, "it's a want not a need").
_NOT_VALUE = JUDGEMENTS | {"a", "an", "one"}


def parse_embedded_correction(text: str) -> Correction | None:
    """The value ``text`` puts right in passing ("we're in wellington not auckland"): a short value, "not", the
    value it replaces. Whether it corrects anything is for the caller to find: only a memory that holds the old
    value is changed."""
    for match in _IN_PASSING.finditer(text):
        old = match.group("old").split()
        if old[0].lower() in _NOT_VALUE or old[-1].lower() in _NOT_VALUE:
            continue
        new = match.group("new").split()[-len(old) :]
        if _DANGLING.search(" ".join(new)) or new[-1].lower() in _NOT_VALUE or new[-1].lower() in ("but", "and", "or"):
            continue
        if [w.lower() for w in new] == [w.lower() for w in old]:
            continue
        return Correction(" ".join(new), " ".join(old))
    return None


# "wait, did I say 14? it's the 16th": the speaker asks about their own words, then says what they meant.
_ASKED = lazy(r"\bdid I (?:just )?(?:say|write|type|put|tell you)\s+(?P<old>[^?]{1,30}?)\s*\?+\s*$", re.IGNORECASE)
_ANSWER = lazy(
    r"^(?:(?:no|nope|oops|sorry|ugh),?\s+)*(?:it'?s|it is|it was|I meant|meant|should be|it should be)\s+"
    r"(?:actually\s+)?(?:the\s+)?(?P<new>[^,.!?;]{1,30}?)\s*(?:\b(?:lol|haha|lmao|oops)\b)?[.!]*$",
    re.IGNORECASE,
)


def _plain(value: str) -> str:
    return re.sub(r"(?<=\d)(?:st|nd|rd|th)\b", "", value.strip(" \"'"), flags=re.IGNORECASE)


def parse_self_check(before: str, text: str) -> Correction | None:
    """The correction ``text`` makes when the words just ``before`` it ask "did I say X?" about the speaker's own
    words: ``text`` ("it's the 16th") says the value meant."""
    asked = _ASKED.search(before.strip())
    answer = _ANSWER.match(text.strip()) if asked else None
    if asked is None or answer is None:
        return None
    old, new = _plain(asked.group("old")), _plain(answer.group("new"))
    if not old or not new or old.lower() == new.lower() or len(new.split()) > 6:
        return None
    return Correction(new, old)


def parse_forget(text: str) -> str | None:
    """The topic a forget request names ("my phone number"), or None when ``text`` is not one."""
    text = text.strip()
    if (cjk := _CJK_FORGET.search(text)) is not None:
        topic = _CJK_SAID.sub("", (cjk.group("topic") or cjk.group("topic2") or cjk.group("topic3")).strip())
        return _CJK_ABOUT.sub("", topic) or topic
    found = _forget_topic(text)
    lead = _LEAD_CLAUSE.match(text)
    if found is None and lead is not None and len(lead.group("lead").split()) <= _LEAD_WORDS:
        found = _forget_topic(text[lead.end() :])
    return found


def _forget_topic(text: str) -> str | None:
    for pattern in _FORGETS:
        if match := pattern.match(text):
            topic = _TOPIC_END.split(match.group("topic"), maxsplit=1)[0].strip(" ,.!?\"'")
            topic = re.sub(r"^(?:everything|anything|all)\s+(?:(?:i|that i)\s+(?:told|said to|gave)\s+you\s+)?"
                           r"(?:about|regarding|on)\s+", "", topic, flags=re.IGNORECASE)  # fmt: skip
            topic = _TOPIC_POINTERS.sub("", topic)
            topic = thing.group("what") if (thing := _THING.match(topic)) else topic
            if topic.lower() in _POINTING:
                return "that"
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
    if re.fullmatch(_DAY_MONTH, value, re.IGNORECASE):
        return re.compile(_DAY_MONTH, re.IGNORECASE)
    if re.fullmatch(_CJK_DATE, value):
        return re.compile(_CJK_DATE)
    if re.fullmatch(r"(?:19|20)\d{2}", value):
        return re.compile(r"\b(?:19|20)\d{2}\b")
    if re.fullmatch(r"\d+(?:[.,]\d+)?", value):
        return re.compile(r"\b\d+(?:[.,]\d+)?\b")
    if re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*", value):
        return re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b")
    return None
