"""IndexSync: keeps any :class:`~memscribe.stores.ports.VectorIndex` in step with a record store's log.

The record store holds every vector and a :class:`~memscribe.stores.ports.VectorLog` of the order in which
current rows entered and left. For each partition this remembers the last log position the index applied
(its watermark); before a search it replays newer entries, so writes from other processes show up without
a rebuild. The index persists its state with the watermark every ``save_every`` entries, at ``save_all``
(shutdown) and right after an erasure, so no saved file keeps a forgotten vector; on the next start only
what is newer is replayed. A missing log entry under the watermark means the partition was purged (only a
purge deletes log entries): the index is dropped and rebuilt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

import numpy as np

from memscribe.core.vectors import Partition
from memscribe.stores.ports import VectorIndex, VectorLog

if TYPE_CHECKING:
    from memscribe.core.vectors import Vectors

__all__ = ["IndexSync"]

_BATCH = 5_000


class _State:
    def __init__(self, dim: int, watermark: int) -> None:
        self.dim = dim
        self.watermark = watermark
        self.dirty = 0
        self.lock = threading.Lock()


class IndexSync:
    """Lazily opened, incrementally synced partitions of one vector index."""

    def __init__(self, index: VectorIndex, *, save_every: int = 5_000) -> None:
        self.index = index
        self.save_every = save_every
        self._states: dict[Partition, _State] = {}
        self._lock = threading.Lock()

    def search(
        self,
        log: VectorLog,
        partition: Partition,
        dim: int,
        vector: Vectors,
        k: int,
        *,
        among: Collection[int] | None = None,
    ) -> list[tuple[int, float]]:
        state = self._state(partition, dim)
        with state.lock:
            self._sync(log, partition, state)
            return self.index.search(partition, vector, k, among=among)

    def rebuild(
        self, log: VectorLog, partition: Partition, dim: int, progress: Callable[[int], None] | None = None
    ) -> int:
        """Build the partition afresh from the record store, persist it, and return how many vectors it
        holds. ``progress`` is called with the number of log keys handled after each batch."""
        state = self._state(partition, dim)
        with state.lock:
            self.index.drop(partition)
            state.watermark = self.index.load(partition, dim)
            size = self._sync(log, partition, state, progress)
            self.index.persist(partition, state.watermark)
            state.dirty = 0
            return size

    def erased(self, log: VectorLog, partition: Partition, dim: int) -> None:
        """After a forget: apply its removals and persist at once, so no saved state keeps those vectors."""
        state = self._state(partition, dim)
        with state.lock:
            self._sync(log, partition, state)
            self.index.persist(partition, state.watermark)
            state.dirty = 0

    def drop(self, partition: Partition) -> None:
        """Forget a partition and erase it from the index (purge)."""
        with self._lock:
            state = self._states.pop(partition, None)
        if state is None:
            self.index.drop(partition)
            return
        with state.lock:
            self.index.drop(partition)

    def save_all(self, log: VectorLog) -> None:
        """Persist every partition changed since its last save, first replaying what other processes logged
        meanwhile: a removal (or a purge) elsewhere must not come back from this process's copy."""
        with self._lock:
            states = list(self._states.items())
        for partition, state in states:
            with state.lock:
                if not state.dirty:
                    continue
                self._sync(log, partition, state, persist=False)
                if state.dirty:
                    self.index.persist(partition, state.watermark)
                    state.dirty = 0

    def close(self) -> None:
        """Forget every partition's state and close the index (a later search opens it again)."""
        with self._lock:
            self._states.clear()
        self.index.close()

    def _state(self, partition: Partition, dim: int) -> _State:
        with self._lock:
            state = self._states.get(partition)
            if state is None or state.dim != dim:
                state = _State(dim, self.index.load(partition, dim))
                self._states[partition] = state
            return state

    def _sync(
        self,
        log: VectorLog,
        partition: Partition,
        state: _State,
        progress: Callable[[int], None] | None = None,
        *,
        persist: bool = True,
    ) -> int:
        """Replay the log past the watermark; returns how many vectors were added."""
        if state.watermark and not log.log_holds(partition, state.watermark):  # purged elsewhere
            self.index.drop(partition)
            state.watermark, state.dirty = self.index.load(partition, state.dim), 0
        rows = log.log_after(partition, state.watermark)
        if not rows:
            return 0
        live: dict[int, bool] = {}
        for _, key, op in rows:
            live[key] = op == "add"
        removed = [k for k, alive in live.items() if not alive]
        if removed:
            self.index.delete(partition, removed)
        added = [k for k, alive in live.items() if alive]
        count = 0
        for start in range(0, len(added), _BATCH):
            chunk = added[start : start + _BATCH]
            keys, matrix = log.vectors_of(chunk)
            if keys:
                self.index.upsert(partition, np.asarray(keys, dtype=np.int64), matrix)
                count += len(keys)
            if progress is not None:
                progress(len(chunk))
        state.watermark = rows[-1][0]
        state.dirty += len(rows)
        if persist and state.dirty >= self.save_every:
            self.index.persist(partition, state.watermark)
            state.dirty = 0
        return count
