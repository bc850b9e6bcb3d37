"""Keyword (FTS5 BM25) and vector search for SQLiteStore, confined to one partition and a RecordFilter."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memscribe.core.cjk import bigram_phrase
from memscribe.stores.embedding import query_vector
from memscribe.stores.ports import Partition, RecordFilter
from memscribe.stores.sqlite.filters import where
from memscribe.stores.sqlite.vectors import SQLiteVectorLog, VectorCache, partition_token

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = ["MATCHED_DOCS_BUDGET", "MAX_QUERY_TERMS", "SMALL_PARTITION_TERMS", "SearchMixin"]

MATCHED_DOCS_BUDGET = 1_000  # keyword search adds words, rarest first, while they match fewer documents
MAX_QUERY_TERMS = 6  # ... and ORs at most this many of them
SMALL_PARTITION_TERMS = 16  # a partition within the budget is ranked on this many query words, in query order


class SearchMixin:
    """Search methods of SQLiteStore; the store provides ``_read``, ``vectors`` and ``embedding_model``."""

    vectors: VectorCache
    _read: Callable[..., Any]
    embedding_model: Callable[[], tuple[str, int] | None]

    # -- search --------------------------------------------------------------------------------------

    def keyword_search(
        self, partition: Partition, terms: Sequence[str], flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        if not terms:
            return []
        part = f"part:{partition_token(partition)}"
        if self._matches_at_most(part, MATCHED_DOCS_BUDGET):
            # The whole partition fits the ranking budget (the usual case: many users with a few hundred
            # memories each): rank it on the query's words, however common they are elsewhere in the store.
            terms, narrower, ranked = list(terms[:SMALL_PARTITION_TERMS]), True, True
        else:
            terms, rarest = self._selective_terms(terms)
            # The partition token narrows the match when the partition is the smaller set; when it is not (one
            # user holding most of the store), reading its long doclist costs more than the row filter below.
            # The partition is already known to exceed the budget, so only a rarest word past it can be larger.
            narrower = not rarest or (rarest > MATCHED_DOCS_BUDGET and self._matches_at_most(part, rarest))
            # When even the rarest word matches more documents than the budget, BM25 cannot tell them apart
            # in useful time: take the newest matches.
            ranked = rarest <= MATCHED_DOCS_BUDGET
        words = " OR ".join(_phrase(term) for term in terms)
        match = f"{part} AND ({words})" if narrower else f"({words})"
        clause, params = where(partition, flt)
        # Rank inside FTS first (joining every match to its row before ranking costs twice as much), then
        # filter the best; widen when filters hid too many of them.
        # FTS5 walks a doclist backwards for ``ORDER BY rowid DESC``; any other order sorts every match.
        rank, order = ("bm25(memories_fts, 1.0, 0.0)", "rank") if ranked else ("-rowid", "rowid DESC")
        sql = (
            f"SELECT m.version_id, f.rank FROM (SELECT rowid, {rank} AS rank "
            f"FROM memories_fts WHERE memories_fts MATCH ? ORDER BY {order} LIMIT ?) f "
            f"JOIN memories m ON m.rowid = f.rowid WHERE {clause} ORDER BY f.rank LIMIT ?"
        )

        def scored(rows: list[tuple[str, float]]) -> list[tuple[str, float]]:
            if ranked:
                return [(vid, -rank) for vid, rank in rows]
            return [(vid, 1.0 / (1 + i)) for i, (vid, _) in enumerate(rows)]

        def run(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            depth = limit * 4
            while True:
                rows = conn.execute(sql, (match, depth, *params, limit)).fetchall()
                if len(rows) >= limit or depth >= 1 << 20:
                    return scored(rows)
                matched = conn.execute(
                    "SELECT COUNT(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
                    (match, depth),
                ).fetchone()[0]
                if matched < depth:  # every match was seen: the filters, not the depth, limited the answer
                    return scored(rows)
                depth *= 4

        result: list[tuple[str, float]] = self._read(run, [])
        return result

    def _matches_at_most(self, match: str, bound: int) -> bool:
        """Whether ``match`` matches at most ``bound`` documents. Reads at most ``bound + 1`` of its doclist,
        where fts5vocab would count all of it (24 ms for a partition of 1M memories)."""

        def run(conn: sqlite3.Connection) -> bool:
            sql = "SELECT COUNT(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)"
            return bool(conn.execute(sql, (match, bound + 1)).fetchone()[0] <= bound)

        found: bool = self._read(run, False)
        return found

    def _selective_terms(self, terms: Sequence[str]) -> tuple[list[str], int]:
        """The query's most selective words and the document count of the rarest. BM25 ranks every document a
        word occurs in (about 3 µs each here), so words are taken rarest first while the documents they match
        stay under ``MATCHED_DOCS_BUDGET`` (the rarest word is always kept); unknown words are dropped. Common
        words add little to keyword ranking, and the vector side of the search still reads the whole query.
        Counts are store-wide (SQLite's fts5vocab), an upper bound for one partition."""

        def run(conn: sqlite3.Connection) -> dict[str, int]:
            marks = ",".join("?" * len(terms))
            rows = conn.execute(f"SELECT term, doc FROM memories_fts_vocab WHERE term IN ({marks})", list(terms))
            return {term: doc for term, doc in rows}

        docs: dict[str, int] = self._read(run, {})
        known = sorted((docs[t.lower()], i, t) for i, t in enumerate(terms) if docs.get(t.lower()))
        if not known:
            return list(terms), 0
        kept: list[tuple[int, str]] = []
        matched = 0
        for doc, i, term in known[:MAX_QUERY_TERMS]:
            if kept and matched + doc > MATCHED_DOCS_BUDGET:
                break
            kept.append((i, term))
            matched += doc
        return [t for _, t in sorted(kept)], known[0][0]

    def vector_search(
        self, partition: Partition, vector: Vectors, model_id: str, flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        known = self.embedding_model()
        if known is None:
            return []
        query = query_vector(known, vector, model_id)
        if flt.current_only:
            return self._ann_search(partition, query, flt, limit, known[1])
        return self._exact_search(partition, query, flt, limit)

    def _ann_search(
        self, partition: Partition, query: Vectors, flt: RecordFilter, limit: int, dim: int
    ) -> list[tuple[str, float]]:
        clause, params = where(partition, flt)
        k = limit * 3 + 10

        def run(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            nonlocal k
            while True:
                hits = self.vectors.search(SQLiteVectorLog(conn), partition, dim, query, k)
                if not hits:
                    return []
                score = dict(hits)
                marks = ",".join("?" * len(hits))
                rows = conn.execute(
                    f"SELECT m.rowid, m.version_id FROM memories m WHERE m.rowid IN ({marks}) AND {clause}",
                    (*score, *params),
                ).fetchall()
                # Equal scores (one text kept as two memories) keep the order they were written in, not their
                # random ids' order: a writer reading them gets the same candidates on every run.
                found = sorted(((score[r[0]], r[0], r[1]) for r in rows), key=lambda f: (-f[0], f[1]))
                if len(found) >= limit or len(hits) < k:
                    return [(vid, s) for s, _, vid in found[:limit]]
                k *= 4  # filters hid too many neighbours: widen the net

        result: list[tuple[str, float]] = self._read(run, [])
        return result

    def _exact_search(
        self, partition: Partition, query: Vectors, flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        clause, params = where(partition, flt)

        def run(conn: sqlite3.Connection) -> list[tuple[str, float]]:
            rows = conn.execute(
                f"SELECT m.version_id, v.vector FROM vectors v JOIN memories m ON m.rowid = v.rowid WHERE {clause}"
                " ORDER BY v.rowid",
                params,
            ).fetchall()
            if not rows:
                return []
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
            scores = matrix @ query
            top = np.argsort(-scores, kind="stable")[:limit]  # equal scores in the order they were written
            return [(rows[i][0], float(scores[i])) for i in top]

        result: list[tuple[str, float]] = self._read(run, [])
        return result


def _phrase(term: str) -> str:
    """``term`` as an FTS5 phrase; a CJK term becomes the phrase of its bigrams, as the index holds them."""
    return '"' + bigram_phrase(term).replace('"', '""') + '"'
