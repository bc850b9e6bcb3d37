"""Hybrid search over one partition: vector and keyword candidates, fused by rank.

Who a query is about is a third ranking signal. A query that names a person ("Where does Priya live?") or a
relative of the user ("my sister's job") is about that subject; any other first-person query ("What is my
job title?") is about the user, whose memories are written "User …". The best fused hits about that subject
form a third list for reciprocal-rank fusion, so a memory about the right person outranks an equally good
match about someone else, while a much better match still wins. ("user" is not added as a keyword: nearly
every memory of a user's store holds it, so BM25 would rank the shortest memories first.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memscribe.core.records import MemoryRecord
from memscribe.core.text import keyword_terms
from memscribe.providers.ports import Embedder
from memscribe.read.fuse import fuse_rrf
from memscribe.read.kin import PARTNERS, RELATIVE, kin, with_aliases
from memscribe.read.rank import rerank_hits, spread_sources
from memscribe.stores.ports import Partition, RecordFilter, SearchSource

__all__ = ["Hit", "about_subjects", "gather_hits", "inflected"]


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
        owner, possessive, _ = term.partition("'s")
        out.update(dict.fromkeys(_forms(term) if not possessive else (owner,)))  # "priyanka's" → "priyanka"
    return list(out)


# "I", "me", "my", "mine", "myself" and their contractions: the speaking user.
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b|\bi'(?:m|ve|d|ll)\b", re.IGNORECASE)
_USER = "user"


def _names(subject: str, query: str) -> bool:
    """Whether ``query`` (lower-cased) names ``subject``: "priya", or "user's sister" as "my (older) sister"."""
    head, _, relation = subject.partition("'s ")
    if head == _USER and relation:
        return re.search(rf"\bmy (?:[\w-]+ )?{re.escape(relation)}\b", query) is not None
    if subject in (_USER, "assistant") or not subject:
        return False
    return re.search(rf"\b{re.escape(subject.replace('-', ' '))}\b", query.replace("-", " ")) is not None


def about_subjects(query: str, subjects: Sequence[str]) -> set[str]:
    """Which of ``subjects`` (lower-case subject keys) ``query`` is about: those it names, else the user
    when it is in the first person, else none."""
    lowered = query.lower()
    named = {s for s in set(subjects) if _names(s, lowered)}
    if named:
        return named
    return {_USER} if _FIRST_PERSON.search(query) else set()


def _owner_unless_relative(query: str, subjects: Sequence[str], records: Sequence[MemoryRecord] = ()) -> set[str]:
    """A query that names no known subject is about the store's own user, when there is one; one that names a
    relative ("Where does Jess's sister live?", "Is Arjun's father still working?") is about the subjects kept
    for that relative under any word for it ("user's dad"), or under the name the user gave them ("my husband
    Mark …", then "mark quit pwc") in the slot facts among ``records``, if any."""
    relative = RELATIVE.search(query)
    if relative is not None:
        relation = kin(relative.group(0))
        names = _names_of(relation, records)
        # "she's all settled" may be the sister: an unnamed "someone" stays a candidate
        kept = {s for s in subjects if "'s " in s and kin(s.rsplit("'s ", 1)[1]) in (relation, "someone")}
        return kept | (names & set(subjects))
    return {_USER} if _USER in subjects else set()


def _names_of(relation: str, records: Sequence[MemoryRecord]) -> set[str]:
    """The names the user gave their ``relation`` in the slot facts among ``records`` ("my husband Mark" holds
    ``user/partner`` = "mark"; "my sister is called Ana" ``user's sister/name`` = "ana")."""
    slots = {f"{_USER}/partner"} if relation in PARTNERS else set()
    slots.add(f"{_USER}'s {relation}/name")
    return {r.value.lower() for r in records if r.slot in slots and r.value}


# A name a question gives a person: a capitalised word after its first ("What is Priyanka's role?").
_QUERY_NAME = re.compile(r"(?<!^)\b[A-Z][a-z]+\b")


def _mentioning(query: str, records: Sequence[MemoryRecord]) -> set[str]:
    """The subjects of the memories that name a person the question names but no memory is about ("What is
    Priyanka's role?" — "my coworker priyanka got promoted"): the question is about them, not the user."""
    names = {m.group(0).lower() for m in _QUERY_NAME.finditer(query.strip())}
    if not names:
        return set()
    return {r.subject.lower() for r in records if names & set(re.findall(r"\w+", r.text.lower()))}


def _without_names(terms: list[str], about: set[str]) -> list[str]:
    """``terms`` without the words naming a subject among ``about`` ("melanie", "melanie's")."""
    names = {w for s in about if s != _USER and "'s " not in s for w in re.split(r"[\s-]+", s) if w}
    return [t for t in terms if t.split("'")[0] not in names] if names else terms


def gather_hits(
    store: SearchSource,
    embedder: Embedder,
    partition: Partition,
    query: str,
    flt: RecordFilter,
    limit: int,
    *,
    query_vector: object | None = None,
    question: bool = False,
) -> list[Hit]:
    """The ``limit`` best current memories for ``query`` under ``flt``.

    ``question`` ranks for someone asking (the public search), not for a writer looking for candidates: a
    person the query names is matched through the subject rather than by the word, other people's memories
    rank lower, and memories drawn from the same message as a better hit rank lower
    (:func:`~memscribe.read.rank.spread_sources`)."""
    depth = max(limit * 3, 30)
    vector = query_vector if query_vector is not None else embedder.embed([query])[0]
    by_vector = store.vector_search(partition, vector, embedder.model_id, flt, depth)  # type: ignore[arg-type]
    words = keyword_terms(query)
    terms = inflected(with_aliases(words) if question else words)  # a question's "wife" finds "my fiancée"
    by_keyword = store.keyword_search(partition, terms, flt, depth)
    # The subject list only reorders this pool: fusing it in raises pool hits alone, so the top stays inside.
    pool_size = max(limit * 2, 10)
    pool = fuse_rrf([by_vector, by_keyword])[:pool_size]
    records = {r.version_id: r for r in store.by_version_ids(partition, [vid for vid, _ in pool])}
    ordered = [records[vid] for vid, _ in pool if vid in records]
    subjects = [r.subject.lower() for r in ordered]
    about = about_subjects(query, subjects)
    topical = _without_names(terms, about) if question else terms
    if topical != terms:
        # "Where has Melanie camped?": a person's own statements rarely hold their name, while everything said
        # *to* them does ("Hey Melanie!"), so the name is matched through the subject, the rest by keyword.
        by_keyword = store.keyword_search(partition, topical, flt, depth) if topical else []
        pool = fuse_rrf([by_vector, by_keyword])[:pool_size]
        missing = [vid for vid, _ in pool if vid not in records]
        records.update((r.version_id, r) for r in store.by_version_ids(partition, missing))
        ordered = [records[vid] for vid, _ in pool if vid in records]
    by_subject = [(r.version_id, 1.0) for r in ordered if r.subject.lower() in about]
    fused = fuse_rrf([by_vector, by_keyword, by_subject]) if by_subject else pool
    vscore, kscore = dict(by_vector), dict(by_keyword)
    # A query that names a subject already has it fused in as a list; the rerank holds back other people's
    # memories only for a store's own user or a relative, whose memories the subject list cannot tell apart.
    owner = about if about == {_USER} else set() if about else _owner_unless_relative(query, subjects, ordered)
    if not about and question:
        owner = _mentioning(query, ordered) or owner
    # Scores are comparable across candidates only when both lists reached the end of what matches (a small
    # store): then the rerank weighs how well each hit matches. A list cut at ``depth`` leaves the scores of the
    # memories below the cut unknown, so the retrieval ranks carry the rerank instead (fusion, not a guess).
    complete = len(by_vector) < depth and len(by_keyword) < depth
    scores = (vscore, kscore) if complete else (None, None)
    named = about if question and about != {_USER} else set()
    fused = rerank_hits(query, fused, records, owner, *scores, named=named)
    if question:
        fused = spread_sources(fused, records)
    fused = fused[:limit]
    return [Hit(records[vid], score, vscore.get(vid), kscore.get(vid)) for vid, score in fused if vid in records]
