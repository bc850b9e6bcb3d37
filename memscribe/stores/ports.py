"""Store ports. A record store implements all of them; :mod:`memscribe.testing.contract` checks it does so
correctly. Every method takes the (tenant, user_id) partition explicitly: there is no unscoped read.

Consumers are typed against the narrow port they use: the read path against :class:`SearchSource`
(keyword search, vector search, records by version id), the engine's candidate lookup against
:class:`MemoryStore` and :class:`VectorSearch`, scenes against :class:`RecordQuery`. Only the engine's
composition root holds the whole :class:`Store`.

:class:`VectorIndex` is the other seam: a partition-level nearest-neighbour index *derived* from a record
store (which keeps every vector as the system of record), with one adapter per vector backend (local
usearch/numpy files, Qdrant, FAISS, Chroma). :class:`VectorLog` is what a record store exposes so that
:class:`memscribe.stores.sync.IndexSync` can keep any index in step with it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memscribe.core.records import Episode, JournalEntry, MemoryRecord, Scope
from memscribe.core.vectors import Partition

if TYPE_CHECKING:
    from memscribe.core.vectors import Keys, Vectors

__all__ = [
    "MAX_EPISODE_ATTEMPTS",
    "Changeset",
    "EpisodeLog",
    "EpisodeState",
    "Journal",
    "JournalArchive",
    "KeywordSearch",
    "Maintenance",
    "MemoryStore",
    "Partition",
    "PurgeReport",
    "RecordFilter",
    "RecordQuery",
    "SearchIndex",
    "SearchSource",
    "Store",
    "VectorIndex",
    "VectorLog",
    "VectorSearch",
]
MAX_EPISODE_ATTEMPTS = 5  # a pending episode is given up (kept, listed as failed) after this many failures


@dataclass(frozen=True)
class EpisodeState:
    episode_id: str
    status: str  # pending | done | failed
    created: bool  # False when the idempotency key was already known
    attempts: int = 0
    error: str | None = None
    writer: str | None = None  # the writer the episode was submitted for; None: whichever processes it
    model: str | None = None  # that writer's model spec ("provider:model"), for LLM writers
    retry_at: datetime | None = None  # a failed episode is not retried before this


@dataclass(frozen=True)
class RecordFilter:
    """Which memory versions a read may see. The default: current, active versions only."""

    as_of: datetime | None = None  # world time: versions valid at that instant (any status but deleted)
    include_history: bool = False  # every version ever recorded, retired ones included
    statuses: tuple[str, ...] = ("active",)
    layers: tuple[str, ...] = ()
    scenes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    owners: tuple[str, ...] = ()
    agent_id: str | None = None
    session_id: str | None = None
    project: str | None = None
    valid_after: datetime | None = None  # valid_from >= this
    valid_before: datetime | None = None  # valid_from < this
    memory_ids: tuple[str, ...] = ()
    now: datetime | None = None  # when set, current reads hide versions whose valid_to has passed

    @property
    def current_only(self) -> bool:
        """True for the common read: current, active versions, no time travel."""
        return self.as_of is None and not self.include_history and self.statuses == ("active",)


@dataclass(frozen=True)
class Changeset:
    """Every row one write produces, applied by the store in a single transaction."""

    partition: Partition
    episode_id: str | None
    insert: tuple[MemoryRecord, ...] = ()
    vectors: Vectors | None = None  # one row per record in ``insert`` not in reuse_vector nor deferred
    reuse_vector: dict[str, str] = field(default_factory=dict)  # new version_id -> version_id to copy from
    retire: tuple[tuple[str, datetime], ...] = ()  # (version_id, retired_at)
    journal: tuple[JournalEntry, ...] = ()
    erase: tuple[str, ...] = ()  # memory ids whose every version is physically erased (forget)
    episode_done: bool = True
    require_pending: bool = True  # apply nothing if the episode was already applied (another process won)
    # Version ids stored now and embedded later (a store with ``memscribe.stores.embedding.DeferredVectors``).
    deferred: tuple[str, ...] = ()


@dataclass(frozen=True)
class PurgeReport:
    partition: Partition
    memories: int
    episodes: int
    journal: int
    files_checked: tuple[str, ...]
    leftovers: tuple[str, ...]  # files in which a purged string was still found (empty when clean)

    @property
    def verified(self) -> bool:
        return not self.leftovers


@runtime_checkable
class EpisodeLog(Protocol):
    def put_episode(
        self,
        episode: Episode,
        *,
        writer: str | None = None,
        model: str | None = None,
        held_until: datetime | None = None,
    ) -> EpisodeState:
        """Store the episode (idempotent on its id and key) for ``writer``/``model`` to write. ``held_until``
        keeps background recovery off it while the caller writes it itself (a lease that a crash lets lapse)."""
        ...

    def get_episode(self, partition: Partition, episode_id: str) -> Episode | None: ...
    def pending_episodes(self, limit: int = 100, *, tenant: str | None = None) -> list[Episode]: ...
    def pending(
        self, *, tenant: str | None = None, now: datetime | None = None, after: str | None = None, limit: int = 100
    ) -> list[tuple[Episode, EpisodeState]]:
        """Episodes not yet written and not given up, in arrival order, after episode id ``after``; with
        ``now``, only those whose backoff has passed. Failed episodes past the last attempt are included
        when ``now`` is None (for listing), with their attempts and error."""
        ...

    def episode_state(self, partition: Partition, episode_id: str) -> EpisodeState | None: ...
    def fail_episode(self, episode_id: str, error: str, *, retry_at: datetime | None = None) -> None: ...
    def retry_episodes(
        self, tenant: str, *, user_id: str | None = None, writer: str | None = None, model: str | None = None
    ) -> int:
        """Make failed and pending episodes due now with fresh attempts; with ``writer``, assign them to it
        (the explicit switch of writer). Returns how many."""
        ...

    def episodes(self, partition: Partition) -> Iterator[Episode]: ...


@runtime_checkable
class MemoryStore(Protocol):
    def apply(self, changes: Changeset) -> bool:
        """Apply all rows in one transaction; False (and nothing written) if the episode was already done."""
        ...

    def get(self, partition: Partition, memory_id: str) -> MemoryRecord | None: ...
    def versions(self, partition: Partition, memory_id: str) -> list[MemoryRecord]: ...
    def query(
        self, partition: Partition, flt: RecordFilter, *, limit: int = 100, offset: int = 0
    ) -> list[MemoryRecord]: ...
    def by_version_ids(self, partition: Partition, version_ids: Sequence[str]) -> list[MemoryRecord]: ...
    def by_slot(self, partition: Partition, slot: str) -> list[MemoryRecord]: ...
    def by_subject(self, partition: Partition, subject: str, limit: int = 50) -> list[MemoryRecord]: ...
    def owner_of(self, tenant: str, memory_id: str) -> str | None:
        """The user_id whose partition holds ``memory_id`` in ``tenant`` (None when unknown)."""
        ...


@runtime_checkable
class RecordQuery(Protocol):
    """Filtered listing of memory versions (scenes: profile refresh, consolidation)."""

    def query(
        self, partition: Partition, flt: RecordFilter, *, limit: int = 100, offset: int = 0
    ) -> list[MemoryRecord]: ...


@runtime_checkable
class KeywordSearch(Protocol):
    def keyword_search(
        self, partition: Partition, terms: Sequence[str], flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        """(version_id, score) of the best keyword matches under ``flt``, best first."""
        ...


@runtime_checkable
class VectorSearch(Protocol):
    def vector_search(
        self, partition: Partition, vector: Vectors, model_id: str, flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]:
        """(version_id, cosine) of the nearest versions under ``flt``, best first."""
        ...


@runtime_checkable
class SearchIndex(KeywordSearch, VectorSearch, Protocol):
    """Both searches a record store answers."""


@runtime_checkable
class SearchSource(KeywordSearch, VectorSearch, Protocol):
    """What hybrid search reads: both candidate lists, then the records they name."""

    def by_version_ids(self, partition: Partition, version_ids: Sequence[str]) -> list[MemoryRecord]: ...


@runtime_checkable
class VectorIndex(Protocol):
    """A partition-level nearest-neighbour index over unit vectors keyed by 64-bit integers.

    Derived data: the record store keeps every vector, so an index can always be rebuilt from it. Keys are
    the record store's row keys, unique within a partition; an adapter keeps partitions apart itself (one
    file, collection or payload value per partition) and never returns another partition's keys. Scores are
    cosine similarities, higher is better. ``persist`` records the position of the record store's
    :class:`VectorLog` the index reflects, which ``load`` hands back, so a restart replays only what is newer.
    After ``delete`` + ``persist`` (and after ``drop``), no file the adapter owns holds the deleted vectors.
    """

    def load(self, partition: Partition, dim: int) -> int:
        """Open the partition for ``dim``-wide vectors; return the log position its saved state reflects.
        0 means empty: nothing saved, or saved state that is unreadable or of another width (then erased)."""
        ...

    def upsert(self, partition: Partition, keys: Keys, vectors: Vectors) -> None:
        """Insert rows; a key already present is replaced."""
        ...

    def delete(self, partition: Partition, keys: Keys) -> None:
        """Remove keys; keys that are not present are ignored."""
        ...

    def search(
        self, partition: Partition, vector: Vectors, k: int, *, among: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` nearest keys of the partition, best first; with ``among``, only keys in that set."""
        ...

    def persist(self, partition: Partition, watermark: int) -> None:
        """Make the partition's present state durable, tagged with log position ``watermark``."""
        ...

    def drop(self, partition: Partition) -> None:
        """Erase the partition: its vectors, in memory and in every file or collection the adapter owns."""
        ...

    def files(self) -> list[Path]:
        """Every local file the adapter owns (for purge verification and stats); [] for a remote server."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class VectorLog(Protocol):
    """The order in which a record store's current vectors came and went, as (seq, key, "add"|"remove").

    Sequence numbers only grow and are never reused; only a purge deletes a partition's entries."""

    def log_after(self, partition: Partition, seq: int) -> list[tuple[int, int, str]]: ...
    def log_holds(self, partition: Partition, seq: int) -> bool:
        """Whether entry ``seq`` of the partition is still there (False: the partition was purged)."""
        ...

    def vectors_of(self, keys: Sequence[int]) -> tuple[list[int], Vectors]:
        """The stored vectors of those keys still present, in matching order."""
        ...


