"""Hybrid search over one partition: vector and keyword candidates, fused by rank."""

from __future__ import annotations

from dataclasses import dataclass

from memscribe.core.records import MemoryRecord
from memscribe.core.text import keyword_terms
from memscribe.providers.ports import Embedder
from memscribe.read.fuse import fuse_rrf
from memscribe.stores.ports import Partition, RecordFilter, Store

__all__ = ["Hit", "gather_hits", "inflected"]


@dataclass(frozen=True)
class Hit:
    record: MemoryRecord
    score: float
    vector_score: float | None
    keyword_score: float | None


# Words that ask for the current state rather than name a topic ("Where do I live now?").
_TIMELESS = frozenset({"now", "currently", "nowadays", "presently"})


def _forms(word: str) -> list[str]:
    """Regular English inflections of ``word``: "live" → lives, lived, living; "hobbies" → hobby."""
    if not word.isalpha() or len(word) < 3:
        return []
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            base = word[: -len(suffix)]
            base = base[:-1] if base[-1] == base[-2] else base  # "planning" → "plan"
            return [base, base + "e", base + "s"]
    if word.endswith("ies"):
        return [word[:-3] + "y"]
    if word.endswith("s") and not word.endswith("ss"):
        return [word[:-1]]
    if word.endswith("y") and word[-2] not in "aeiou":
        return [word[:-1] + "ies", word[:-1] + "ied", word + "ing"]
    if word.endswith("e"):
        return [word + "s", word + "d", word[:-1] + "ing"]
    return [word + "s", word + "es", word + "ed", word + "ing"]


def inflected(terms: list[str]) -> list[str]:
    """Query terms plus their regular inflections, so "Where do I live?" finds "lives in Lisbon"."""
    terms = [t for t in terms if t not in _TIMELESS]
    out = dict.fromkeys(terms)
    for term in terms:
        out.update(dict.fromkeys(_forms(term)))
    return list(out)


def gather_hits(
    store: Store,
    embedder: Embedder,
    partition: Partition,
    query: str,
    flt: RecordFilter,
    limit: int,
    *,
    query_vector: object | None = None,
) -> list[Hit]:
    """The ``limit`` best current memories for ``query`` under ``flt``."""
    depth = max(limit * 3, 30)
    vector = query_vector if query_vector is not None else embedder.embed([query])[0]
    by_vector = store.vector_search(partition, vector, embedder.model_id, flt, depth)  # type: ignore[arg-type]
    by_keyword = store.keyword_search(partition, inflected(keyword_terms(query)), flt, depth)
    fused = fuse_rrf([by_vector, by_keyword])[:limit]
    records = {r.version_id: r for r in store.by_version_ids(partition, [vid for vid, _ in fused])}
    vscore, kscore = dict(by_vector), dict(by_keyword)
    return [Hit(records[vid], score, vscore.get(vid), kscore.get(vid)) for vid, score in fused if vid in records]
