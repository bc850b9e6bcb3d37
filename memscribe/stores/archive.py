"""Journal archives (:class:`~memscribe.stores.ports.JournalArchive`): a queryable copy of the journal in an
audit database, filled from the record store. ``InMemoryJournalArchive`` is the shipped fake and the reference
the archive contract holds adapters to; :func:`archive_journal` copies a partition's entries from any record
store, idempotently, so it can run after every write, from a cron job, or to backfill a new archive."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from memscribe.core.records import JournalEntry
from memscribe.stores.ports import Journal, JournalArchive, Partition

__all__ = ["InMemoryJournalArchive", "archive_journal", "selected"]


def selected(
    entries: Sequence[JournalEntry], partition: Partition, memory_id: str | None, episode_id: str | None
) -> list[JournalEntry]:
    """The entries a ``journal(partition, memory_id=, episode_id=)`` read returns, in the given order."""
    return [
        e
        for e in entries
        if e.scope.partition == partition
        and (memory_id is None or e.memory_id == memory_id)
        and (episode_id is None or e.episode_id == episode_id)
    ]


class InMemoryJournalArchive:
    """A journal archive in a list, in arrival order (a fake: nothing survives the process)."""

    def __init__(self) -> None:
        self._entries: list[JournalEntry] = []
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def append(self, entries: Sequence[JournalEntry]) -> int:
        with self._lock:
            fresh = [e for e in dict((e.id, e) for e in entries).values() if e.id not in self._ids]
            self._entries.extend(fresh)
            self._ids.update(e.id for e in fresh)
            return len(fresh)

    def journal(
        self, partition: Partition, *, memory_id: str | None = None, episode_id: str | None = None
    ) -> list[JournalEntry]:
        with self._lock:
            return selected(self._entries, partition, memory_id, episode_id)

    def count(self, partition: Partition | None = None) -> int:
        with self._lock:
            return sum(1 for e in self._entries if partition is None or e.scope.partition == partition)

    def purge(self, partition: Partition) -> int:
        with self._lock:
            gone = [e for e in self._entries if e.scope.partition == partition]
            self._entries = [e for e in self._entries if e.scope.partition != partition]
            self._ids.difference_update(e.id for e in gone)
            return len(gone)

    def close(self) -> None:
        pass


def archive_journal(store: Journal, archive: JournalArchive, partition: Partition) -> int:
    """Copy the partition's journal entries the archive lacks from ``store``; returns how many were new."""
    return archive.append(store.journal(partition))
