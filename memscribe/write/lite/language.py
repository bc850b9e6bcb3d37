"""The language of a statement, and the memorability filter for statements that are not English.

The English filter (:mod:`memorable`) reads English function words; a Chinese, Spanish, French, German or
Portuguese statement would fail it for having "no first person". Those are kept when they say enough and
are not a question. Detection is per statement, from script and function words: mixed chats switch often.
"""

from __future__ import annotations

import re

from memscribe.core.text import EMOJI
from memscribe.read.kin import kin
from memscribe.read.topics import has_cjk
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.memorable import asks, drop_reason

__all__ = ["language_of", "someone_else", "statement_drop_reason"]

_FUNCTION_WORDS = {
    "es": "el la los las que de y en un una es por con para mi estoy vivo tengo pero muy ya se",
    "fr": "le la les des et est un une je suis mon ma mes pour dans avec pas c'est j'ai chez au",
    "de": "der die das und ist ich bin mein meine nicht mit für ein eine im zu auf wir haben",
    "pt": "o a os as que de e em um uma é eu meu minha não com para está tá do da no na",
}
_EN = frozenset(
    [
        "the",
        "and",
        "is",
        "i",
        "my",
        "to",
        "of",
        "in",
        "it",
        "a",
        "for",
        "on",
        "with",
        "was",
        "have",
        "that",
        "this",
        "at",
        "me",
        "so",
        "but",
    ]
)
_WORD = lazy(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_CJK_QUESTION = lazy(r"[？?]\s*$|(?:吗|呢|什么|怎么|哪|几|多少|为什么|如何)[^，。！]{0,6}[？?]?\s*$")
_CJK_CHAR = lazy(r"[\u3400-\u9fff]")
_CJK_BREAK = lazy(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])|(?<=" + EMOJI + r")\s+(?=[\u3400-\u9fff])")
# Remarks about the memory itself, said around a forget request ("everything else is fine to keep").
_ABOUT_MEMORY = lazy(
    r"\b(?:fine to keep|ok to keep|okay to keep|having (?:that|it|this) stored|(?:it|that|this) being stored"
    r"|on record|in your (?:memory|records|notes)|in whatever profile|want (?:it|that|this) (?:stored|saved|kept))\b"
    r"|不想留在|记录里|guardada|enregistr",
    re.IGNORECASE,
)
_TOLD_IN_PASSING = lazy(
    r"\b(?:I've|I have|we've|we have) (?:just |finally |recently )?(?:joined|started|moved|got|been|left|quit|adopted"
    r"|bought|passed|become|switched|married)\b"
)
_VALUE = lazy(r"\d|\b(?-i:[A-Z]{2,})\b|(?<!^)\b(?-i:[A-Z][a-z]{2,})")


def language_of(text: str) -> str:
    """ "zh" for CJK script, else the European language whose function words dominate, else "en"."""
    if has_cjk(text):
        return "zh"
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return "en"
    english = sum(w in _EN for w in words)
    best, score = "en", english
    for language, listed in _FUNCTION_WORDS.items():
        vocabulary = set(listed.split())
        hits = sum(w in vocabulary for w in words)
        if hits > score:
            best, score = language, hits
    return best


def statement_drop_reason(text: str) -> str | None:
    """Why ``text`` is not worth remembering, or None, in the statement's own language."""
    if _ABOUT_MEMORY.search(text):
        return "about the conversation"
    language = language_of(text)
    if language == "zh":
        if asked := _CJK_QUESTION.search(text):
            # "我现在是高级工程师，PPT要讲哪些内容？" keeps its head, and so does a head closed by a space, the way
            # chat often ends a Chinese sentence: "房东说续租要涨到 4200 气死了 😤 算了懒得搬 重新帮我算算能存多少吧"
            before = text[: asked.start()]
            cut = max(before.rfind("，"), max((m.start() for m in _CJK_BREAK.finditer(before)), default=-1))
            head = before[:cut] if cut > 0 else ""
            if len(_CJK_CHAR.findall(head)) < 6:
                return "question"
            text = head
        return "too little content" if len(_CJK_CHAR.findall(text)) < 4 else None
    if language != "en":
        stripped = text.strip()
        if stripped.startswith("¿") or (stripped.endswith("?") and len(stripped.split()) < 12):
            return "question"
        return None if len(_WORD.findall(text)) >= 4 else "too little content"
    reason = drop_reason(text)
    if reason == "question" and _TOLD_IN_PASSING.search(text):
        return None  # "can you help me announce I've joined Canva as a senior PM?" says what happened
    if reason == "question" and not asks(text) and re.search(r"\b(?:I|my|we|our|me)\b", text):
        reason = drop_reason(text.rstrip(" ?!") + ".")  # "applied for the role and... got it??" says something
    # A user's remark about their world is worth keeping even without "I" ("chicago in march is brutal"), and
    # a short one that carries a value ("got them to $152k!!").
    if reason == "not about anyone" or (reason == "too little content" and _VALUE.search(text)):
        return None
    return reason


