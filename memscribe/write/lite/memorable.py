"""The memorability filter: greetings, thanks, questions, filler and acknowledgements are not memories.

The filter errs towards keeping a statement that says something about a person (first person, a named
person, "my sister"); small talk and reactions to the other speaker are dropped.
"""

from __future__ import annotations

import re

from memscribe.core.redact import REDACTED
from memscribe.core.text import EMOJI, STOPWORDS
from memscribe.write.lite.cues import ends
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.lexicon import NOT_NAMES, words

__all__ = ["asks", "drop_reason", "question_head", "skip_wording", "strip_preamble"]

_PREAMBLE = lazy(
    r"^(?:(?:hi|hey|hello|yo|hiya|howdy|good (?:morning|afternoon|evening))(?:\s+(?-i:[A-Z][a-z]+))?"
    r"\s*[,!.:-]+\s*"
    r"|(?:well|oh|ah|aw+|wow|omg|so|also|anyway|anyways|btw|by the way|fyi|just so you know|for the record"
    r"|yeah|yes|yep|no|ok|okay|haha+|lol|hmm+|um+|honestly|guess what|fun fact|oh yeah|oh and|and|plus|but"
    r"|oh wow|oh man|man|dude|wait|oops|whoa|update|quick update|news|big news|for context|as far as i know"
    r"|sadly|unfortunately|luckily|happily|anyhow|since (?:we|I) (?:last )?(?:spoke|talked|chatted|saw you)"
    r"|since our last (?:chat|talk|conversation))\b\s*[,!.:-]*\s+"
    # A short heading before a colon or an "-wise" topic ("Life update: I'm engaged", "Money-wise, ...").
    r"|[\w' ,-]{1,30}:\s+(?=(?:I|I'm|I've|my|we|our)\b)|[\w-]+-wise,\s+"
    r"|(?:please\s+)?(?:remember|note|keep in mind|make a note|don't forget)(?:\s+that)?\s*[:,]?\s+(?=\S))",
    re.IGNORECASE,
)
_GREETING = lazy(
    r"^(?:hi|hey|hello|yo|hiya|howdy|greetings|good (?:morning|afternoon|evening|night)"
    r"|bye|goodbye|good ?bye|see you(?: later| soon| tomorrow)?|see ya|talk (?:to you )?(?:later|soon)"
    r"|take care|have a (?:good|great|nice) (?:day|night|one|weekend|time)|nice to (?:meet|see|hear from) you"
    r"|good to (?:see|hear from) you|long time no see|how are you(?: doing)?|how's it going|what's up|sup"
    r"|how have you been|how was your (?:day|weekend|week)"
    # Catching up: "long time no talk", "great chatting with you again", "a lot has happened since we last spoke".
    r"|long time no (?:see|talk|chat|speak)|(?:it'?s )?(?:so |really )?(?:great|good|nice|lovely) (?:to (?:chat|talk"
    r"|catch up|hear from you|see you)|chatting|talking|catching up)(?: with you)?(?: again)?"
    r"|(?:we )?haven'?t (?:talked|spoken|chatted) (?:in|for) (?:a while|ages|a few days|a bit|so long)"
    r"|(?:a lot|lots|so much|crazy things?|a crazy thing) (?:has |have |'s )?(?:happened|been going on|been up)"
    r"(?: since (?:we|our) (?:last )?(?:talked|spoke|chatted|chat|talk))?)\b",
    re.IGNORECASE,
)
_THANKS = lazy(
    r"^(?:thanks|thank you|thx|ty|cheers|much appreciated|i appreciate (?:it|that|you|your \w+)"
    r"|appreciate it|many thanks)\b",
    re.IGNORECASE,
)
# Reactions that are filler only when they are the whole statement ("I love it", not "I love it here").
_FILLER_WHOLE = lazy(
    r"^(?:ok|okay|k|sure|yes|no|yeah|yep|nope|nah|cool|great|nice|awesome|amazing|wow|whoa|perfect|exactly"
    r"|right|indeed|of course|absolutely|definitely|totally|true|same|agreed|got it|makes sense|fair enough"
    r"|no problem|no worries|np|lol|haha+|hmm+|oh|ah|aw+|i see|i know|i agree|i think so|i hope so"
    r"|i guess(?: so)?|me too|same here|you too|(?:i )?love (?:it|that|this|you)|not much|nothing much"
    r"|my pleasure|i'?m (?:doing |feeling )?(?:good|great|fine|well|ok|okay|alright|not bad)"
    r"|i'?m (?:so |really |very )?(?:happy|glad|proud|excited|sorry|thrilled))"
    r"(?:[\s,]+(?:so much|too|a lot|for sure|then|now|again|though|haha+|lol|man|dude|buddy|friend|mate"
    r"|(?-i:[A-Z][a-z]+)))*\W*$",
    re.IGNORECASE,
)
# Reactions to the other speaker: filler whatever follows ("That sounds like a great plan for the summer").
_FILLER_LEAD = lazy(
    r"^(?:that'?s (?:\w+ )?(?:great|awesome|amazing|cool|nice|good|wonderful|fantastic|interesting|sad"
    r"|terrible|funny|true|right|fair|sweet|lovely|impressive|exciting|incredible|beautiful|tough|hard"
    r"|rough|crazy|wild|huge|brave|inspiring)|that sounds|sounds (?:good|great|fun|amazing|awesome|like"
    r"|interesting|lovely|nice|wonderful|exciting|tough|hard)|how (?:cool|nice|fun|great|sweet|lovely"
    r"|exciting|awesome)|what an? \w+|that must (?:be|have been)|i'?m (?:so |really |very )?(?:happy|glad"
    r"|proud|sorry|excited|thrilled) (?:for you|to hear|that you|you)|(?:so |really )?(?:happy|glad|sorry)"
    r" (?:for you|to hear|you)|i can'?t wait to (?:see|hear)|i'?ll (?:keep that in mind|think about it"
    r"|let you know)|you'?re (?:welcome|right|the best|so \w+|such an? \w+)|keep (?:it up|going|me posted)"
    r"|let me know|tell me more|good for you|hope (?:so|you)|i hope you|i'?m sure you|i bet\b"
    r"|you should be proud|good luck|congrats|congratulations|well done|oh no|oh wow|bless you"
    r"|take care|enjoy (?:it|your)|have fun)\b",
    re.IGNORECASE,
)
# A wh-word followed by the speaker as subject opens a clause, not a question ("When I'm away from the court,
# cooking is therapy for me", "What I love most is the quiet"), unless a modal follows ("what I should do").
_QUESTION_START = lazy(
    r"^(?:(?:what|how|why|when|where|who|whom|which|whose)\b(?!\s+(?:I|I'm|I've|I'd|we|we're|we've|my|our)\b"
    r"(?!\s+(?:should|shall|could|can|would|will|do|did|must|need)\b))"
    r"|do you|did you|does|can you|could you|would you"
    r"|will you|are you|were you|is it|is that|have you|has|should I|shall we|any (?:tips|ideas|advice"
    r"|suggestions|recommendations|thoughts))\b",
    re.IGNORECASE,
)
_FIRST_PERSON = lazy(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself|we|we're|we've|our|us)\b", re.I)
# Remarks about what was said before, not facts: "I got something wrong last time".
_META = lazy(
    r"^(?:I|we)\s+(?:got|had) (?:something|that|it|a few things|some things) wrong\b"
    r"|^I (?:told|gave) you (?:.{1,40}) (?:before|earlier|last time),? but (?:that|it) (?:was|is) (?:wrong|not right"
    r"|incorrect|a mistake)",
    re.IGNORECASE,
)
_CAPITALISED = lazy(r"\b[A-Z][a-z]+\b")
_WORD = lazy(r"[\w'-]+")
_WEAK = words(
    """really so just like totally very pretty kinda sorta quite lot lots thing things stuff something yeah
    oh well gonna wanna got get think feel know guess mean sure good great nice cool fun"""
)


