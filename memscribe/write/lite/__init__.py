"""The lite writer: keeps the memory store true with rules only (no LLM, offline, deterministic).

Moving from Seattle to Sydney supersedes the Seattle residence; an older statement never supersedes a
newer one; a brother's city never replaces the user's; corrections rewrite, forget requests delete.
"""

from memscribe.write.lite.matching import forget_texts
from memscribe.write.lite.segment import forget_names
from memscribe.write.lite.writer import LiteWriter

__all__ = ["LiteWriter", "forget_cached_texts"]


def forget_cached_texts() -> None:
    """Empty the lite writer's caches of texts, words and names read (on every erasure)."""
    forget_texts()
    forget_names()
