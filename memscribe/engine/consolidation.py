"""Consolidation ("System 2") as the engine runs it: on demand, or scheduled after N new facts or when
writes go idle, on a background thread so ``add`` never waits for it. Every change is an operation,
checked by the plan and journaled like any other write."""

from __future__ import annotations

import threading
from typing import Any

from memscribe.engine import writing
from memscribe.engine.candidates import EmbeddingCache
from memscribe.engine.core import Core
from memscribe.providers.chat import ChatModel
from memscribe.scenes import ConsolidationBudget, ConsolidationScheduler, consolidate
from memscribe.stores.ports import Partition

__all__ = ["Consolidator"]

WRITES = ("ADD", "UPDATE", "SUPERSEDE")


class Consolidator:
    """Runs consolidation for the partitions of one Memory and decides, per partition, when it is due."""

    def __init__(
        self,
        core: Core,
        chat: ChatModel | None = None,
        *,
        every_n_facts: int = 50,
        idle_seconds: float = 300.0,
        budget: ConsolidationBudget | None = None,
    ) -> None:
        self.core = core
        self.chat = chat
        self.budget = budget or ConsolidationBudget()
        self._every, self._idle = every_n_facts, idle_seconds
        self._schedulers: dict[Partition, ConsolidationScheduler] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def _scheduler(self, partition: Partition) -> ConsolidationScheduler:
        with self._lock:
            if partition not in self._schedulers:
                self._schedulers[partition] = ConsolidationScheduler(self._every, self._idle)
            return self._schedulers[partition]

    def note(self, partition: Partition, result: dict[str, Any]) -> None:
        """Count a write's new memories and start a background run if one is due."""
        written = sum(1 for r in result.get("results", ()) if r.get("event") in WRITES)
        scheduler = self._scheduler(partition)
        scheduler.note_write(written, at=self.core.clock.now())
        self.poll(partition)

    def poll(self, partition: Partition) -> None:
        """Start a background run when due (also called from reads, so idleness is noticed)."""
        scheduler = self._scheduler(partition)
        if not scheduler.due(self.core.clock.now()) or not scheduler.started(self.core.clock.now()):
            return
        thread = threading.Thread(target=self._background, args=(partition, scheduler), daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _background(self, partition: Partition, scheduler: ConsolidationScheduler) -> None:
        failed = False
        try:
            self.run(partition)
        except Exception:  # a failed run is retried at the next trigger; nothing was half-applied
            failed = True
        finally:
            scheduler.finished(failed=failed, pending=0)

    def run(self, partition: Partition) -> dict[str, Any]:
        """One bounded consolidation pass, applied in one transaction. Returns the operations' results."""
        core = self.core

        def attempt() -> dict[str, Any]:
            ops = consolidate(core.store, partition, self.chat, core.clock, self.budget)
            if not ops:
                return {"results": []}
            episode = writing.prepare_episode(
                core, [{"role": "system", "content": "consolidation"}], user_id=partition[1], source="api",
                metadata={"operation": "consolidate"},
            )  # fmt: skip
            core.store.put_episode(episode)
            proposal = (ops, EmbeddingCache(core), core.clock.now())
            return writing.commit_ops(core, episode, proposal, require_pending=False, writer="consolidate")

        return writing.replan_on_conflict(core, attempt)

    def join(self) -> None:
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join()
