"""Store ports. A backend implements all of them; :mod:`memscribe.testing.contract` checks it does so
correctly. Every method takes the (tenant, user_id) partition explicitly: there is no unscoped read."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memscribe.core.records import Episode, JournalEntry, MemoryRecord, Scope

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = [
    "MAX_EPISODE_ATTEMPTS",
    "Changeset",
    "EpisodeLog",
    "EpisodeState",
    "Journal",
    "Maintenance",
    "MemoryStore",
    "Partition",
    "PurgeReport",
    "RecordFilter",
    "SearchIndex",
    "Store",
]

Partition = tuple[str, str]  # (tenant, user_id)
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
    vectors: Vectors | None = None  # one row per record in ``insert`` whose id is not in reuse_vector
    reuse_vector: dict[str, str] = field(default_factory=dict)  # new version_id -> version_id to copy from
    retire: tuple[tuple[str, datetime], ...] = ()  # (version_id, retired_at)
    journal: tuple[JournalEntry, ...] = ()
    erase: tuple[str, ...] = ()  # memory ids whose every version is physically erased (forget)
    episode_done: bool = True
    require_pending: bool = True  # apply nothing if the episode was already applied (another process won)


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
class SearchIndex(Protocol):
    def keyword_search(
        self, partition: Partition, terms: Sequence[str], flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]: ...
    def vector_search(
        self, partition: Partition, vector: Vectors, model_id: str, flt: RecordFilter, limit: int
    ) -> list[tuple[str, float]]: ...


@runtime_checkable
class Journal(Protocol):
    def journal(
        self, partition: Partition, *, memory_id: str | None = None, episode_id: str | None = None
    ) -> list[JournalEntry]: ...


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
