"""Keyword (``tsvector`` / GIN, ``ts_rank``) and vector (pgvector, inner product; HNSW over current versions)
search for PostgresStore, confined to one partition and a RecordFilter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memscribe.core.cjk import bigram_phrase
from memscribe.stores.embedding import query_vector
from memscribe.stores.ports import Partition, RecordFilter
from memscribe.stores.postgres.filters import where

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = ["MAX_QUERY_TERMS", "SearchMixin", "vector_literal"]

MAX_QUERY_TERMS = 16  # the query words ORed together, in query order
MATCHED_ROWS_BUDGET = 1_000  # words are kept, rarest first, while the rows they match stay under this


def _selective(conn: Any, partition: Partition, phrases: list[str]) -> tuple[list[str], bool]:
    """The query's words to rank on, and whether to rank at all, in one round trip. A partition within the
    budget is ranked on every word. Otherwise words are kept rarest first while the rows they match stay
    within the budget (the rarest always), and ranked=False when even the rarest exceeds it. Row counts are
    the planner's estimates from the column's statistics (``memscribe_word_rows``: store-wide, an upper
    bound for one partition, as the SQLite store's vocabulary counts are); before the table's first ANALYZE
    each word's matches in the partition are counted instead, bounded."""
    matches = (
        "SELECT count(*) FROM (SELECT 1 FROM memories m WHERE m.tenant = %(tenant)s AND m.user_id = %(user)s "
        "AND m.retired_at IS NULL AND {cond} LIMIT %(bound)s) c"
    )
    counted = matches.format(cond="m.keywords @@ phraseto_tsquery('memscribe_words', u.w)")
    sql = (
        f"SELECT p.n, e.rows, CASE WHEN p.n > %(budget)s AND e.rows IS NULL THEN "
        f"array(SELECT ({counted}) FROM unnest(%(words)s::text[]) WITH ORDINALITY AS u(w, i) ORDER BY u.i) END "
        f"FROM ({matches.format(cond='true')}) p(n) LEFT JOIN LATERAL "
        f"(SELECT memscribe_word_rows(%(words)s::text[]) WHERE p.n > %(budget)s) e(rows) ON true"
    )
    params = {"tenant": partition[0], "user": partition[1], "bound": MATCHED_ROWS_BUDGET + 1,
              "budget": MATCHED_ROWS_BUDGET, "words": phrases}  # fmt: skip
    small, estimated, counts = conn.execute(sql, params).fetchone()
    if small <= MATCHED_ROWS_BUDGET:
        return phrases, True
    rows = estimated if estimated is not None else counts
    docs = sorted((int(n), i, phrase) for i, (n, phrase) in enumerate(zip(rows, phrases, strict=True)))
    if estimated is None:
        docs = [(n, i, phrase) for n, i, phrase in docs if n]  # words matching nothing add nothing
    if not docs:
        return phrases, True
    kept: list[tuple[int, str]] = []
    matched = 0
    for n, i, phrase in docs:
        if kept and matched + n > MATCHED_ROWS_BUDGET:
            break
        kept.append((i, phrase))
        matched += n
    return [phrase for _, phrase in sorted(kept)], docs[0][0] <= MATCHED_ROWS_BUDGET


def vector_literal(vector: Any) -> str:
    """A float32 vector as pgvector's text form."""
    return "[" + ",".join(f"{x:.8g}" for x in np.asarray(vector, dtype=np.float32).reshape(-1).tolist()) + "]"


class SearchMixin:
    """Search methods of PostgresStore; the store provides ``read`` and ``embedding_model``."""

    read: Callable[..., Any]
    embedding_model: Callable[[], tuple[str, int] | None]
    ensure_ann_index: Callable[[int], None]

    def keyword_search(
        self, partition: Partition, terms: Sequence[str], flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        phrases = [bigram_phrase(term) for term in terms[:MAX_QUERY_TERMS] if term.strip()]
        if not phrases:
            return []
        clause, params = where(partition, flt)

        def work(conn: Any) -> list[tuple[str, float]]:
            chosen, ranked = _selective(conn, partition, phrases)
            # Each word (a CJK word: the phrase of its bigrams, as the index holds it) ORed with the others.
            tsquery = " || ".join(["phraseto_tsquery('memscribe_words', %s)"] * len(chosen))
            # ts_rank reads every matching row's tsvector: when even the rarest word matches more rows than
            # the budget, rank the newest matches instead (as the SQLite store does).
            score, order = ("ts_rank(m.keywords, q.q)", "score DESC, m.seq") if ranked else ("0", "m.seq DESC")
            sql = (
                f"SELECT m.version_id, {score} AS score FROM memories m, (SELECT {tsquery} AS q) q "
                f"WHERE m.keywords @@ q.q AND {clause} ORDER BY {order} LIMIT %s"
            )
            rows = conn.execute(sql, (*chosen, *params, limit)).fetchall()
            if ranked:
                return [(vid, float(s)) for vid, s in rows]
            return [(vid, 1.0 / (1 + i)) for i, (vid, _) in enumerate(rows)]

        result: list[tuple[str, float]] = self.read(work, partition)
        return result

    def vector_search(
        self, partition: Partition, vector: Vectors, model_id: str, flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        known = self.embedding_model()
        if known is None:
            return []
        query = query_vector(known, vector, model_id)
        dim = int(known[1])
        self.ensure_ann_index(dim)
        clause, params = where(partition, flt)
        # The cast matches the HNSW index's expression: for current versions of a large partition the planner
        # walks the index (iteratively, until enough rows pass the filter); for history, as_of and small
        # partitions it ranks the partition's rows exactly.
        distance = f"(m.embedding::vector({dim}) <#> %s::vector({dim}))"
        sql = f"SELECT m.version_id, -{distance} FROM memories m WHERE {clause} ORDER BY {distance} LIMIT %s"
        literal = vector_literal(query)

        def work(conn: Any) -> list[tuple[str, float]]:
            rows = conn.execute(sql, (literal, *params, literal, limit)).fetchall()
            return [(vid, float(score)) for vid, score in rows]

        result: list[tuple[str, float]] = self.read(work, partition)
        return result
