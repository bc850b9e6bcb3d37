"""InMemoryStore: the shipped fake. Every store port kept in dicts under one lock, with SQLiteStore's
semantics (:mod:`memscribe.testing.contract` holds both to the same suite). Nothing touches the disk.

A changeset is staged on a copy of its partition's rows and swapped in only when every row passed, so a
failed ``apply`` writes nothing, as a rolled-back transaction would.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from memscribe.core.records import Episode, JournalEntry, MemoryRecord, Status
from memscribe.core.text import keyword_terms
from memscribe.errors import EmbeddingMismatch, InvalidInput, NotFound, StoreError, WriteConflict
from memscribe.stores.embedding import MOVE_HINT, query_vector
from memscribe.stores.filtering import matches
from memscribe.stores.ports import MAX_EPISODE_ATTEMPTS, Changeset, EpisodeState, Partition, PurgeReport, RecordFilter

__all__ = ["InMemoryStore"]

ERASED = "[erased]"  # what erased journal reasons and source messages read afterwards
_ALL = 1 << 30  # keyword_terms limit large enough to index every word of a memory
_K1, _B = 1.2, 0.75  # the usual BM25 constants

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class _Row:
    """One memory version and what the indexes need: its unit vector and its keyword terms."""

    seq: int
    record: MemoryRecord
    vector: Vector | None
    terms: frozenset[str]


@dataclass
class _EpisodeRow:
    episode: Episode
    status: str = "pending"
    attempts: int = 0
    error: str | None = None
    writer: str | None = None
    model: str | None = None
    retry_at: datetime | None = None

    def state(self, created: bool = False) -> EpisodeState:
        return EpisodeState(
            self.episode.id, self.status, created, self.attempts, self.error, self.writer, self.model, self.retry_at
        )


@dataclass
class _Partition:
    rows: dict[str, _Row] = field(default_factory=dict)  # version_id -> row, in insertion order
    journal: list[JournalEntry] = field(default_factory=list)


def _is_current(record: MemoryRecord) -> bool:
    return record.retired_at is None and record.status == Status.ACTIVE


class InMemoryStore:
    """A complete, thread-safe store in process memory: for tests, demos and as a reference backend."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[Partition, _Partition] = {}
        self._episodes: dict[str, _EpisodeRow] = {}  # by episode id, in insertion order
        self._homes: dict[str, Partition] = {}  # memory id -> the partition holding its versions
        self._model: tuple[str, int] | None = None  # (embedding model, dim) of every stored vector
        self._seq = 0

    def close(self) -> None:
        """Nothing to release; the data stays until the object is dropped."""

    def _rows(self, partition: Partition) -> list[_Row]:
        part = self._parts.get(partition)
        return list(part.rows.values()) if part else []

    # -- episodes ------------------------------------------------------------------------------------

    def put_episode(
        self,
        episode: Episode,
        *,
        writer: str | None = None,
        model: str | None = None,
        held_until: datetime | None = None,
    ) -> EpisodeState:
        with self._lock:
            part, key = episode.scope.partition, episode.idempotency_key
            known = self._episodes.get(episode.id) or next(
                (e for e in self._episodes.values()
                 if e.episode.scope.partition == part and e.episode.idempotency_key == key),
                None,
            )  # fmt: skip
            if known is not None:
                return known.state()
            row = self._episodes[episode.id] = _EpisodeRow(episode, writer=writer, model=model, retry_at=held_until)
            return row.state(created=True)

    def _episode(self, partition: Partition, episode_id: str) -> _EpisodeRow | None:
        row = self._episodes.get(episode_id)
        return row if row is not None and row.episode.scope.partition == partition else None

    def get_episode(self, partition: Partition, episode_id: str) -> Episode | None:
        with self._lock:
            row = self._episode(partition, episode_id)
            return row.episode if row else None

    def episode_state(self, partition: Partition, episode_id: str) -> EpisodeState | None:
        with self._lock:
            row = self._episode(partition, episode_id)
            return row.state() if row else None

    def pending_episodes(self, limit: int = 100, *, tenant: str | None = None) -> list[Episode]:
        return [e for e, _ in self._open_episodes(tenant, None, None, limit, live_only=True)]

    def pending(
        self, *, tenant: str | None = None, now: datetime | None = None, after: str | None = None, limit: int = 100
    ) -> list[tuple[Episode, EpisodeState]]:
        return self._open_episodes(tenant, now, after, limit, live_only=now is not None)

    def _open_episodes(
        self, tenant: str | None, now: datetime | None, after: str | None, limit: int, *, live_only: bool
    ) -> list[tuple[Episode, EpisodeState]]:
        with self._lock:
            rows = list(self._episodes.values())
            if after is not None:
                ids = [r.episode.id for r in rows]
                rows = rows[ids.index(after) + 1 :] if after in ids else []
            found = [
                (e.episode, e.state()) for e in rows
                if e.status != "done" and tenant in (None, e.episode.scope.tenant)
                and not (live_only and e.attempts >= MAX_EPISODE_ATTEMPTS)
                and (now is None or e.retry_at is None or e.retry_at <= now)
            ]  # fmt: skip
            return found[: max(limit, 0)]

    def fail_episode(self, episode_id: str, error: str, *, retry_at: datetime | None = None) -> None:
        with self._lock:
            row = self._episodes.get(episode_id)
            if row is not None and row.status != "done":
                row.status, row.attempts, row.error = "failed", row.attempts + 1, error[:2000]
                row.retry_at = retry_at

    def retry_episodes(
        self, tenant: str, *, user_id: str | None = None, writer: str | None = None, model: str | None = None
    ) -> int:
        with self._lock:
            chosen = [e for e in self._episodes.values() if e.status != "done" and e.episode.scope.tenant == tenant
                      and user_id in (None, e.episode.scope.user_id)]  # fmt: skip
            for row in chosen:
                row.attempts, row.retry_at = 0, None
                if writer is not None:
                    row.writer, row.model = writer, model
            return len(chosen)

    def episodes(self, partition: Partition) -> Iterator[Episode]:
        with self._lock:
            mine = [e.episode for e in self._episodes.values() if e.episode.scope.partition == partition]
        yield from sorted(mine, key=lambda e: e.timestamp)  # stable: ties keep insertion order

    # -- writes --------------------------------------------------------------------------------------

    def apply(self, changes: Changeset) -> bool:
        with self._lock:
            if changes.episode_id:
                known = self._episodes.get(changes.episode_id)
                if known is None or known.episode.scope.partition != changes.partition:
                    raise NotFound(f"episode {changes.episode_id} was erased before it was written")
                if changes.require_pending and known.status == "done":
                    return False
            part = self._parts.get(changes.partition) or _Partition()
            rows = dict(part.rows)
            for version_id, when in changes.retire:
                _retire(rows, version_id, when)
            erased = [row.record for memory_id in changes.erase for row in _pop_memory(rows, memory_id)]
            model = self._insert(rows, changes)
            known_ids = {e.id for e in part.journal}
            for entry in changes.journal:
                if entry.scope.partition != changes.partition or entry.id in known_ids:
                    raise StoreError("a journal entry must be new and inside its changeset's partition")
                known_ids.add(entry.id)
            # Every check passed: commit. Nothing below raises.
            self._model, part.rows = model, rows
            self._parts[changes.partition] = part
            for memory_id in changes.erase:
                if self._homes.get(memory_id) == changes.partition:
                    del self._homes[memory_id]
            self._homes.update((r.id, changes.partition) for r in changes.insert)
            self._erase_traces(part, set(changes.erase), erased)
            part.journal.extend(changes.journal)
            episode = self._episodes.get(changes.episode_id or "")
            if episode is not None and changes.episode_done:
                episode.status, episode.error = "done", None
            return True

    def _insert(self, rows: dict[str, _Row], changes: Changeset) -> tuple[str, int] | None:
        fresh = [r for r in changes.insert if r.version_id not in changes.reuse_vector]
        vectors, model = changes.vectors, self._model
        if fresh:
            if vectors is None or len(vectors) != len(fresh):
                raise StoreError("a changeset must carry one vector per new text")
            offered = (fresh[0].embedding_model or "", int(vectors.shape[1]))
            if model is not None and offered != model:
                raise EmbeddingMismatch(
                    f"this store holds {model[0]} vectors of dim {model[1]}; got {offered[0]} of dim "
                    f"{offered[1]}. {MOVE_HINT}"
                )
            model = offered
        position = {r.version_id: i for i, r in enumerate(fresh)}
        current = {r.record.id for r in rows.values() if r.record.retired_at is None}
        numbered = {(r.record.id, r.record.version) for r in rows.values()}
        for record in changes.insert:
            home = self._homes.get(record.id)
            if home is not None and home != changes.partition:  # ids are store-wide
                raise InvalidInput(f"memory id {record.id!r} cannot be used here")
            problem = self._invalid(record, changes.partition, rows, current, numbered)
            if problem:
                raise StoreError(f"cannot insert version {record.version_id}: {problem}")
            if record.version_id in changes.reuse_vector:
                source = rows.get(changes.reuse_vector[record.version_id])
                if source is None or source.vector is None:
                    raise StoreError(f"no vector to reuse for version {record.version_id} in this partition")
                vector = source.vector
            else:
                assert vectors is not None
                vector = _unit(np.array(vectors[position[record.version_id]], dtype=np.float32))
            self._seq += 1
            rows[record.version_id] = _Row(self._seq, record, vector, frozenset(keyword_terms(record.text, _ALL)))
            numbered.add((record.id, record.version))
            if record.retired_at is None:
                current.add(record.id)
        return model

    def _invalid(
        self,
        r: MemoryRecord,
        partition: Partition,
        rows: dict[str, _Row],
        current: set[str],
        numbered: set[tuple[str, int]],
    ) -> str | None:
        if r.scope.partition != partition or self._homes.get(r.id, partition) != partition:
            return "a changeset may only write inside its own partition"
        if r.version_id in rows or any(r.version_id in p.rows for p in self._parts.values()):
            return "the version id is taken"
        if (r.id, r.version) in numbered:
            return f"memory {r.id} already has a version {r.version}"
        if r.retired_at is None and r.id in current:
            return f"memory {r.id} already has a current version"
        if r.valid_to is not None and r.valid_to < r.valid_from:
            return "valid_to is before valid_from"
        if r.retired_at is not None and r.retired_at < r.recorded_at:
            return "retired_at is before recorded_at"
        return None

    def _erase_traces(self, part: _Partition, memory_ids: set[str], erased: list[MemoryRecord]) -> None:
        """Journal lines keep their decision but lose their reason; source messages lose their text."""
        part.journal[:] = [replace(e, reason=ERASED) if e.memory_id in memory_ids else e for e in part.journal]
        for record in erased:
            row = self._episodes.get(record.episode_id or "")
            if row is None or row.episode.scope.partition != record.scope.partition:
                continue
            messages = list(row.episode.messages)
            for i in record.message_indices:
                if 0 <= i < len(messages):
                    messages[i] = replace(messages[i], content=ERASED, tool_calls=())
            row.episode = replace(row.episode, messages=tuple(messages))

    # -- reads ---------------------------------------------------------------------------------------

    def get(self, partition: Partition, memory_id: str) -> MemoryRecord | None:
        with self._lock:
            rows = self._rows(partition)
        return next((r.record for r in rows if r.record.id == memory_id and r.record.retired_at is None), None)

    def versions(self, partition: Partition, memory_id: str) -> list[MemoryRecord]:
        with self._lock:
            rows = [r for r in self._rows(partition) if r.record.id == memory_id]
        return [r.record for r in sorted(rows, key=lambda r: (r.record.version, r.seq))]

    def by_version_ids(self, partition: Partition, version_ids: Sequence[str]) -> list[MemoryRecord]:
        with self._lock:
            part = self._parts.get(partition)
            found = [part.rows.get(v) for v in dict.fromkeys(version_ids)] if part else []
        return [row.record for row in found if row is not None]

    def by_slot(self, partition: Partition, slot: str) -> list[MemoryRecord]:
        return [r for r in self._live(partition) if r.slot == slot]

    def by_subject(self, partition: Partition, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return [r for r in self._live(partition) if r.subject == subject][: max(limit, 0)]

    def _live(self, partition: Partition) -> list[MemoryRecord]:
        with self._lock:
            rows = self._rows(partition)
        return [r.record for r in rows if _is_current(r.record)]

    def owner_of(self, tenant: str, memory_id: str) -> str | None:
        with self._lock:
            home = self._homes.get(memory_id)
        return home[1] if home is not None and home[0] == tenant else None

    def query(
        self, partition: Partition, flt: RecordFilter, *, limit: int = 100, offset: int = 0
    ) -> list[MemoryRecord]:
        hits = self._visible(partition, flt)
        hits.sort(key=lambda r: (r.record.valid_from, r.record.id, r.record.version), reverse=True)
        end = None if limit < 0 else offset + limit
        return [r.record for r in hits[offset:end]]

    def _visible(self, partition: Partition, flt: RecordFilter) -> list[_Row]:
        with self._lock:
            rows = self._rows(partition)
        return [r for r in rows if matches(r.record, flt)]

    # -- search --------------------------------------------------------------------------------------

    def keyword_search(
        self, partition: Partition, terms: Sequence[str], flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        """BM25 over the partition's keyword terms; a multi-word term matches when all its words occur."""
        wanted = [tuple(keyword_terms(term, _ALL)) for term in terms]
        wanted = [w for w in wanted if w]
        with self._lock:
            rows = self._rows(partition)
        if not wanted or not rows or limit <= 0:
            return []
        average = sum(len(r.terms) for r in rows) / len(rows) or 1.0
        idf = [_idf(len(rows), sum(1 for r in rows if set(w) <= r.terms)) for w in wanted]
        scored = []
        for row in rows:
            norm = 1.0 / (1.0 + _K1 * (1.0 - _B + _B * len(row.terms) / average))
            score = sum(weight * (_K1 + 1.0) * norm for w, weight in zip(wanted, idf, strict=True)
                        if set(w) <= row.terms)  # fmt: skip
            if score > 0.0 and matches(row.record, flt):
                scored.append((-score, row.seq, row.record.version_id))
        return [(version_id, -neg) for neg, _, version_id in sorted(scored)[:limit]]

    def vector_search(
        self, partition: Partition, vector: Vector, model_id: str, flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        """Exact cosine similarity over every visible version with a vector, best first."""
        with self._lock:
            model = self._model
        if model is None:
            return []
        query = query_vector(model, vector, model_id)
        hits = [r for r in self._visible(partition, flt) if r.vector is not None]
        if not hits or limit <= 0:
            return []
        scores = np.stack([r.vector for r in hits if r.vector is not None]) @ _unit(query)
        top = np.argsort(-scores, kind="stable")[:limit]
        return [(hits[i].record.version_id, float(scores[i])) for i in top]

    # -- journal and maintenance ---------------------------------------------------------------------

    def journal(
        self, partition: Partition, *, memory_id: str | None = None, episode_id: str | None = None
    ) -> list[JournalEntry]:
        with self._lock:
            part = self._parts.get(partition)
            entries = list(part.journal) if part else []
        return [e for e in entries if memory_id in (None, e.memory_id) and episode_id in (None, e.episode_id)]

    def purge(self, partition: Partition) -> PurgeReport:
        with self._lock:
            part = self._parts.pop(partition, None) or _Partition()
            for row in part.rows.values():
                self._homes.pop(row.record.id, None)
            gone = [i for i, e in self._episodes.items() if e.episode.scope.partition == partition]
            for episode_id in gone:
                del self._episodes[episode_id]
            held = {e.episode.scope.partition for e in self._episodes.values()}
            leftovers = [name for name, found in (
                ("memory:memories", partition in self._parts or partition in self._homes.values()),
                ("memory:episodes", partition in held),
            ) if found]  # fmt: skip
        return PurgeReport(partition, len(part.rows), len(gone), len(part.journal), (), tuple(leftovers))

    def stats(self, partition: Partition | None = None, *, tenant: str | None = None) -> dict[str, Any]:
        with self._lock:
            parts = self._selected(partition, tenant)
            episodes = [e for e in self._episodes.values() if partition in (None, e.episode.scope.partition)
                        and tenant in (None, e.episode.scope.tenant)]  # fmt: skip
            records = [r.record for p in parts for r in p.rows.values()]
            return {
                "memories": len({r.id for r in records}),
                "versions": len(records),
                "current": sum(1 for r in records if _is_current(r)),
                "episodes": len(episodes),
                "pending_episodes": sum(1 for e in episodes if e.status != "done"),
                "journal": sum(len(p.journal) for p in parts),
                "bytes": 0,
                **({"users": self._users(tenant)} if partition is None and tenant is not None else {}),
            }

    def _users(self, tenant: str) -> list[dict[str, Any]]:
        found: dict[str, list[MemoryRecord]] = {}
        for key, part in self._parts.items():
            if key[0] == tenant and part.rows:
                found[key[1]] = [r.record for r in part.rows.values()]
        return [
            {"user_id": user, "memories": sum(1 for r in rows if _is_current(r)),
             "created_at": min(r.recorded_at for r in rows).isoformat(),
             "updated_at": max(r.recorded_at for r in rows).isoformat()}
            for user, rows in sorted(found.items())
        ]  # fmt: skip

    def reindex(
        self,
        partition: Partition | None = None,
        *,
        tenant: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> dict[str, Any]:
        """Nothing is derived here (search is exact over the rows); reports what an index would hold."""
        with self._lock:
            parts = [p for p in self._selected(partition, tenant) if any(r.vector is not None for r in p.rows.values())]
            vectors = sum(1 for p in parts for r in p.rows.values() if r.vector is not None and _is_current(r.record))
        if progress is not None and vectors:
            progress(vectors)
        return {"partitions": len(parts), "vectors": vectors, "keyword_index": "unchanged"}

    def _selected(self, partition: Partition | None, tenant: str | None) -> list[_Partition]:
        """One partition, or every partition (of one tenant). The caller holds the lock."""
        return [p for key, p in self._parts.items() if partition in (None, key) and tenant in (None, key[0])]

    def check(self) -> list[str]:
        """Invariant violations found (empty when healthy)."""
        with self._lock:
            problems = []
            owners = Counter(m for part in self._parts.values() for m in {r.record.id for r in part.rows.values()})
            for (tenant, user_id), part in self._parts.items():
                where = f"partition {tenant}/{user_id}"
                records = [r.record for r in part.rows.values()]
                ids = {r.id for r in records}
                current = Counter(r.id for r in records if r.retired_at is None)
                problems += [f"{where}: memory {m} has {current[m]} current versions" for m in sorted(ids)
                             if current[m] != 1]  # fmt: skip
                numbered = Counter((r.id, r.version) for r in records)
                problems += [f"{where}: memory {m} has {n} rows of version {v}"
                             for (m, v), n in numbered.items() if n > 1]  # fmt: skip
                if missing := sum(1 for r in part.rows.values() if r.vector is None):
                    problems.append(f"{where}: {missing} memory versions have no vector")
                problems += [f"{where}: memory id {m} is used in another partition too" for m in sorted(ids)
                             if owners[m] > 1]  # fmt: skip
                # A link to an erased memory dangles harmlessly; one into another partition would leak.
                links = {link for r in records for link in (r.supersedes, r.superseded_by) if link}
                if crossing := sum(1 for link in links - ids if owners[link]):
                    problems.append(f"{where}: {crossing} supersede links cross a partition")
            return problems


def _retire(rows: dict[str, _Row], version_id: str, when: datetime) -> None:
    row = rows.get(version_id)
    if row is None or row.record.retired_at is not None:
        raise WriteConflict(f"version {version_id} is no longer current in this partition")
    if when < row.record.recorded_at:
        raise StoreError(f"version {version_id} cannot be retired before it was recorded")
    rows[version_id] = replace(row, record=replace(row.record, retired_at=when))


def _pop_memory(rows: dict[str, _Row], memory_id: str) -> list[_Row]:
    gone = [row for row in rows.values() if row.record.id == memory_id]
    for row in gone:
        del rows[row.record.version_id]
    return gone


def _unit(vector: Vector) -> Vector:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0.0 else vector


def _idf(total: int, having: int) -> float:
    return math.log(1.0 + (total - having + 0.5) / (having + 0.5))
