"""The background writer of a :class:`~memscribe.engine.memory.Memory`: episodes acknowledged with
``wait=False`` (and those earlier processes left pending) are written on a thread, in batches.

Each pass takes the episodes queued so far, embeds the texts their writers will probably ask for in one model
call (``candidates.prefetch``), then writes them one by one, each in its own transaction. Every read through
the Memory first waits for the episodes acknowledged before it (:meth:`BackgroundWriter.settle`), so a search
right after ``add(..., wait=False)`` sees them. The outbox is unchanged: an episode is durable before ``add``
returns, and one the thread never reached stays pending for the next process.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from memscribe.core.records import Episode
from memscribe.engine.core import Core
from memscribe.engine.pending import PendingRunner

__all__ = ["BackgroundWriter"]


class BackgroundWriter:
    """The queue of one Memory's ``wait=False`` episodes and the thread that writes them."""

    def __init__(self, core: Core, process: Callable[[Core, Episode], Any], pending: PendingRunner) -> None:
        self.core, self.process, self.pending = core, process, pending
        self._worker: threading.Thread | None = None
        self._queue_lock = threading.Lock()
        self._settled = threading.Condition(self._queue_lock)  # notified after each background pass
        self._acked = 0  # wait=False episodes queued so far: each queued entry carries its number
        self._prefetch_use: dict[str, tuple[int, int]] = {}  # writer -> (vectors embedded ahead it used, all)
        self.closing = False
        self._again = False
        self._queued: list[tuple[int, Core, Any]] = []  # (number, core, episode) acked with wait=False

    def enqueue(self, core: Core, episode: Episode) -> None:
        """Queue an acknowledged episode for the thread (started if none runs)."""
        with self._queue_lock:
            self._acked += 1
            self._queued.append((self._acked, core, episode))
        self.kick()

    def close(self) -> None:
        """Stop taking new passes, wait for the one in progress, and write what is left on this thread."""
        self.closing = True
        self.join()
        self.write_queued()

    def _work(self, todo: Any = None) -> None:
        """The background writer: first what earlier processes left (``todo``), then, pass after pass, the
        episodes this Memory acknowledged with ``wait=False``: each pass embeds their texts in one model call
        and writes them one by one (each in its own transaction), until no new one arrived meanwhile."""
        try:
            while True:
                with self._queue_lock:
                    self._again, batch = False, list(self._queued)
                if todo:
                    self.pending.run(due_only=True, stop=lambda: self.closing, todo=todo)
                    todo = None
                self._write_batch(batch)
                with self._queue_lock:  # an episode queued while the pass was ending is not left behind
                    if not self.closing:
                        tried = {id(entry) for entry in batch}  # the pass tried each of them
                        self._queued = [entry for entry in self._queued if id(entry) not in tried]
                    self._settled.notify_all()
                    if not self._again or self.closing:
                        self._worker = None
                        return
        finally:  # a store failure ends the thread: what it left is written by the next reader (_settle)
            with self._queue_lock:
                if self._worker is threading.current_thread():
                    self._worker = None
                self._settled.notify_all()

    def _write_batch(self, batch: list[tuple[int, Core, Any]]) -> None:
        store = self.core.store
        todo = [(core, e) for _, core, e in batch if (s := store.episode_state(e.scope.partition, e.id)) is not None
                and s.status != "done"]  # fmt: skip
        for start in range(0, len(todo), 32):  # embedded ahead a chunk at a time: memory stays small
            if self.closing:
                return  # close() writes the rest in its own thread
            self._write_chunk(todo[start : start + 32])

    def _write_chunk(self, chunk: list[tuple[Core, Any]]) -> None:
        from memscribe.engine.candidates import prefetch

        ahead: dict[str, str] = {}
        try:
            chosen = [(core, e) for core, e in chunk if self._prefetch_pays(core.writer.name)]
            proven = all(self._prefetch_use.get(core.writer.name, (0, 0))[1] >= 32 for core, _ in chosen)
            with contextlib.suppress(Exception):  # a failing model fails each episode below, recorded on it
                ahead = prefetch(self.core, chosen, limit=256 if proven else 16)  # small probes until judged
            for core, episode in chunk:
                with contextlib.suppress(Exception):  # recorded on the episode; retried after its backoff
                    self.process(core, episode)
        finally:
            for text, name in ahead.items():
                used, total = self._prefetch_use.get(name, (0, 0))
                self._prefetch_use[name] = (used + (text not in self.core.prefetched), total + 1)
            self.core.prefetched.clear()

    def _prefetch_pays(self, writer: str) -> bool:
        """Whether embedding a writer's likely texts ahead pays: a writer that stores its own statements
        (``lite`` on long messages) may never ask for the messages' vectors. Judged on what it used so far."""
        used, total = self._prefetch_use.get(writer, (0, 0))
        return total < 32 or used * 2 >= total

    def settle(self) -> None:
        """Read-your-writes: wait until the episodes this Memory acknowledged with ``wait=False`` are written
        (or failed, recorded on the episode), so that a read right after ``add`` sees them."""
        with self._queue_lock:
            target = self._acked  # only what was acknowledged before this call: a busy writer cannot starve it

            def waiting() -> bool:  # the queue is in arrival order
                return bool(self._queued) and self._queued[0][0] <= target

            while waiting() and self._worker is not None and self._worker is not threading.current_thread():
                self._settled.wait()
            left = waiting() and self._worker is None
        if left:  # only after close() began: write what is left here
            self.write_queued()

    def kick(self, todo: Any = None) -> None:
        with self._queue_lock:
            self._again = True
            if self._worker is None and not self.closing:
                worker = threading.Thread(target=self._work, args=(todo,), name="memscribe-writer", daemon=True)
                worker.start()  # before it is published: a join() elsewhere never sees an unstarted thread
                self._worker = worker

    def join(self, timeout: float | None = None) -> None:
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def write_queued(self) -> None:
        """Write what this Memory acknowledged with ``wait=False`` and no one has written yet."""
        with self._queue_lock:
            queued, self._queued = self._queued, []
        for _, core, episode in queued:
            state = self.core.store.episode_state(episode.scope.partition, episode.id)
            if state is not None and state.status != "done":
                with contextlib.suppress(Exception):  # recorded on the episode; retried on a later start
                    self.process(core, episode)
