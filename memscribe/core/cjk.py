"""Keyword segmentation of Chinese, Japanese and Korean text: characters and overlapping character bigrams.

CJK text has no spaces between words, so a word tokenizer reads a whole clause ("我住在北京") as one token and
a query for "北京" never matches it. Each run of CJK characters is therefore indexed as its characters and its
overlapping bigrams ("我 住 在 北 京 我住 住在 在北 北京"), the dictionary-free segmentation of Lucene's CJK
analyzer: a word of two or more characters is a bigram, or a phrase of consecutive bigrams, of every text
holding it, and a one-character word (猫, 车, 家) is a character token. Measured on Chinese, Japanese and Korean
fixtures against FTS5's trigram tokenizer, which cannot match the two-character words most Chinese nouns are
(北京, 医生), and against bigrams alone, which miss one-character words (``docs/architecture.md``). Text
without CJK is returned unchanged.
"""

from __future__ import annotations

import re

__all__ = ["STOP_CHARACTERS", "bigram_phrase", "cjk_bigrams", "has_cjk", "query_segments", "segment_cjk"]

# Han (with extension A and compatibility ideographs), kana, half-width katakana, Hangul syllables and jamo.
_CJK = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
_RUN = re.compile(f"[{_CJK}]+")

# Function characters (pronouns, particles, question words) never asked for alone: as one-character query
# words they match most of a CJK store, and counting their documents is what keyword search spends time on.
# They still take part in the query's bigrams ("住在").
STOP_CHARACTERS = frozenset(
    "我你他她它们的地得了着过是在有和与也都就还又很不没吗呢吧啊呀么什哪谁怎这那个一些把被给对从到为"
    "のにはをがでてともたすまいかよねだです은는이가을를에의도요고"
)


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds any Chinese, Japanese or Korean character."""
    return _RUN.search(text) is not None


def cjk_bigrams(run: str) -> list[str]:
    """The overlapping bigrams of one run of CJK characters; a one-character run is itself."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _tokens(run: str, *, characters: bool, bigrams_first: bool) -> str:
    pairs = cjk_bigrams(run)
    if not characters or len(run) < 2:
        return " " + " ".join(pairs) + " "
    parts = [*pairs, *run] if bigrams_first else [*run, *pairs]
    return " " + " ".join(parts) + " "


def segment_cjk(text: str) -> str:
    """The keyword-index form of ``text``: every CJK run replaced by its characters and then its bigrams,
    space-separated (so a run's bigrams stay consecutive for phrase queries, and a run glued to a Latin word,
    "用iPhone拍", splits from it). Other text is kept as it is."""
    if not has_cjk(text):
        return text
    return _RUN.sub(lambda m: _tokens(m.group(), characters=True, bigrams_first=False), text)


def query_segments(text: str) -> str:
    """The query form of ``text``: each CJK run as its bigrams, then its characters (the more telling tokens
    first, for callers that keep only the first few words). Callers drop :data:`STOP_CHARACTERS` alone."""
    if not has_cjk(text):
        return text
    return _RUN.sub(lambda m: _tokens(m.group(), characters=True, bigrams_first=True), text)


def bigram_phrase(term: str) -> str:
    """``term`` with each CJK run as its bigrams only: the phrase a multi-character word is in the index."""
    if not has_cjk(term):
        return term
    return " ".join(_RUN.sub(lambda m: _tokens(m.group(), characters=False, bigrams_first=True), term).split())