def _names_someone(text: str) -> bool:
    """A capitalised word that is not a sentence opener or a common word: probably a person or place."""
    return any(
        m.group(0).lower() not in NOT_NAMES and (m.start() > 0 or text[m.end() : m.end() + 2] == "'s")
        for m in _CAPITALISED.finditer(text)
    )


def strip_preamble(text: str) -> str:
    """Drop discourse openers ("Well,", "By the way,", "Remember that") that carry no fact."""
    previous = None
    while previous != text:
        previous = text
        text = _PREAMBLE.sub("", text, count=1).strip()
    return text[:1].upper() + text[1:] if text else text


def question_head(text: str) -> str | None:
    """For "I just moved to Sydney, any tips?" the declarative head; None when it is just a question."""
    if not text.rstrip().endswith("?"):
        return None
    head, sep, _ = text.rpartition(",")
    if sep and re.match(r"^(?:I|My|We|Our)\b", head) and not _QUESTION_START.match(head):
        return head.strip()
    return None


# "rent's going up to 1,975 starting august 🙃 that's like 7%??": an emoji closes a statement before the question.
_EMOJI_CLOSE = lazy(rf"(?<=\w)\s*{EMOJI}(?:{EMOJI}|[\uFE0F\u200D])*(?=\s)")


def _said_before_emoji(text: str) -> bool:
    """Whether a statement of four words or more closes with an emoji before the question that ends ``text``."""
    closes = list(_EMOJI_CLOSE.finditer(text))
    head = text[: closes[-1].start()] if closes else ""
    return len(head.split()) >= 4 and "?" not in head