@runtime_checkable
class Journal(Protocol):
    def journal(
        self, partition: Partition, *, memory_id: str | None = None, episode_id: str | None = None
    ) -> list[JournalEntry]: ...


@runtime_checkable
class JournalArchive(Journal, Protocol):
    """A second, queryable copy of the journal kept outside the record store (an audit database such as
    MySQL/MariaDB). The record store stays the system of record; an archive is filled from it, idempotently."""

    def append(self, entries: Sequence[JournalEntry]) -> int:
        """Store the entries not yet held (by id), in one transaction; returns how many were new."""
        ...

    def count(self, partition: Partition | None = None) -> int: ...
    def purge(self, partition: Partition) -> int:
        """Erase the partition's entries from every page the archive owns; returns how many there were."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Maintenance(Protocol):
    def purge(self, partition: Partition) -> PurgeReport: ...
    def stats(self, partition: Partition | None = None, *, tenant: str | None = None) -> dict[str, Any]: ...
    def reindex(
        self,
        partition: Partition | None = None,
        *,
        tenant: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> dict[str, Any]:
        """Rebuild derived search indexes from the system of record; ``progress`` gets vectors done per batch.
        Returns ``partitions`` and ``vectors`` rebuilt and what became of the ``keyword_index``."""
    def check(self) -> list[str]: ...
    def close(self) -> None: ...


class Store(EpisodeLog, MemoryStore, SearchIndex, Journal, Maintenance, Protocol):
    """Everything the engine needs from a backend."""


def partition_of(scope: Scope) -> Partition:
    return scope.partition
