"""Native memory routes: add, list, search, get, update, delete, history, why."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from memscribe.engine.memory import Memory
from memscribe.server.auth import MemoryDep
from memscribe.server.models import (
    MAX_LIMIT,
    AddRequest,
    AddResponse,
    ListResponse,
    MemoryOut,
    OptionalId,
    ScopeId,
    SearchRequest,
    SearchResponse,
    Timestamp,
    UpdateRequest,
    WhyResponse,
)
from memscribe.server.routes._common import ERRORS, filters_of, page

__all__ = ["add_memories", "router"]

router = APIRouter(prefix="/v1/memories", tags=["memories"], responses=ERRORS)
MemoryIdPath = Annotated[str, Path(min_length=1, max_length=256, description="A memory id")]
UserQuery = Annotated[OptionalId, Query(description="The owner; default: looked up within the tenant")]


def add_memories(memory: Memory, body: AddRequest) -> dict[str, Any]:
    """Shared by the native and the mem0 add routes."""
    messages: Any = body.messages
    if not isinstance(messages, str):
        messages = [m.model_dump(exclude_none=True) for m in messages]
    result: dict[str, Any] = dict(memory.add(
        messages, user_id=body.user_id, agent_id=body.agent_id, session_id=body.session_id,
        project=body.project, timestamp=body.timestamp, source=body.source, metadata=body.metadata,
        idempotency_key=body.idempotency_key, wait=body.wait, infer=body.infer,
    ))  # fmt: skip
    return result


@router.post("", response_model=AddResponse, summary="Add messages; write their memories")
def add(memory: MemoryDep, body: AddRequest) -> dict[str, Any]:
    return add_memories(memory, body)


@router.get("", response_model=ListResponse, summary="List a user's memories, a page at a time")
def list_memories(
    memory: MemoryDep,
    user_id: Annotated[ScopeId, Query()],
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    as_of: Annotated[Timestamp | None, Query(description="Versions valid at this time")] = None,
    include_history: bool = False,
    agent_id: Annotated[OptionalId, Query()] = None,
    session_id: Annotated[OptionalId, Query()] = None,
    project: Annotated[OptionalId, Query()] = None,
    layer: Annotated[list[str] | None, Query()] = None,
    scene: Annotated[list[str] | None, Query()] = None,
    source: Annotated[list[str] | None, Query()] = None,
    owner: Annotated[list[str] | None, Query()] = None,
    status: Annotated[list[str] | None, Query(description="Default: active")] = None,
    after: Annotated[Timestamp | None, Query(description="valid_from at or after")] = None,
    before: Annotated[Timestamp | None, Query(description="valid_from before")] = None,
) -> dict[str, Any]:
    filters = filters_of(
        agent_id=agent_id,
        session_id=session_id,
        project=project,
        layers=layer,
        scenes=scene,
        sources=source,
        owners=owner,
        statuses=status,
        after=after,
        before=before,
    )
    result = memory.list(
        user_id=user_id,
        limit=limit,
        offset=offset,
        as_of=as_of,
        include_history=include_history,
        filters=filters,
    )
    return page(result, limit, offset)


@router.post("/search", response_model=SearchResponse, summary="Hybrid search over a user's memories")
def search(memory: MemoryDep, body: SearchRequest) -> Any:
    filters = body.filters.model_dump(exclude_none=True) if body.filters else None
    return memory.search(
        body.query, user_id=body.user_id, limit=body.limit, as_of=body.as_of,
        include_history=body.include_history, filters=filters or None, threshold=body.threshold,
    )  # fmt: skip


@router.get("/{memory_id}", response_model=MemoryOut, summary="The current version of one memory")
def get(memory: MemoryDep, memory_id: MemoryIdPath, user_id: UserQuery = None) -> Any:
    return memory.get(memory_id, user_id=user_id)


@router.put("/{memory_id}", response_model=AddResponse, summary="Replace a memory's text (a new version)")
def update(memory: MemoryDep, memory_id: MemoryIdPath, body: UpdateRequest) -> Any:
    return memory.update(memory_id, body.text, user_id=body.user_id)


@router.delete("/{memory_id}", response_model=AddResponse, summary="Retract a memory (kept as history)")
def delete(memory: MemoryDep, memory_id: MemoryIdPath, user_id: UserQuery = None) -> Any:
    return memory.delete(memory_id, user_id=user_id)


@router.get("/{memory_id}/history", response_model=list[MemoryOut], summary="Every version, oldest first")
def history(memory: MemoryDep, memory_id: MemoryIdPath, user_id: UserQuery = None) -> Any:
    return memory.history(memory_id, user_id=user_id)


@router.get("/{memory_id}/why", response_model=WhyResponse, summary="The operations and episodes behind it")
def why(memory: MemoryDep, memory_id: MemoryIdPath, user_id: UserQuery = None) -> Any:
    return memory.why(memory_id, user_id=user_id)
