"""Cues that say how a statement relates to what was true before, in English and the other languages read.

* a **change** cue says a value is new ("now", "these days", "switched", "moved to", "promoted", "搬到"):
  the statement replaces older statements of the same subject on the same single-valued topic;
* an **end** cue says a value stopped ("no longer", "anymore", "quit", "passed away", "rehomed", "离职");
* a **temporary** cue says the statement holds for a while only ("business trip", "for two weeks", "出差");
* a **hypothetical** cue makes it a plan, a wish or a question ("if", "thinking about", "should I", "如果").

Hypothetical and temporary statements never replace anything.
"""

from __future__ import annotations

import re

from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import CJK_HOME_GIVEN_UP
from memscribe.write.lite.tense import detect_tense

__all__ = ["change_cues", "changes", "end_cues", "ends", "hypothetical", "temporary"]

# Giving notice both ends a job and says a new value is coming.
_NOTICE = r"(?:gave|given|handed in|put in) (?:my|her|his|their) notice"
_CHANGE = lazy(
    r"\b(?:now|nowadays|these days|currently|at the moment|atm|(?-i:rn)|no longer|not \w+ anymore|anymore|any more"
    r"|switched|switching|swapped|ditched|changed|moved|relocated|promoted|promotion|new|newly|started|starting|joined"
    r"|accepted|accepted an offer|took the job|got the job|landed|hired|transferred|became|become|converted"
    r"|upgraded|replaced|traded|sold|bought|got rid of|finally|officially|instead|from now on|since then"
    r"|went back|back to|back in|returned|took (?:his|her|my \w+'s|their) (?:name|surname|last name)"
    r"|changed my name|legally|after the wedding|got married|got engaged|tied the knot|eloped|just got"
    r"|quit|left|gave up|stopped|raised|increased"
    r"|decreased|upped|lowered|reduced|doubled|halved|tapered|dropped|went up|went down|renewed|dropped to"
    r"|up to|down to|passed|graduated|made|bumped|appointed"
    r"|named|elevated|stepped up|took over|taken over|takes over|signed|closed on|anymore|replaced|dethroned|gone"
    r"|no more|these days|picked up an?|got myself|treated myself to"
    r"|renamed|rebranded|first day (?:at|of|in)|" + _NOTICE +
    r"|move(?:'s| is| was| has been) (?:done|over|finished|complete|official)|(?:finished|done) moving)\b"
    r"|搬到|搬去|搬家|现在|换了|换成|跳槽|入职|离职|辞职|升职|晋升|改成|改为|开始|已经|终于|不再|回到|涨|变成"
    r"|(?:瘦|胖|降|升|减|跌|长)到"
    r"|ahora|ya no|me mudé|nos mudamos|cambié|empecé|maintenant|désormais|je commence|j'ai démissionné"
    r"|déménagé|jetzt|nicht mehr|umgezogen|gewechselt|agora|já não|mudei|mudamos|comecei"
    r"|firmé|firmamos|me salió|conseguí|assinei|consegui|j'ai signé|unterschrieben",  # signed, got (the job)
    re.IGNORECASE,
)
_END = lazy(
    r"\b(?:no longer|anymore|any more|quit|quitting|left|leaving|resigned|laid off|" + _NOTICE +
    r"|let go|fired|lost my job|stepped down|retired"
    r"|passed away|died|crossed the rainbow bridge|rest in peace|(?-i:RIP)|^rip|put (?:her|him|them|it) to sleep"
    r"|(?:had|have) to put (?P<put>\w+) (?:down|to sleep)"
    r"|switched from|moved on from|changed from"
    r"|put down|rehomed|re-homed|gave (?:her|him|them|it) away|ran away|broke up|split up|divorced"
    r"|separated|sold|stopped|paused|put (?:\w+ )?on hold|gave up|got rid of|ditched|dumped|moved out"
    r"|not \w+ anymore|ex-|last day (?:at|of|in)"
    r"|dropped(?! (?:off|by|in|me|him|her|them|us|my|a|an|it)\b)"
    r"|said (?:bye|goodbye) to|put (?-i:[A-Z][a-z]+) to sleep"
    r"|(?:\d+|a|one|two|three|four|five|six) (?:days?|weeks?|months?|years?) (?:no|without|off|clean|sober"
    r"|smoke[- ]free|\w+[- ]free)|smoke[- ]free)\b"
    r"|离职|辞职|分手|离婚|去世|走了|不再|戒了|卖了|" + CJK_HOME_GIVEN_UP + "|ya no|murió|dejé|démissionné|quitté"
    r"|nicht mehr|gekündigt|já não|morreu|saí",
    re.IGNORECASE,
)
_TEMPORARY = lazy(
    r"\b(?:business trip|work trip|trip|on vacation|on holiday|holiday in|vacation in|visiting|staying(?! put| in\b)"
    r"|stay(?:ing)? with|for (?:a|one|two|three|four|five|six|a few|a couple of|\d+) (?:days?|weeks?|months?"
    r"|nights?)|this quarter|for the summer|for the month|until|till|hotel|airbnb|sublet|temporarily"
    r"|temporary|in the hospital|hospital stay|conference|back (?:on|in|by) (?:monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august"
    r"|september|october|november|december)|sending me to|flying to|fly to|heading to"
    r"|(?:flying|fly|flight|heading|driving) (?:back|home) (?:to \w+ )?(?:on|in|next|tomorrow|this))\b"
    r"|出差|旅游|旅行|酒店|度假|住院|暂时|两周|一周|几天|viaje|vacaciones|hotel|voyage|vacances"
    r"|geschäftlich|Geschäftsreise|Urlaub|viagem|férias",
    re.IGNORECASE,
)
_HYPOTHETICAL = lazy(
    r"^(?:if|should i|would|could|what if|maybe|might|thinking (?:\w+ly |hard |a lot )?(?:about|of)|considering"
    r"|debating|wondering|not sure|planning|hoping|i might|i may|i could|i would|i'd|i'm thinking|i am thinking"
    r"|i'm considering|i am considering)\b"
    r"|\b(?:what if|if i|if we|in case|thinking (?:\w+ly |hard |a lot )?(?:about|of)|considering|might|would be"
    r"|would i|could i|should i|should we|debating|tempted|dream of|daydream(?:ing|ed)?|fantasi[sz]ing|someday|one day"
    r"|hypothetically|in theory|offered me|interview(?:ing)? (?:at|with|for)|(?:final|second|third|next) round"
    r"|applying|or should|versus|whether"
    # Someone else's wish is not a fact: "she wants a sister named Elsa", "he'd like us to move closer".
    r"|(?:she|he|they) (?:really |still )?(?:wants|wishes|would like|would love|is hoping|hopes) (?:a|an|to|us to"
    r"|me to))\b"
    r"|如果|要是|假如|想去|考虑|打算|会不会|要不要|还是不|面试"
    # German "falls" is "in case" before its subject; the English verb ("so it falls on me") is not
    r"|\b(?:si (?:me|nos)|estoy pensando|pensando en|si je|je pense|wenn ich|überlege\w*|se eu|estou pensando"
    r"|falls (?:ich|du|er|sie|es|wir|ihr|man|das|der|die))\b",
    re.IGNORECASE,
)