def drop_reason(text: str) -> str | None:
    """Why ``text`` is not worth remembering, or None when it may be."""
    bare = text.strip().strip("!.~ ").strip()
    if not bare:
        return "empty"
    if _META.match(bare):
        return "about the conversation"
    if REDACTED in bare:
        return "secret"  # a statement about a redacted credential holds nothing worth recalling
    if (bare.endswith("?") and not _said_before_emoji(bare)) or _QUESTION_START.match(bare):
        return "question"
    if _GREETING.match(bare) and len(_WORD.findall(bare)) <= 8:
        return "greeting"
    if _THANKS.match(bare) and len(_WORD.findall(bare)) <= 10:
        return "thanks"
    if _FILLER_WHOLE.match(bare) or (_FILLER_LEAD.match(bare) and len(_WORD.findall(bare)) <= 16):
        return "filler"
    words = [w.lower() for w in _WORD.findall(bare)]
    content = [w for w in words if w not in STOPWORDS and w not in _WEAK and len(w) > 1]
    if (len(words) < 3 and not ends(bare)) or len(content) < 2:
        return "too little content"  # two words that end something are news: "dumped sam", "quit smoking"
    if not _FIRST_PERSON.search(bare) and not _names_someone(bare):
        return "not about anyone"
    return None


def asks(text: str) -> bool:
    """Whether ``text`` opens as a question ("what", "can you", "should I"), whatever its last mark."""
    return _QUESTION_START.match(text.strip()) is not None


# How a turn that left no memory is explained to the caller (the add result's per-message reasons).
_SKIP_WORDING = {
    "empty": "empty",
    "about the conversation": "a remark about the conversation itself",
    "secret": "only a secret, which is redacted and not stored",
    "question": "a question",
    "greeting": "filler: a greeting",
    "thanks": "filler: thanks",
    "filler": "filler: a reaction or acknowledgement",
    "too little content": "too little content to hold a fact",
    "not about anyone": "not about the speaker or anyone named",
    "request": "a forget request or correction, applied to the memories it names",
    "assistant": "the assistant's words (only its recommendations are kept)",
}


def skip_wording(reason: str) -> str:
    """The caller-facing account of a lite drop reason."""
    return _SKIP_WORDING.get(reason, reason)