_RELATIVE_LEAD = lazy(
    r"^(?:(?:my|our)\s+)?(?:(?:older|younger|little|big|best|ex|step)[- ]?)*(?P<rel>mum|mom|mother|dad|father|sister"
    r"|brother|husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|son|daughter|friend|roommate|roomate|flatmate"
    r"|boss|manager|coworker|co-worker|colleague|cousin|aunt|uncle|grandma|grandpa|neighbou?r|parents|kid)\b"
    r"|^(?P<pro>she|he|they)(?:'s|'re|\s)"
    r"|^(?P<verb>says|thinks|reckons|wants|keeps|loves|hates)\b",  # "says madrid is growing on her": she says
    re.IGNORECASE,
)
_CJK_RELATIVE_LEAD = lazy(
    r"^(?:我的?)?(?P<rel>妹妹|姐姐|哥哥|弟弟|妈妈|爸爸|老公|老婆|女儿|儿子|男朋友|女朋友|朋友|同事|父母|母亲|父亲|表哥|表姐)"
)
# A day or a thing said to be a relative's: "the 14th is my brother Imran's", "c'est l'anniversaire de ma mère".
_RELATIVE_OWNS = lazy(
    r"\b(?:is|was|'s)\s+(?:my|our)\s+(?:(?:older|younger|little|big|best)\s+)?(?P<rel>mum|mom|mother|dad|father"
    r"|sister|brother|husband|wife|partner|boyfriend|girlfriend|son|daughter|friend|cousin|aunt|uncle|grandma"
    r"|grandpa)(?:\s+(?-i:[A-Z])[\w-]*)?'s(?=\s*(?:[,.!?;)]|$))"
    r"|\b(?:anniversaire|cumpleaños|aniversário|Geburtstag)\s+(?:de|von|do|da)\s+(?:ma|mon|mi|minha|meu|meiner"
    r"|meinem)\s+(?P<other>mère|père|sœur|soeur|frère|mari|femme|fille|fils|madre|padre|hermana|hermano|esposo"
    r"|esposa|hija|hijo|mãe|pai|irmã|irmão|marido|filha|filho|Mutter|Vater|Schwester|Bruder|Tochter|Sohn)\b",
    re.IGNORECASE,
)
# In any case: "THEY OFFERED ME A CONTRACT" is shouted, and says what happened to the speaker.
_SELF_TOO = lazy(r"\b(?:I|I'm|I've|me|we|we're)\b|我(?!的)", re.IGNORECASE)


def someone_else(text: str) -> str | None:
    """Who a statement is about when it opens with another person ("mum was just diagnosed …", "she's all
    settled", "妹妹毕业啦") or gives a relative what it names ("the 14th is my brother's", "c'est l'anniversaire
    de ma mère"): a relation word (in English), "someone" for a pronoun; None when it is the speaker's own."""
    head = re.split(r"[,，;:—]|\band\b|\bbut\b", text.strip(), maxsplit=1)[0]
    owned = None if has_cjk(head) else _RELATIVE_OWNS.search(head)
    if owned is not None:  # "the 14th is my brother Imran's": the day is the brother's
        return kin(owned.group("rel") or owned.group("other"))
    match = _CJK_RELATIVE_LEAD.match(head) if has_cjk(head) else _RELATIVE_LEAD.match(head)
    if match is None or _SELF_TOO.search(head[match.end() :]):
        return None
    if (match.groupdict().get("pro") or "").lower() == "they" and _SELF_TOO.search(text):
        return None  # "they cancelled the search and gave me the job": an employer acting on the speaker
    rel = match.groupdict().get("rel")
    return rel.lower() if rel else "someone"