_TAKEN = lazy(
    r"\b(?:accepted|said yes|signed|took it|taking it|starting (?:on|in|next|from)|first day|not going back"
    r"|handed in|already found)\b",
    re.IGNORECASE,
)


def changes(text: str) -> bool:
    """Whether ``text`` says a value is new."""
    return _CHANGE.search(text) is not None


def ends(text: str) -> bool:
    """Whether ``text`` says a value stopped holding."""
    return bool(end_cues(text))


def change_cues(text: str) -> list[re.Match[str]]:
    """Where ``text`` says a value is new, in order."""
    return list(_CHANGE.finditer(text))


def end_cues(text: str) -> list[re.Match[str]]:
    """Where ``text`` says a value stopped holding, in order."""
    return [m for m in _END.finditer(text) if not _remaining(m)]


# "only BEC left", "two weeks left", "nothing left to pack": what remains, not who left.
_STILL_THERE = lazy(r"(?:\b(?:only|just|still|nothing|none|no|not much|little|few|some|any|\d+|one|two|three|four"
                    r"|five|six|seven|eight|nine|ten|a couple)\b[^,.;!?]{0,30})\s$", re.IGNORECASE)  # fmt: skip
_CLAUSE_ENDS = lazy(r"(?:$|[,.;:!?)]|[—–-]\s|to\b|for\s+(?:me|us|you|the)\b|over\b|in\s+the\b)", re.IGNORECASE)


