"""Deferred vector indexing: an add stores its memories at once and their vectors a little later.

When the store offers :class:`~memscribe.stores.embedding.DeferredVectors` (the SQLite store does), a write
whose texts the writer did not embed anyway (the ``raw`` writer checks for a repeat by text, not by vector)
commits its rows, keyword index and journal with the new versions marked unembedded, in the same transaction,
and returns. :class:`BackgroundIndexer` embeds the marked texts in batches (one model call per batch) and
stores their vectors. The guarantees:

- an acknowledged write is never lost: the marks are rows of the write's own transaction, so a process killed
  with a backlog leaves it marked, and the next process that opens the store resumes it;
- read-your-writes: a search (and a writer's candidate search) first embeds whatever its partition still has
  marked, in one batch, so a memory is found by vector as soon as it is acknowledged, by this process or any;
- erasure: a forget or purge deletes the marks with the memories.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from memscribe.stores.embedding import DeferredVectors

if TYPE_CHECKING:
    from memscribe.engine.core import Core
    from memscribe.stores.ports import Partition

__all__ = ["BATCH", "CLOSE_INDEX_LIMIT", "LINGER_SECONDS", "BackgroundIndexer", "defers", "index_pending"]

BATCH = 64  # texts per model call: the local embedder's own batch size
CLOSE_INDEX_LIMIT = 1_024  # vectors Memory.close() still computes; a larger backlog is left to the next process
LINGER_SECONDS = 0.05  # a background pass waits this long first, so adds arriving together embed together


def defers(core: Core) -> bool:
    """Whether writes through ``core`` may leave their vectors to the indexer: the store supports it and
    already holds vectors of this embedder (the first write into a store embeds at once and so records the
    model; an embedder that does not match the store fails there as before)."""
    store = core.store
    if not core.defer_vectors or not isinstance(store, DeferredVectors):
        return False
    return store.embedding_model() == (core.embedder.model_id, core.embedder.dim)


def index_pending(
    core: Core,
    partition: Partition | None = None,
    *,
    stop: Callable[[], bool] | None = None,
    batch: int = BATCH,
    limit: int | None = None,
) -> int:
    """Embed and store the vectors still to be computed: of ``partition``, or of the core's tenant (at most
    about ``limit``). Each batch is read, embedded in one model call and stored under the core's index lock,
    so two callers never embed the same text twice. Returns the number of vectors stored."""
    store = core.store
    if not isinstance(store, DeferredVectors):
        return 0
    done = 0
    while (stop is None or not stop()) and (limit is None or done < limit):
        with core.index_lock:
            rows = store.unembedded(partition, tenant=None if partition else core.tenant, limit=batch)
            if not rows:
                return done
            vectors = core.embedder.embed([text for _, _, text in rows])
            by_partition: dict[Partition, list[int]] = {}
            for position, (owner, _, _) in enumerate(rows):
                by_partition.setdefault(owner, []).append(position)
            for owner, positions in by_partition.items():
                ids = [rows[i][1] for i in positions]
                done += store.attach_vectors(owner, ids, vectors[positions], core.embedder.model_id)
    return done


class BackgroundIndexer:
    """A thread that embeds the tenant's backlog of deferred vectors, started when a write defers some and
    when a process first finds a backlog left by another; it ends when nothing is left."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again = False
        self._closing = False
        self._wake = threading.Event()  # set on close: a lingering pass ends at once
        self.failure: BaseException | None = None  # the last error (a model or store failure); marks stay

    def kick(self) -> None:
        """Make sure a pass runs after this call (starting the thread when none runs)."""
        with self._lock:
            self._again = True
            if self._thread is None and not self._closing:
                thread = threading.Thread(target=self._run, name="memscribe-indexer", daemon=True)
                thread.start()  # before it is published: a join() elsewhere never sees an unstarted thread
                self._thread = thread

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    if not self._again or self._closing:
                        self._thread = None
                        return
                    self._again = False
                self._wake.wait(LINGER_SECONDS)  # let a burst of adds gather into one batch
                try:
                    index_pending(self.core, stop=lambda: self._closing)
                except Exception as exc:  # the marks stay: the next search or process embeds them
                    self.failure = exc
                    with self._lock:
                        self._thread = None
                    return
        finally:
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = None

    def join(self, timeout: float | None = None) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def close(self) -> None:
        """Stop after the batch in progress; what is left stays marked for the next process."""
        self._closing = True
        self._wake.set()
        self.join()
