"""``AsyncMemory``: the same methods as :class:`Memory`, awaitable.

SQLite has no asynchronous interface, so store work runs on worker threads (as aiosqlite does); the writer
step is awaited natively when the writer offers ``apropose`` (the LLM writers), so model calls never hold
a thread. Everything else is the same engine core as Memory.
"""

from __future__ import annotations

import asyncio
import builtins
import functools
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar, cast

from memscribe.config import MemoryConfig
from memscribe.core.clock import Clock
from memscribe.engine import writing
from memscribe.engine.memory import Memory
from memscribe.errors import WriteConflict
from memscribe.providers.ports import Embedder
from memscribe.stores.ports import Store, VectorIndex
from memscribe.types import (
    AddResult,
    ConsolidateResult,
    ForgetResult,
    HistoryEntry,
    ImportResult,
    ListResult,
    MemoryItem,
    PendingEntry,
    PurgeResult,
    ReindexResult,
    ReplayResult,
    RetryResult,
    SearchResult,
    StatsResult,
    WhyResult,
)
from memscribe.write.ports import WriteContext, Writer

__all__ = ["AsyncMemory"]

T = TypeVar("T")


class AsyncMemory:
    """Awaitable twin of :class:`Memory`; every method takes the same arguments and returns the same shape."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        config: MemoryConfig | None = None,
        writer: str | Writer | None = None,
        embedder: str | Embedder | None = None,
        store: Store | str | None = None,
        clock: Clock | None = None,
        tenant: str | None = None,
        vectors: str | VectorIndex | None = None,
    ) -> None:
        self._sync = Memory(
            path, config=config, writer=writer, embedder=embedder, store=store, clock=clock, tenant=tenant,
            vectors=vectors,
        )  # fmt: skip
        self._core = self._sync._core

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))

    async def add(
        self,
        messages: object,
        *,
        user_id: object = None,
        agent_id: object = None,
        session_id: object = None,
        project: object = None,
        timestamp: object = None,
        source: object = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        wait: bool = True,
        run_id: object = None,
        infer: bool = True,
    ) -> AddResult:
        """As :meth:`Memory.add`; an LLM writer's model call is awaited, not run on a thread."""
        kwargs: dict[str, Any] = dict(
            user_id=user_id, agent_id=agent_id, session_id=session_id, project=project, timestamp=timestamp,
            source=source, metadata=metadata, idempotency_key=idempotency_key,
        )  # fmt: skip
        apropose = getattr(self._core.writer, "apropose", None)
        if apropose is None or not wait or not infer:
            return await self._run(self._sync.add, messages, wait=wait, run_id=run_id, infer=infer, **kwargs)
        kwargs["session_id"] = session_id or run_id
        episode = writing.prepare_episode(self._core, messages, **kwargs)
        await self._run(self._sync._recover)
        state = await self._run(self._sync._store_episode, self._sync._core, episode, wait=True)
        if state.status == "done":
            return cast(AddResult, await self._run(writing.results_from_journal, self._core, episode))
        for attempt in range(self._core.max_retries + 1):
            proposal = await self._run(writing.propose_prepare, self._core, episode)
            cache, now, candidates = proposal
            try:
                ops = await apropose(episode, candidates, WriteContext(), self._core.clock)
            except Exception as exc:
                await self._run(writing.record_failure, self._core, episode, exc)
                raise writing.as_writer_error(self._core, episode, exc) from exc
            try:
                return cast(AddResult, await self._run(writing.commit_ops, self._core, episode, (ops, cache, now)))
            except WriteConflict:
                if attempt == self._core.max_retries:
                    raise
        raise AssertionError("unreachable")

    async def search(
        self,
        query: str,
        *,
        user_id: object = None,
        limit: int | None = None,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        threshold: float | None = None,
    ) -> SearchResult:
        """As :meth:`Memory.search`."""
        return await self._run(
            self._sync.search, query, user_id=user_id, limit=limit, as_of=as_of, include_history=include_history,
            filters=filters, top_k=top_k, threshold=threshold,
        )  # fmt: skip

    async def get(self, memory_id: str, *, user_id: object = None) -> MemoryItem:
        """As :meth:`Memory.get`."""
        return await self._run(self._sync.get, memory_id, user_id=user_id)

    async def list(
        self,
        *,
        user_id: object = None,
        limit: int | None = None,
        offset: int = 0,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
    ) -> ListResult:
        """As :meth:`Memory.list`."""
        return await self._run(
            self._sync.list, user_id=user_id, limit=limit, offset=offset, as_of=as_of,
            include_history=include_history, filters=filters, top_k=top_k,
        )  # fmt: skip

    async def get_all(
        self,
        *,
        user_id: object = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> ListResult:
        """As :meth:`Memory.get_all` (mem0's name for list)."""
        return await self._run(
            self._sync.get_all, user_id=user_id, filters=filters, top_k=top_k, limit=limit, offset=offset
        )

    async def history(self, memory_id: str, *, user_id: object = None) -> builtins.list[HistoryEntry]:
        """As :meth:`Memory.history`."""
        return await self._run(self._sync.history, memory_id, user_id=user_id)

    async def why(self, memory_id: str, *, user_id: object = None) -> WhyResult:
        """As :meth:`Memory.why`."""
        return await self._run(self._sync.why, memory_id, user_id=user_id)

    async def update(self, memory_id: str, text: str, *, user_id: object = None) -> AddResult:
        """As :meth:`Memory.update`."""
        return await self._run(self._sync.update, memory_id, text, user_id=user_id)

    async def delete(self, memory_id: str, *, user_id: object = None) -> AddResult:
        """As :meth:`Memory.delete`."""
        return await self._run(self._sync.delete, memory_id, user_id=user_id)

    async def delete_all(self, *, user_id: object) -> PurgeResult:
        """As :meth:`Memory.delete_all` (a purge)."""
        return await self._run(self._sync.delete_all, user_id=user_id)

    async def forget(self, query_or_id: str, *, user_id: object = None, limit: int = 5) -> ForgetResult:
        """As :meth:`Memory.forget`."""
        return await self._run(self._sync.forget, query_or_id, user_id=user_id, limit=limit)

    async def consolidate(self, *, user_id: object) -> ConsolidateResult:
        """As :meth:`Memory.consolidate`."""
        return await self._run(self._sync.consolidate, user_id=user_id)

    async def profile(self, *, user_id: object, as_of: object = None) -> dict[str, Any]:
        """As :meth:`Memory.profile`."""
        return await self._run(self._sync.profile, user_id=user_id, as_of=as_of)

    async def purge(self, user_id: object) -> PurgeResult:
        """As :meth:`Memory.purge`."""
        return await self._run(self._sync.purge, user_id)

    async def replay(self, *, user_id: object, writer: str | Writer | None = None) -> ReplayResult:
        """As :meth:`Memory.replay`."""
        return await self._run(self._sync.replay, user_id=user_id, writer=writer)

    async def pack(self, query: str, *, user_id: object, max_tokens: int = 800, limit: int = 20) -> str:
        """As :meth:`Memory.pack`."""
        return await self._run(self._sync.pack, query, user_id=user_id, max_tokens=max_tokens, limit=limit)

    async def export(self, user_id: object, fp: IO[str] | None = None) -> builtins.list[str] | None:
        """As :meth:`Memory.export`."""
        return await self._run(self._sync.export, user_id, fp)

    async def import_(self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None) -> ImportResult:
        """As :meth:`Memory.import_`."""
        return await self._run(self._sync.import_, lines, progress=progress)

    async def stats(self, *, user_id: object = None) -> StatsResult:
        """As :meth:`Memory.stats`."""
        return await self._run(self._sync.stats, user_id=user_id)

    async def reindex(
        self, *, user_id: object = None, progress: Callable[[int], None] | None = None
    ) -> ReindexResult:
        """As :meth:`Memory.reindex`."""
        return await self._run(self._sync.reindex, user_id=user_id, progress=progress)

    async def process_pending(self, limit: int | None = None) -> int:
        """As :meth:`Memory.process_pending`."""
        return await self._run(self._sync.process_pending, limit)

    async def pending(self, *, limit: int = 100) -> builtins.list[PendingEntry]:
        """As :meth:`Memory.pending`."""
        return await self._run(self._sync.pending, limit=limit)

    async def retry_pending(self, *, user_id: object = None, writer: str | None = None) -> RetryResult:
        """As :meth:`Memory.retry_pending`."""
        return await self._run(self._sync.retry_pending, user_id=user_id, writer=writer)

    async def warm_up(self) -> None:
        """As :meth:`Memory.warm_up`."""
        await self._run(self._sync.warm_up)

    async def flush(self, timeout: float | None = None) -> None:
        """As :meth:`Memory.flush`."""
        await asyncio.to_thread(self._sync.flush, timeout)

    async def close(self) -> None:
        """As :meth:`Memory.close`."""
        await self._run(self._sync.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


setattr(AsyncMemory, "import", AsyncMemory.import_)
