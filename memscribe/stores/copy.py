"""Copy every partition of one store into another, and verify the copy.

Works through the store ports, plus two reads no port offers because only a migration needs them: the
partitions a store holds and the stored vectors of given versions (each built-in backend answers both, so the
copy keeps the source's embeddings instead of re-embedding). Verification compares, per partition, the
counts, a checksum of every version (ids, texts, times, status, links), of the journal and of the episodes,
and a sample of searches (a stored vector must find its own version first in both stores, and a word of a
stored text must match the same versions)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memscribe.core.records import MemoryRecord
from memscribe.errors import InvalidInput, StoreError
from memscribe.stores.ports import Changeset, Partition, RecordFilter, Store

__all__ = ["CopyReport", "copy_store", "partitions_of", "stored_vectors", "verify_copy"]

HISTORY = RecordFilter(include_history=True)
BATCH = 500
COUNTS = ("memories", "versions", "current", "episodes", "pending_episodes", "journal")


@dataclass
class CopyReport:
    partitions: int = 0
    episodes: int = 0
    versions: int = 0
    journal: int = 0
    problems: list[str] = field(default_factory=list)
    searches: int = 0

    @property
    def verified(self) -> bool:
        return not self.problems


def partitions_of(store: Store) -> list[Partition]:
    """Every (tenant, user_id) holding an episode, a memory or a journal line."""
    sql = "SELECT tenant, user_id FROM {t} GROUP BY tenant, user_id"
    union = " UNION ".join(sql.format(t=t) for t in ("episodes", "memories", "journal"))
    rows = _sql(store, f"SELECT DISTINCT tenant, user_id FROM ({union}) p ORDER BY tenant, user_id", ())
    return [(str(t), str(u)) for t, u in rows]


def stored_vectors(store: Store, partition: Partition, version_ids: list[str]) -> np.ndarray:
    """The stored vectors of ``version_ids`` (rows in that order)."""
    from memscribe.stores.postgres.store import PostgresStore
    from memscribe.stores.sqlite import SQLiteStore

    if isinstance(store, PostgresStore):
        sql = ("SELECT version_id, embedding::real[] FROM memories WHERE tenant = %s AND user_id = %s "
               "AND version_id = ANY(%s)")  # fmt: skip
        rows = store.run(lambda conn: conn.execute(sql, (*partition, version_ids)).fetchall(), partition)
        found = {vid: np.asarray(vec, dtype=np.float32) for vid, vec in rows}
    elif isinstance(store, SQLiteStore):
        marks = ",".join("?" * len(version_ids))
        sql = (f"SELECT m.version_id, v.vector FROM vectors v JOIN memories m ON m.rowid = v.rowid "
               f"WHERE m.tenant = ? AND m.user_id = ? AND m.version_id IN ({marks})")  # fmt: skip
        rows = store.db.read(lambda conn: conn.execute(sql, (*partition, *version_ids)).fetchall())
        found = {vid: np.frombuffer(blob, dtype=np.float32) for vid, blob in rows}
    else:
        raise InvalidInput(f"cannot read the vectors of a {type(store).__name__}")
    missing = [v for v in version_ids if v not in found]
    if missing:
        raise StoreError(f"{len(missing)} versions of {partition} have no stored vector")
    return np.stack([found[v] for v in version_ids])


def _sql(store: Store, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    from memscribe.stores.postgres.db import ALL
    from memscribe.stores.postgres.store import PostgresStore
    from memscribe.stores.sqlite import SQLiteStore

    if isinstance(store, PostgresStore):
        return list(store.run(lambda conn: conn.execute(sql, params).fetchall(), (ALL, ALL)))
    if isinstance(store, SQLiteStore):
        if not store._open(create=False):
            return []
        return list(store.db.read(lambda conn: conn.execute(sql.replace("%s", "?"), params).fetchall()))
    raise InvalidInput(f"cannot list the partitions of a {type(store).__name__}")


def _versions(store: Store, partition: Partition) -> Iterator[list[MemoryRecord]]:
    offset = 0
    while batch := store.query(partition, HISTORY, limit=BATCH, offset=offset):
        yield batch
        offset += len(batch)


def copy_store(source: Store, target: Store, *, progress: Callable[[int], None] | None = None) -> CopyReport:
    """Copy every partition of ``source`` into the empty ``target``; ``progress`` gets versions copied."""
    if any(target.stats()[k] for k in ("versions", "episodes", "journal")):
        raise InvalidInput("the target store is not empty: migrate into a new database or file")
    report = CopyReport()
    for partition in partitions_of(source):
        report.partitions += 1
        episodes = list(source.episodes(partition))
        for episode in episodes:
            state = source.episode_state(partition, episode.id)
            target.put_episode(episode, writer=state.writer if state else None, model=state.model if state else None)
        for batch in _versions(source, partition):
            vectors = stored_vectors(source, partition, [r.version_id for r in batch])
            # Older versions first, so a memory's retired rows are in before its current one.
            order = sorted(range(len(batch)), key=lambda i: (batch[i].id, batch[i].version))
            rows = tuple(batch[i] for i in order)
            target.apply(Changeset(partition, None, insert=rows, vectors=vectors[order], episode_done=False))
            report.versions += len(batch)
            if progress is not None:
                progress(len(batch))
        journal = tuple(source.journal(partition))
        for start in range(0, len(journal), BATCH):
            target.apply(Changeset(partition, None, journal=journal[start : start + BATCH], episode_done=False))
        report.journal += len(journal)
        for episode in episodes:
            state = source.episode_state(partition, episode.id)
            if state is not None and state.status == "done":
                target.apply(Changeset(partition, episode.id, require_pending=False))
        report.episodes += len(episodes)
    return report


def _digest(store: Store, partition: Partition) -> tuple[str, str, str]:
    versions, journal, episodes = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    rows = sorted((r for batch in _versions(store, partition) for r in batch), key=lambda r: r.version_id)
    for r in rows:
        fields = (r.version_id, r.id, r.version, r.text, r.slot, r.value, r.status.value, r.valid_from,
                  r.valid_to, r.recorded_at, r.retired_at, r.supersedes, r.superseded_by, r.episode_id)  # fmt: skip
        versions.update(repr(fields).encode())
    for e in store.journal(partition):
        journal.update(repr((e.id, e.kind.value, e.memory_id, e.version_id, e.reason, e.accepted)).encode())
    for ep in store.episodes(partition):
        episodes.update(repr((ep.id, ep.idempotency_key, [m.content for m in ep.messages])).encode())
    return versions.hexdigest(), journal.hexdigest(), episodes.hexdigest()


def verify_copy(source: Store, target: Store, report: CopyReport, *, sample: int = 3) -> CopyReport:
    """Compare ``target`` with ``source`` partition by partition; problems go into ``report.problems``."""
    for partition in partitions_of(source):
        a = {k: source.stats(partition)[k] for k in COUNTS}
        b = {k: target.stats(partition)[k] for k in COUNTS}
        if a != b:
            report.problems.append(f"{partition}: counts differ: {a} vs {b}")
        for name, x, y in zip(("versions", "journal", "episodes"), _digest(source, partition),
                              _digest(target, partition), strict=True):  # fmt: skip
            if x != y:
                report.problems.append(f"{partition}: the {name} checksum differs")
        _sample_searches(source, target, partition, report, sample)
    return report


def _sample_searches(source: Store, target: Store, partition: Partition, report: CopyReport, n: int) -> None:
    current = source.query(partition, RecordFilter(), limit=n)
    if not current:
        return
    vectors = stored_vectors(source, partition, [r.version_id for r in current])
    for record, vector in zip(current, vectors, strict=True):
        model = record.embedding_model or ""
        hits = [{v for v, _ in s.vector_search(partition, vector, model, RecordFilter(), 3)} for s in (source, target)]
        if not all(record.version_id in found for found in hits):
            report.problems.append(f"{partition}: a stored vector does not find its own version in both stores")
        words = sorted((w for w in record.text.lower().split() if w.isalpha() and len(w) >= 4), key=len)
        if words:
            word = [words[-1]]
            matched = [{v for v, _ in s.keyword_search(partition, word, HISTORY, 1000)} for s in (source, target)]
            if max(map(len, matched)) < 1000 and matched[0] != matched[1]:
                report.problems.append(f"{partition}: keyword {words[-1]!r} matches different versions")
        report.searches += 2
