"""Whole-scope routes: forget, purge, stats, and JSONL export (streamed) and import (streamed)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any

import anyio
import anyio.from_thread
import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict

from memscribe.engine.memory import Memory
from memscribe.server.auth import MemoryDep
from memscribe.server.errors import ApiError
from memscribe.server.models import (
    ErrorBody,
    ForgetRequest,
    ForgetResponse,
    ImportResponse,
    PurgeResponse,
    ScopeId,
    StatsResponse,
)
from memscribe.server.routes._common import ERRORS

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["data"], responses=ERRORS)
NDJSON = "application/x-ndjson"


class PurgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_id: ScopeId


@router.post("/forget", response_model=ForgetResponse, summary="Erase a memory by id, or those matching a query")
def forget(memory: MemoryDep, body: ForgetRequest) -> Any:
    return memory.forget(body.query_or_id, user_id=body.user_id, limit=body.limit)


def purge_report(memory: Memory, user_id: str) -> dict[str, Any]:
    """Purge, reporting file counts rather than the server's file paths."""
    report: dict[str, Any] = dict(memory.purge(user_id))
    return {**report, "files_checked": len(report["files_checked"]), "leftovers": len(report["leftovers"])}


@router.post("/purge", response_model=PurgeResponse, summary="Erase every byte of one user's content")
def purge(memory: MemoryDep, body: PurgeRequest) -> dict[str, Any]:
    return purge_report(memory, body.user_id)


@router.get("/stats", response_model=StatsResponse, summary="Counts for one user")
def stats(memory: MemoryDep, user_id: Annotated[ScopeId, Query()]) -> dict[str, Any]:
    result = dict(memory.stats(user_id=user_id))
    for store_wide in ("path", "bytes"):  # file layout and size of the whole store: not the caller's business
        result.pop(store_wide, None)
    return result


class _LineQueue:
    """A file-like sink for ``Memory.export`` that hands lines to the response, with backpressure. When the
    client goes away (``closed``), writes fail so the export stops and its worker thread is freed."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str | BaseException | None] = queue.Queue(maxsize=256)
        self.closed = threading.Event()

    def put(self, item: str | BaseException | None) -> bool:
        while not self.closed.is_set():
            try:
                self.lines.put(item, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    def write(self, text: str) -> int:
        if not self.put(text):
            raise BrokenPipeError("the client went away")
        return len(text)


_EXPORTERS: list[ThreadPoolExecutor] = []


def _exporters() -> ThreadPoolExecutor:
    # A few long-lived threads, so the store's per-thread connections are reused, not piled up per export.
    if not _EXPORTERS:
        _EXPORTERS.append(ThreadPoolExecutor(max_workers=4, thread_name_prefix="memscribe-export"))
    return _EXPORTERS[0]


def _export_lines(memory: Memory, user_id: str) -> Iterator[bytes]:
    sink = _LineQueue()

    def produce() -> None:
        end: BaseException | None = None
        try:
            memory.export(user_id, fp=sink)  # type: ignore[arg-type]  # duck-typed: only write() is used
        except BaseException as exc:
            end = exc
        sink.put(end)

    _exporters().submit(produce)
    try:
        while (item := sink.lines.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item.encode()
    finally:
        sink.closed.set()


@router.get(
    "/export",
    response_class=StreamingResponse,
    summary="Every episode, memory version and journal entry of one user, as JSON lines",
    responses={200: {"content": {NDJSON: {"schema": {"type": "string"}}}, "description": "JSON lines"}},
)
def export(memory: MemoryDep, user_id: Annotated[ScopeId, Query()]) -> StreamingResponse:
    memory.stats(user_id=user_id)  # checks the scope now: a bad user_id is a 400, not a broken stream
    return StreamingResponse(_export_lines(memory, user_id), media_type=NDJSON)


def _body_lines(request: Request) -> Iterator[str]:
    """The request body as text lines, pulled from the event loop by the worker thread that imports."""
    chunks = request.stream().__aiter__()

    async def next_chunk() -> bytes | None:
        try:
            return await chunks.__anext__()
        except StopAsyncIteration:
            return None

    buffer = bytearray()  # the unfinished line; only each new chunk is searched, so a long line stays linear
    while (chunk := anyio.from_thread.run(next_chunk)) is not None:
        if b"\n" not in chunk:
            buffer += chunk
            continue
        first, *lines, rest = chunk.split(b"\n")
        buffer += first
        yield _decode(bytes(buffer))
        for line in lines:
            yield _decode(line)
        buffer = bytearray(rest)
    if buffer.strip():
        yield _decode(bytes(buffer))


def _decode(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(422, "invalid_input", "the body must be UTF-8 JSON lines") from exc


@router.post(
    "/import",
    response_model=ImportResponse,
    summary="Load JSON lines from an export into this tenant (idempotent)",
    responses={415: {"model": ErrorBody, "description": "Not JSON lines"}},
    openapi_extra={"requestBody": {"required": True, "content": {NDJSON: {"schema": {"type": "string"}}}}},
)
async def import_(memory: MemoryDep, request: Request) -> Any:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in (NDJSON, "application/jsonl", "text/plain", ""):
        raise ApiError(415, "unsupported_media_type", f"send {NDJSON}")
    result: Any = await anyio.to_thread.run_sync(lambda: dict(memory.import_(_body_lines(request))))
    return result
