"""Small text helpers shared by the read and write paths."""

from __future__ import annotations

import re

from memscribe.core.cjk import STOP_CHARACTERS, has_cjk, query_segments

__all__ = ["EMOJI", "estimate_tokens", "keyword_terms", "normalize"]

# A pictograph or symbol of the emoji blocks, as a regex character class (a variation selector or joiner apart).
EMOJI = r"[\u2600-\u27bf\U0001f300-\U0001faff]"

_WORD = re.compile(r"[\w']+", re.UNICODE)
_SPACE = re.compile(r"\s+")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "about",
        "from",
        "into",
        "over",
        "under",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "there",
        "here",
        "not",
        "no",
        "so",
        "as",
        "than",
        "too",
        "very",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "just",
        "also",
        "any",
        "all",
        "some",
        "such",
        "only",
        "own",
        "same",
        "other",
        "more",
        "most",
        "s",
        "t",
        "don't",
        "i'm",
        "i've",
        "it's",
        "that's",
        "what's",
    ]
)


def normalize(text: str) -> str:
    """Lower-cased, whitespace-collapsed text for duplicate detection."""
    return _SPACE.sub(" ", text).strip().lower()


def keyword_terms(text: str, limit: int = 32) -> list[str]:
    """Distinct content words of a query, stopwords removed, in first-seen order. Chinese, Japanese and
    Korean runs give their character bigrams and characters (``memscribe.core.cjk``), as the index holds them."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query_segments(text.lower())):
        word = word.strip("'")
        if (len(word) > 1 and word not in STOPWORDS and not word.isdigit()) or (word.isdigit() and len(word) == 4):
            seen.setdefault(word, None)
        elif len(word) == 1 and word not in STOP_CHARACTERS and has_cjk(word):
            seen.setdefault(word, None)  # one CJK character is a word ("猫")
        if len(seen) >= limit:
            break
    return list(seen)


def estimate_tokens(text: str) -> int:
    """A model-free token estimate (about 4 characters per token), never below the word count."""
    return max(len(text) // 4, len(_WORD.findall(text)), 1 if text else 0)
