"""ultra's background consolidation ("System 2"), bounded, and the scheduler that decides when it runs.

:func:`consolidate` reads one partition's current memories and proposes, in this order: intention expiry,
duplicate merging, schemas over clusters of related facts (the only step that calls a model, at most
``budget.max_llm_calls`` times) and profile refresh. Every change is an :class:`Operation` with a reason,
so the engine applies and journals it like any writer's proposal. No memory is the target of two operations.

:class:`ConsolidationScheduler` is pure timing logic: the engine notes writes and asks whether a run is due.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from memscribe.core.clock import Clock
from memscribe.core.records import MemoryRecord, Operation
from memscribe.providers.chat import ChatModel
from memscribe.scenes.duplicates import duplicate_ops
from memscribe.scenes.insights import insight_ops
from memscribe.scenes.intentions import expire_intentions
from memscribe.scenes.profile import profile_ops
from memscribe.stores.ports import Partition, RecordFilter, Store

__all__ = ["ConsolidationBudget", "ConsolidationScheduler", "consolidate", "plan_consolidation"]


@dataclass(frozen=True)
class ConsolidationBudget:
    """Bounds of one run: model calls, operations proposed and memories read."""

    max_llm_calls: int = 3
    max_operations: int = 200
    max_records: int = 5_000
    duplicate_threshold: float = 0.8
    min_cluster: int = 4
    max_cluster: int = 12
    profile_min_attributes: int = 2


def consolidate(
    store: Store,
    partition: Partition,
    chat: ChatModel | None,
    clock: Clock,
    budget: ConsolidationBudget | None = None,
) -> list[Operation]:
    """The consolidation operations for one partition. Reads through the store; writes nothing."""
    budget = budget or ConsolidationBudget()
    # No ``now`` in the filter: intentions whose valid_to has passed must be visible to be expired.
    records = store.query(partition, RecordFilter(), limit=budget.max_records)
    return plan_consolidation(records, chat, clock.now(), budget)


def plan_consolidation(
    records: list[MemoryRecord], chat: ChatModel | None, now: datetime, budget: ConsolidationBudget
) -> list[Operation]:
    """:func:`consolidate` over records already read. Pure apart from the model calls."""
    ops: list[Operation] = []
    touched: set[str] = set()

    def take(proposed: list[Operation]) -> None:
        for op in proposed:
            if len(ops) >= budget.max_operations:
                return
            if op.target is not None and op.target in touched:
                continue
            ops.append(op)
            if op.target is not None:
                touched.add(op.target)

    take(expire_intentions(records, now))
    take(duplicate_ops([r for r in records if r.id not in touched], budget.duplicate_threshold))
    remaining = [r for r in records if r.id not in touched]
    if chat is not None and budget.max_llm_calls > 0 and len(ops) < budget.max_operations:
        take(
            insight_ops(
                remaining,
                chat,
                max_calls=budget.max_llm_calls,
                min_size=budget.min_cluster,
                max_size=budget.max_cluster,
            )
        )
    take(profile_ops(remaining, min_attributes=budget.profile_min_attributes))
    return ops


class ConsolidationScheduler:
    """When to consolidate one partition: after ``every_n_facts`` new memories, or once writes have been idle
    for ``idle_seconds`` with any new memory pending, never while a run is in progress, and at most once per
    ``min_interval_seconds``. Thread-safe; reads no clock (the caller passes times).
    """

    def __init__(
        self, every_n_facts: int = 50, idle_seconds: float = 300.0, min_interval_seconds: float = 60.0
    ) -> None:
        if every_n_facts < 1 or idle_seconds < 0 or min_interval_seconds < 0:
            raise ValueError("every_n_facts must be ≥ 1 and the intervals ≥ 0")
        self.every_n_facts = every_n_facts
        self.idle = timedelta(seconds=idle_seconds)
        self.min_interval = timedelta(seconds=min_interval_seconds)
        self._pending = 0
        self._last_write: datetime | None = None
        self._last_run: datetime | None = None
        self._running = False
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        """New memories noted since the last run started."""
        return self._pending

    def note_write(self, n: int, at: datetime | None = None) -> None:
        """Record ``n`` new memories (the ADD/UPDATE/SUPERSEDE results of one add), written at ``at``."""
        with self._lock:
            if n > 0:
                self._pending += n
            if at is not None:
                self._last_write = at

    def due(self, now: datetime) -> bool:
        """True when a run should start now."""
        with self._lock:
            if self._running or self._pending == 0:
                return False
            if self._last_run is not None and now - self._last_run < self.min_interval:
                return False
            if self._pending >= self.every_n_facts:
                return True
            if self._last_write is None:
                self._last_write = now  # writes noted without a time: idleness counts from first sight
                return False
            return now - self._last_write >= self.idle

    def started(self, now: datetime) -> bool:
        """Claim the run: False when another caller already did (so exactly one thread consolidates)."""
        with self._lock:
            if self._running:
                return False
            self._running, self._last_run, self._pending = True, now, 0
            return True

    def finished(self, *, failed: bool = False, pending: int = 0) -> None:
        """Release the run; after a failure, ``pending`` memories are owed again so the run is retried."""
        with self._lock:
            self._running = False
            if failed:
                self._pending += max(pending, 1)
