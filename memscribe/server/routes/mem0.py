"""mem0-compatible routes (trailing slashes, as mem0's clients call them) over the same engine.

Bodies follow mem0: ``run_id`` is memscribe's ``session_id``; ``infer: false`` stores the messages as they
are (the raw writer); search takes ``limit`` or ``top_k`` and the scope at the top level or inside
``filters``. Responses use mem0's v1.1 shapes (``{"results": [...]}``) with memscribe's extra fields.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field

from memscribe.errors import InvalidInput, ScopeError
from memscribe.server.auth import MemoryDep, TenantDep, server_state
from memscribe.server.models import (
    MAX_LIMIT,
    AddRequest,
    AddResponse,
    ListResponse,
    MemoryOut,
    MessageIn,
    OptionalId,
    PurgeResponse,
    SearchResponse,
)
from memscribe.server.routes._common import ERRORS, filters_of, merged_scope, page
from memscribe.server.routes.data import purge_report
from memscribe.server.routes.memories import add_memories

__all__ = ["router"]

router = APIRouter(prefix="/v1/memories", tags=["mem0"], responses=ERRORS)
MemoryIdPath = Annotated[str, Path(min_length=1, max_length=256)]


class Mem0Add(BaseModel):
    """mem0's add body; fields mem0 sends that memscribe has no use for are ignored."""

    messages: str | list[MessageIn]
    user_id: OptionalId = None
    agent_id: OptionalId = None
    run_id: OptionalId = None
    metadata: dict[str, Any] | None = None
    infer: bool = True


class Mem0Search(BaseModel):
    query: str = Field(min_length=1, max_length=10_000)
    user_id: OptionalId = None
    agent_id: OptionalId = None
    run_id: OptionalId = None
    filters: dict[str, Any] | None = None
    limit: int | None = Field(default=None, ge=1, le=MAX_LIMIT)
    top_k: int | None = Field(default=None, ge=1, le=MAX_LIMIT)


class Mem0Update(BaseModel):
    text: str | None = Field(default=None, min_length=1, max_length=100_000)
    data: str | None = Field(default=None, min_length=1, max_length=100_000)


class Mem0Purge(PurgeResponse):
    message: str


class Mem0HistoryEntry(BaseModel):
    id: str
    memory_id: str
    old_memory: str | None
    new_memory: str | None
    event: str
    user_id: str
    created_at: str


def _need_user(user_id: str | None) -> str:
    if user_id is None:
        raise ScopeError("memscribe partitions by user: user_id is required")
    return user_id


@router.post("/", response_model=AddResponse, summary="mem0: add")
def add(request: Request, principal: TenantDep, body: Mem0Add) -> dict[str, Any]:
    native = AddRequest(
        messages=body.messages, user_id=_need_user(body.user_id), agent_id=body.agent_id,
        session_id=body.run_id, metadata=body.metadata, source="mem0",
    )  # fmt: skip
    assert principal.tenant is not None
    writer = None if body.infer else "raw"
    return add_memories(server_state(request).pool.get(principal.tenant, writer=writer), native)


@router.get("/", response_model=ListResponse, summary="mem0: get all")
def get_all(
    memory: MemoryDep,
    user_id: Annotated[OptionalId, Query()] = None,
    agent_id: Annotated[OptionalId, Query()] = None,
    run_id: Annotated[OptionalId, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> dict[str, Any]:
    filters = filters_of(agent_id=agent_id, session_id=run_id)
    result = memory.list(user_id=_need_user(user_id), limit=limit, offset=offset, filters=filters)
    return page(result, limit, offset)


@router.post("/search/", response_model=SearchResponse, summary="mem0: search")
def search(memory: MemoryDep, body: Mem0Search) -> Any:
    extra = merged_scope({"user_id": body.user_id, "agent_id": body.agent_id, "run_id": body.run_id}, body.filters)
    for key in ("user_id", "agent_id", "session_id", "project"):
        if extra.get(key) is not None and not isinstance(extra[key], str):
            raise InvalidInput(f"filters.{key} must be a string")
    user_id = extra.pop("user_id", None)
    filters = filters_of(**extra)
    limit = body.limit or body.top_k or 10
    return memory.search(body.query, user_id=_need_user(user_id), limit=limit, filters=filters)


@router.get("/{memory_id}/", response_model=MemoryOut, summary="mem0: get")
def get(memory: MemoryDep, memory_id: MemoryIdPath) -> Any:
    return memory.get(memory_id)


@router.put("/{memory_id}/", response_model=AddResponse, summary="mem0: update")
def update(memory: MemoryDep, memory_id: MemoryIdPath, body: Mem0Update) -> dict[str, Any]:
    text = body.text or body.data
    if text is None:
        raise InvalidInput("send the new text as 'text'")
    return {**memory.update(memory_id, text), "message": "Memory updated successfully!"}


@router.delete("/{memory_id}/", response_model=AddResponse, summary="mem0: delete")
def delete(memory: MemoryDep, memory_id: MemoryIdPath) -> dict[str, Any]:
    return {**memory.delete(memory_id), "message": "Memory deleted successfully!"}


@router.delete("/", response_model=Mem0Purge, summary="mem0: delete all of a user's memories (purge)")
def delete_all(memory: MemoryDep, user_id: Annotated[OptionalId, Query()] = None) -> dict[str, Any]:
    report = purge_report(memory, _need_user(user_id))
    return {**report, "message": "Memories deleted successfully!"}


@router.get("/{memory_id}/history/", response_model=list[Mem0HistoryEntry], summary="mem0: history")
def history(memory: MemoryDep, memory_id: MemoryIdPath) -> list[dict[str, Any]]:
    entries, previous = [], None
    for version in memory.history(memory_id):
        if version["status"] == "deleted":
            event, new = "DELETE", None
        else:
            event, new = ("ADD" if previous is None else "UPDATE"), version["memory"]
        entries.append({
            "id": version["version_id"], "memory_id": version["id"], "old_memory": previous,
            "new_memory": new, "event": event, "user_id": version["user_id"],
            "created_at": version["created_at"],
        })  # fmt: skip
        previous = version["memory"]
    return entries
