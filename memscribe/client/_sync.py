"""``MemoryClient``: the SDK's methods over HTTP, synchronous (httpx)."""

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

__all__ = ["MemoryClient"]


class MemoryClient:
    """Talk to a memscribe server as if it were a local :class:`memscribe.Memory`.

    Methods take the same arguments and return the same shapes; a server error raises the same exception
    class the SDK would (``NotFound``, ``InvalidInput``, ...). ``transport`` takes any httpx transport,
    e.g. ``httpx.MockTransport`` or ``httpx.ASGITransport`` in tests.
    """

    import_batch_bytes = MAX_BATCH_BYTES  # the most one import request carries: the server's 1 MiB limit

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(base_url=base_url, headers=headers_for(api_key), timeout=timeout, transport=transport)

    def _call(self, call: rq.Call) -> Any:
        try:
            response = self._http.request(
                call.method,
                call.path,
                params=call.params or None,
                content=call.body(),
                headers=rq.JSON_HEADERS if call.json is not None else None,
            )
        except httpx.TransportError as exc:
            raise ServerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return rq.decode(response.status_code, response.content)

    def _send(self, call: rq.Call) -> dict[str, Any]:
        return cast(dict[str, Any], self._call(call))

    # -- write --------------------------------------------------------------------------------------

    def add(
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
        return cast(AddResult, self._call(call))

    def update(self, memory_id: str, text: str, *, user_id: object = None) -> AddResult:
        """Replace a memory's text with a new version."""
        return cast(AddResult, self._call(rq.update(memory_id, text, user_id)))

    def delete(self, memory_id: str, *, user_id: object = None) -> AddResult:
        """Retract a memory (kept as history)."""
        return cast(AddResult, self._call(rq.delete(memory_id, user_id)))

    def forget(self, query_or_id: str, *, user_id: object = None, limit: int = 5) -> ForgetResult:
        """Erase a memory by id, or those matching a query: every version and its source text."""
        return cast(ForgetResult, self._call(rq.forget(query_or_id, user_id, limit)))

    def purge(self, user_id: object) -> PurgeResult:
        """Erase every byte of one user's content (the server reports file counts, not paths)."""
        return cast(PurgeResult, self._call(rq.purge(user_id)))

    def delete_all(self, *, user_id: object) -> PurgeResult:
        """mem0's ``delete_all(user_id=...)``: :meth:`purge`."""
        return self.purge(user_id)

    # -- read ---------------------------------------------------------------------------------------

    def search(
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
        return cast(SearchResult, self._call(call))

    def get(self, memory_id: str, *, user_id: object = None) -> MemoryItem:
        """The current version of one memory."""
        return cast(MemoryItem, self._call(rq.get(memory_id, user_id)))

    def list(
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
        return cast(ListResult, self._call(call))

    def get_all(
        self,
        *,
        user_id: object = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> ListResult:
        """mem0's name for :meth:`list`."""
        return self.list(user_id=user_id, filters=filters, top_k=top_k, limit=limit, offset=offset)

    def history(self, memory_id: str, *, user_id: object = None) -> builtins.list[HistoryEntry]:
        """Every version of a memory and of those it superseded, oldest first (mem0's history fields too)."""
        return cast("builtins.list[HistoryEntry]", self._call(rq.history(memory_id, user_id)))

    def why(self, memory_id: str, *, user_id: object = None) -> WhyResult:
        """The operations and episodes behind a memory."""
        return cast(WhyResult, self._call(rq.why(memory_id, user_id)))

    def pack(self, query: str, *, user_id: object, max_tokens: int = 800, limit: int = 20) -> str:
        """A context block of the best memories for ``query``, framed as background data."""
        from memscribe.read.pack import pack_context

        return pack_context(self.search(query, user_id=user_id, limit=limit)["results"], max_tokens=max_tokens)

    # -- admin --------------------------------------------------------------------------------------

    def export(self, user_id: object, fp: IO[str] | None = None) -> builtins.list[str] | None:
        """The user's data as JSON lines, streamed: written to ``fp``, or returned as a list."""
        call = rq.export(user_id)
        lines: builtins.list[str] = []
        try:
            with self._http.stream(call.method, call.path, params=call.params) as response:
                if response.status_code >= 400:
                    raise error_from_response(response.status_code, response.read())
                for line in response.iter_lines():
                    if not line:
                        continue
                    if fp is None:
                        lines.append(line)
                    else:
                        fp.write(line + "\n")
        except httpx.TransportError as exc:
            raise ServerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return lines if fp is None else None

    def import_(
        self,
        lines: Iterable[str],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> ImportResult:
        """Load exported JSON lines, in requests of at most ``import_batch_bytes`` (the server's 1 MiB limit). Each
        batch is checked whole before any of it is written, and rows already present are skipped, so after a
        failure (whose error says what was imported before it) running the import again adds nothing twice."""
        done = ImportProgress()
        for batch in batches(lines, self.import_batch_bytes):
            try:
                response = self._http.post("/v1/import", content=bytes(batch.body), headers=rq.NDJSON_HEADERS)
                result = rq.decode(response.status_code, response.content)
            except httpx.TransportError as exc:
                raise done.failed(ServerUnavailable(f"{type(exc).__name__}: {exc}"), batch) from exc
            except MemscribeError as exc:
                raise done.failed(exc, batch) from None
            done.done(batch, result)
            if progress:
                progress(batch.rows)
        return done.result()

    def stats(self, *, user_id: object = None) -> StatsResult:
        """Counts for one user (over HTTP ``user_id`` is required)."""
        return cast(StatsResult, self._send(rq.stats(user_id)))

    def health(self) -> dict[str, Any]:
        """The server's ``/healthz``."""
        return self._send(rq.Call("GET", "/healthz"))

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


setattr(MemoryClient, "import", MemoryClient.import_)