def _remaining(m: re.Match[str]) -> bool:
    """Whether the end cue ``m`` is "left" meaning what remains: after a quantity, at the end of its clause."""
    if m.group(0).lower() != "left":
        return False
    before, after = m.string[: m.start()], m.string[m.end() :]
    return _STILL_THERE.search(before[-45:]) is not None and _CLAUSE_ENDS.match(after.lstrip()) is not None


# "for a month" after "has been" or before "now" is how long something has held so far, not a stay that ends:
# "the record has been on repeat for a month", "vegan for 6 months now".
_BEEN = lazy(r"\bbeen\b[^,.;!?]{0,40}$", re.IGNORECASE)
_NOW_AFTER = lazy(r"^\s*(?:now|already|so far|and counting)\b", re.IGNORECASE)


def _so_far(text: str, cue: re.Match[str]) -> bool:
    if not cue.group(0).lower().startswith("for "):
        return False
    return _BEEN.search(text[max(0, cue.start() - 48) : cue.start()]) is not None or bool(
        _NOW_AFTER.match(text[cue.end() :])
    )


def temporary(text: str) -> bool:
    """Whether ``text`` holds for a while only (a trip, a stay, a hospital visit). A trip told as over ("we had
    a blast on our camping trip last summer") is an event of the past, not something that holds for a while."""
    found = [m.group(0).lower() for m in _TEMPORARY.finditer(text) if not _so_far(text, m)]
    if not found:
        return False
    if all(cue in _EPISODES for cue in found) and _NOW_OR_NEXT.search(text) is None:
        tense = detect_tense(text)
        return not tense.past or tense.future
    return True


# Cues that name an outing rather than a stay: told in the past tense, the outing is over.
_EPISODES = frozenset({"trip", "business trip", "work trip", "on vacation", "on holiday", "holiday in", "vacation in",
                       "conference", "viaje", "voyage", "viagem", "旅游", "旅行"})  # fmt: skip
_NOW_OR_NEXT = lazy(
    r"\b(?:I'm|I am|we're|we are|am|currently|right now|at the moment|this (?:week|month|weekend)|today|tonight"
    r"|tomorrow|next|until|till|still)\b",
    re.IGNORECASE,
)


# A question to the assistant closing a statement: "we're taking home two guinea pigs 🐹 what should I avoid".
# Its "should I" asks about the fact; it does not make the fact a plan. Searched in the last sentence only,
# from its first question word to the end.
_CLOSING_ASK = lazy(
    r"(?:[,;:—–]\s*|\s|(?<=[^\w\s]))(?:and\s+|so\s+|but\s+)?(?:what|how|which|where|when|why|should (?:i|we)"
    r"|can (?:i|we|you)|could (?:i|we|you)|do (?:i|we|you)|is (?:it|there|that)|are (?:there|they)|would (?:it|you)"
    r"|any (?:tips|ideas|advice|recs))\b",
    re.IGNORECASE,
)
_SENTENCE_END = lazy(r"[.!?](?=\s)")


def _without_closing_ask(text: str) -> str:
    body = text.rstrip().rstrip("?")
    last = 0
    for end in _SENTENCE_END.finditer(body):
        last = end.end()
    found = _CLOSING_ASK.search(body[last:])
    return text if found is None else text[: last + found.start()]


def hypothetical(text: str) -> bool:
    """Whether ``text`` is a plan, a wish, a condition or a question rather than a fact. A statement's closing
    question to the assistant is left out ("got a puppy!! what should I feed her?"), unless it is all there is. An
    offer the same statement says was taken is a fact ("THEY OFFERED ME A FULL-TIME CONTRACT, not going back")."""
    head = _without_closing_ask(text)
    said = head if len(head.split()) >= 3 else text
    found = _HYPOTHETICAL.search(said)
    if found is None or found.group(0).lower() != "offered me":
        return found is not None
    return _TAKEN.search(text) is None or _HYPOTHETICAL.compiled.search(said, found.end()) is not None
