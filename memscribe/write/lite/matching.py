"""Text comparisons for reconciliation: near-duplicates, refinements and topic matches.

Token sets, not embeddings: embeddings rate "lives in Seattle" and "lives in Sydney" as near-identical, and
the rules that decide must tell those apart. A number or date in the difference always blocks a duplicate.
"""

from __future__ import annotations

from functools import lru_cache

from memscribe.core.text import STOPWORDS, normalize
from memscribe.write.lite.lazy import lazy

__all__ = ["cjk_pairs", "content_tokens", "covers", "forget_texts", "near_duplicate", "stem", "topic_matches"]

_WORD = lazy(r"[a-z0-9][a-z0-9'-]*")
_GENERIC = frozenset({"user", "said", "says", "told", "number", "thing", "things", "stuff", "really", "also"})
_SUBJECT_WORDS = frozenset({"user", "user's", "assistant", "they", "their", "them", "theirs"})
_DOUBLED = lazy(r"([b-df-hj-km-np-rtv-y])\1$")  # a doubled consonant, but not l, s or z ("falling")


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A light stem so "lives"/"living"/"lived", "dogs"/"dog" and "plans"/"planning" compare equal."""
    word = word.lower().removesuffix("'s")
    for suffix in ("ing", "ied", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(base) >= 4 and _DOUBLED.search(base):
                return base[:-1]  # "planning", "stopped": the consonant doubled before the ending
            return base + "y" if suffix in ("ied", "ies") else base
    return word


_VERBS = frozenset(stem(w) for w in ("like", "love", "enjoy", "want", "have", "get", "go", "make", "info"))


@lru_cache(maxsize=4096)  # each pending draft is compared with every later statement of its episode
def content_tokens(text: str, ignore: frozenset[str] = frozenset()) -> frozenset[str]:
    """Stemmed content words of ``text``; digits kept, stopwords and the subject's name dropped."""
    words = _WORD.findall(text.lower())
    return frozenset(
        stem(w) for w in words if w not in STOPWORDS and w not in _SUBJECT_WORDS and w not in ignore and len(w) > 1
    )


def _blocking(diff: frozenset[str]) -> bool:
    """A difference in numbers or dates makes two statements different facts, however similar the rest."""
    return any(any(ch.isdigit() for ch in token) for token in diff)


@lru_cache(maxsize=4096)
def _normal(text: str) -> str:
    return normalize(text).strip(" .!")


def near_duplicate(new: str, old: str, ignore: frozenset[str] = frozenset()) -> bool:
    """Same statement said again: equal once normalised, or ≥ 80% token overlap with no number changed."""
    if _normal(new) == _normal(old):
        return True
    a, b = content_tokens(new, ignore), content_tokens(old, ignore)
    if len(a) < 2 or len(b) < 2:
        return False
    contained = a <= b and len(a) >= 3 and len(a) / len(b) >= 0.6
    if not contained and min(len(a), len(b)) / max(len(a), len(b)) < 0.8:
        return False  # sizes alone rule out 80% overlap: skip the set work (episodes compare many pairs)
    if _blocking(a ^ b):
        return False
    return contained or len(a & b) / len(a | b) >= 0.8


def covers(new: str, old: str, ignore: frozenset[str] = frozenset()) -> bool:
    """``new`` says everything ``old`` did and more: a refinement ("a dog" → "a dog named Max")."""
    a, b = content_tokens(new, ignore), content_tokens(old, ignore)
    return len(b) >= 2 and b < a and not _blocking(b - a)


# Chinese is not written in words: it is compared by its character pairs.
_CJK_RUN = lazy(r"[\u3400-\u9fff]{2,}")
_CJK_FUNCTION = frozenset("我的了")  # pairs with these name nothing a topic is about


def cjk_pairs(text: str) -> set[str]:
    """The pairs of adjacent Chinese characters of ``text`` ("我前任" → {"我前", "前任"})."""
    return {run[i : i + 2] for run in _CJK_RUN.findall(text) for i in range(len(run) - 1)}


def topic_matches(topic: str, text: str, ignore: frozenset[str] = frozenset()) -> bool:
    """Whether a memory's text is about a forget request's topic (most topic words present; in Chinese every
    character pair of the topic, "我" and "的" aside: "我前任" names "我前任陈凯又给我发消息了")."""
    if pairs := {p for p in cjk_pairs(topic) if not _CJK_FUNCTION & set(p)}:
        return pairs <= cjk_pairs(text)
    wanted = content_tokens(topic, ignore | _GENERIC) or content_tokens(topic, ignore)
    if not wanted:
        return False
    have = content_tokens(text, ignore)
    shared = wanted & have
    telling = {w for w in shared if stem(w) not in _VERBS}  # "like" alone does not name "I like jazz"
    return len(shared) == len(wanted) or (bool(telling) and len(shared) / len(wanted) >= 0.5)


def forget_texts() -> None:
    """Empty the caches of words and texts read (on every erasure)."""
    stem.cache_clear()
    content_tokens.cache_clear()
    _normal.cache_clear()
