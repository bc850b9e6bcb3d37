"""``AsyncMemoryClient``: the SDK's methods over HTTP, awaitable (httpx.AsyncClient)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any, cast

import httpx

from memscribe.client import _requests as rq
from memscribe.client._batches import MAX_BATCH_BYTES, ImportProgress, batches
from memscribe.client._errors import ServerUnavailable, error_from_response
from memscribe.client._shared import DEFAULT_URL, headers_for
from memscribe.errors import MemscribeError
from memscribe.types import (
    AddResult,
    ForgetResult,
    HistoryEntry,
    ImportResult,
    ListResult,
    MemoryItem,
    PurgeResult,
    SearchResult,
    StatsResult,
    WhyResult,
)

__all__ = ["AsyncMemoryClient"]


class AsyncMemoryClient:
    """Awaitable twin of :class:`MemoryClient`: the same methods, arguments, results and exceptions."""

    import_batch_bytes = MAX_BATCH_BYTES  # the most one import request carries: the server's 1 MiB limit

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url, headers=headers_for(api_key), timeout=timeout, transport=transport
        )

    async def _call(self, call: rq.Call) -> Any:
        try:
            response = await self._http.request(
                call.method,
                call.path,
                params=call.params or None,
                content=call.body(),
                headers=rq.JSON_HEADERS if call.json is not None else None,
            )
        except httpx.TransportError as exc:
            raise ServerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return rq.decode(response.status_code, response.content)

    async def _send(self, call: rq.Call) -> dict[str, Any]:
        return cast(dict[str, Any], await self._call(call))

    # -- write --------------------------------------------------------------------------------------

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
        """Store messages as an episode and (with ``wait``) write its memories; as :meth:`memscribe.Memory.add`."""
        call = rq.add(
            messages, user_id=user_id, agent_id=agent_id, session_id=session_id or run_id, project=project,
            timestamp=timestamp, source=source, metadata=metadata, idempotency_key=idempotency_key, wait=wait,
            infer=None if infer else False,
        )  # fmt: skip
        return cast(AddResult, await self._call(call))

    async def update(self, memory_id: str, text: str, *, user_id: object = None) -> AddResult:
        """Replace a memory's text with a new version."""
        return cast(AddResult, await self._call(rq.update(memory_id, text, user_id)))

    async def delete(self, memory_id: str, *, user_id: object = None) -> AddResult:
        """Retract a memory (kept as history)."""
        return cast(AddResult, await self._call(rq.delete(memory_id, user_id)))

    async def forget(self, query_or_id: str, *, user_id: object = None, limit: int = 5) -> ForgetResult:
        """Erase a memory by id, or those matching a query: every version and its source text."""
        return cast(ForgetResult, await self._call(rq.forget(query_or_id, user_id, limit)))

    async def purge(self, user_id: object) -> PurgeResult:
        """Erase every byte of one user's content (the server reports file counts, not paths)."""
        return cast(PurgeResult, await self._call(rq.purge(user_id)))

    async def delete_all(self, *, user_id: object) -> PurgeResult:
        """mem0's ``delete_all(user_id=...)``: :meth:`purge`."""
        return await self.purge(user_id)

    # -- read ---------------------------------------------------------------------------------------

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
        """Hybrid search over the user's current memories; as :meth:`memscribe.Memory.search`."""
        user_id, filters = rq.mem0_scope(user_id, filters)
        call = rq.search(
            query, user_id=user_id, limit=rq.limit_of(limit, top_k, 10), as_of=as_of,
            include_history=include_history, filters=filters, threshold=threshold,
        )  # fmt: skip
        return cast(SearchResult, await self._call(call))

    async def get(self, memory_id: str, *, user_id: object = None) -> MemoryItem:
        """The current version of one memory."""
        return cast(MemoryItem, await self._call(rq.get(memory_id, user_id)))

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
        """One page of the user's memories (``next_offset`` gives the next); as :meth:`memscribe.Memory.list`."""
        user_id, filters = rq.mem0_scope(user_id, filters)
        call = rq.list_(
            user_id=user_id, limit=rq.limit_of(limit, top_k, 100), offset=offset, as_of=as_of,
            include_history=include_history, filters=filters,
        )  # fmt: skip
        return cast(ListResult, await self._call(call))

    async def get_all(
        self,
        *,
        user_id: object = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> ListResult:
        """mem0's name for :meth:`list`."""
        return await self.list(user_id=user_id, filters=filters, top_k=top_k, limit=limit, offset=offset)

    async def history(self, memory_id: str, *, user_id: object = None) -> builtins.list[HistoryEntry]:
        """Every version of a memory and of those it superseded, oldest first (mem0's history fields too)."""
        return cast("builtins.list[HistoryEntry]", await self._call(rq.history(memory_id, user_id)))

    async def why(self, memory_id: str, *, user_id: object = None) -> WhyResult:
        """The operations and episodes behind a memory."""
        return cast(WhyResult, await self._call(rq.why(memory_id, user_id)))

    async def pack(self, query: str, *, user_id: object, max_tokens: int = 800, limit: int = 20) -> str:
        """A context block of the best memories for ``query``, framed as background data."""
        from memscribe.read.pack import pack_context

        hits = (await self.search(query, user_id=user_id, limit=limit))["results"]
        return pack_context(hits, max_tokens=max_tokens)

    # -- admin --------------------------------------------------------------------------------------

    async def export(self, user_id: object, fp: IO[str] | None = None) -> builtins.list[str] | None:
        """The user's data as JSON lines, streamed: written to ``fp``, or returned as a list."""
        call = rq.export(user_id)
        lines: builtins.list[str] = []
        try:
            async with self._http.stream(call.method, call.path, params=call.params) as response:
                if response.status_code >= 400:
                    raise error_from_response(response.status_code, await response.aread())
                async for line in response.aiter_lines():
                    if not line:
                        continue
                    if fp is None:
                        lines.append(line)
                    else:
                        fp.write(line + "\n")
        except httpx.TransportError as exc:
            raise ServerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return lines if fp is None else None

    async def import_(
        self,
        lines: Iterable[str],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> ImportResult:
        """Load exported JSON lines in batches under the server's request limit; as
        :meth:`MemoryClient.import_` (each batch all or nothing, a rerun adds nothing twice)."""
        done = ImportProgress()
        for batch in batches(lines, self.import_batch_bytes):
            try:
                response = await self._http.post("/v1/import", content=bytes(batch.body), headers=rq.NDJSON_HEADERS)
                result = rq.decode(response.status_code, response.content)
            except httpx.TransportError as exc:
                raise done.failed(ServerUnavailable(f"{type(exc).__name__}: {exc}"), batch) from exc
            except MemscribeError as exc:
                raise done.failed(exc, batch) from None
            done.done(batch, result)
            if progress:
                progress(batch.rows)
        return done.result()

    async def stats(self, *, user_id: object = None) -> StatsResult:
        """Counts for one user (over HTTP ``user_id`` is required)."""
        return cast(StatsResult, await self._send(rq.stats(user_id)))

    async def health(self) -> dict[str, Any]:
        """The server's ``/healthz``."""
        return await self._send(rq.Call("GET", "/healthz"))

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


setattr(AsyncMemoryClient, "import", AsyncMemoryClient.import_)
