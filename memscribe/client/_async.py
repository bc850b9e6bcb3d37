"""``AsyncMemoryClient``: the SDK's methods over HTTP, awaitable (httpx.AsyncClient)."""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import IO, Any, cast

import httpx

from memscribe.client import _requests as rq
from memscribe.client._errors import ServerUnavailable, error_from_response
from memscribe.client._shared import DEFAULT_URL, headers_for

__all__ = ["AsyncMemoryClient"]


class AsyncMemoryClient:
    """Awaitable twin of :class:`MemoryClient`: the same methods, arguments, results and exceptions."""

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
                call.method, call.path, params=call.params or None, json=call.json
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
        user_id: object,
        agent_id: object = None,
        session_id: object = None,
        project: object = None,
        timestamp: object = None,
        source: object = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        wait: bool = True,
    ) -> dict[str, Any]:
        """Store messages as an episode and (with ``wait``) write its memories."""
        return await self._send(
            rq.add(
                messages,
                user_id=user_id,
                agent_id=agent_id,
                session_id=session_id,
                project=project,
                timestamp=timestamp,
                source=source,
                metadata=metadata,
                idempotency_key=idempotency_key,
                wait=wait,
            )
        )

    async def update(self, memory_id: str, text: str, *, user_id: object = None) -> dict[str, Any]:
        """Replace a memory's text with a new version."""
        return await self._send(rq.update(memory_id, text, user_id))

    async def delete(self, memory_id: str, *, user_id: object = None) -> dict[str, Any]:
        """Retract a memory (kept as history)."""
        return await self._send(rq.delete(memory_id, user_id))

    async def forget(self, query_or_id: str, *, user_id: object = None, limit: int = 5) -> dict[str, Any]:
        """Erase a memory by id, or those matching a query: every version and its source text."""
        return await self._send(rq.forget(query_or_id, user_id, limit))

    async def purge(self, user_id: object) -> dict[str, Any]:
        """Erase every byte of one user's content."""
        return await self._send(rq.purge(user_id))

    # -- read ---------------------------------------------------------------------------------------

    async def search(
        self,
        query: str,
        *,
        user_id: object,
        limit: int = 10,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Hybrid search over the user's current memories."""
        return await self._send(
            rq.search(
                query,
                user_id=user_id,
                limit=limit,
                as_of=as_of,
                include_history=include_history,
                filters=filters,
            )
        )

    async def get(self, memory_id: str, *, user_id: object = None) -> dict[str, Any]:
        """The current version of one memory."""
        return await self._send(rq.get(memory_id, user_id))

    async def list(
        self,
        *,
        user_id: object,
        limit: int = 100,
        offset: int = 0,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One page of the user's memories (``next_offset`` gives the next)."""
        return await self._send(
            rq.list_(
                user_id=user_id,
                limit=limit,
                offset=offset,
                as_of=as_of,
                include_history=include_history,
                filters=filters,
            )
        )

    async def history(self, memory_id: str, *, user_id: object = None) -> builtins.list[dict[str, Any]]:
        """Every version of a memory and of those it superseded, oldest first."""
        return cast(builtins.list[dict[str, Any]], await self._call(rq.history(memory_id, user_id)))

    async def why(self, memory_id: str, *, user_id: object = None) -> dict[str, Any]:
        """The operations and episodes behind a memory."""
        return await self._send(rq.why(memory_id, user_id))

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
        self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None
    ) -> dict[str, int]:
        """Load exported JSON lines (streamed to the server; idempotent)."""

        async def body() -> AsyncIterator[bytes]:
            for chunk in rq.ndjson(lines):
                if progress:
                    progress(1)
                yield chunk

        try:
            response = await self._http.post(
                "/v1/import", content=body(), headers={"content-type": rq.NDJSON}
            )
        except httpx.TransportError as exc:
            raise ServerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return cast(dict[str, int], rq.decode(response.status_code, response.content))

    async def stats(self, *, user_id: object = None) -> dict[str, Any]:
        """Counts for one user (over HTTP ``user_id`` is required)."""
        return await self._send(rq.stats(user_id))

    async def health(self) -> dict[str, Any]:
        """The server's ``/healthz``."""
        return await self._send(rq.Call("GET", "/healthz"))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


setattr(AsyncMemoryClient, "import", AsyncMemoryClient.import_)
