"""The mem0 platform API that mem0ai's released ``MemoryClient``/``AsyncMemoryClient`` call with ``host=``:
``/v1/ping/``, the v2/v3 memory routes (add, list, search), ``/v1/batch/`` (update, delete), ``/v1/entities/``
(users, delete, reset) and a user's profile.

mem0's entities map onto memscribe's scope: ``user_id`` picks the partition (required), ``agent_id`` stays
``agent_id``, ``run_id`` is ``session_id`` and ``app_id`` is ``project``. Scope may come at the top level
or inside ``filters`` (flat, or one ``AND`` list). The key's tenant plays mem0's organisation and project.
What cannot map (OR/NOT filters, metadata filters, agent-, app- or run-wide deletion) is refused with a
clear 422 rather than ignored.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memscribe.engine.memory import Memory
from memscribe.engine.reading import mem0_scope
from memscribe.errors import InvalidInput, ScopeError
from memscribe.server.auth import MemoryDep, TenantDep, server_state
from memscribe.server.models import MAX_LIMIT, AddRequest, AddResponse, MessageIn, SearchResponse, Timestamp
from memscribe.server.routes._common import ERRORS, merged_scope
from memscribe.server.routes.data import purge_report
from memscribe.server.routes.memories import add_memories

__all__ = ["router"]

router = APIRouter(tags=["mem0"], responses=ERRORS)
EntityName = Annotated[str, Path(min_length=1, max_length=256)]
_SCOPE_KEYS = ("user_id", "agent_id", "run_id", "app_id", "session_id", "project")
# mem0 options that would change what is stored or returned and that memscribe cannot honour: refused (422)
# rather than silently dropped. Benign ones (version, output_format, async_mode, rerank) are accepted.
_UNSUPPORTED = frozenset({
    "expiration_date", "structured_data_schema", "custom_categories", "custom_instructions",
    "agent_custom_instructions", "memory_type", "prompt", "categories", "reference_date",
})  # fmt: skip


def _refuse_unsupported(body: BaseModel) -> None:
    named = sorted(k for k, v in (body.model_extra or {}).items() if k in _UNSUPPORTED and v is not None)
    if named:
        raise InvalidInput(f"memscribe does not support mem0's {', '.join(named)}; see docs/server.md")


class _Mem0In(BaseModel):
    # mem0's clients send options memscribe has no use for (custom_instructions, rerank, ...): accepted.
    model_config = ConfigDict(extra="allow")


class V3Add(_Mem0In):
    messages: str | list[MessageIn]
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    filters: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    infer: bool = True
    timestamp: Timestamp | None = Field(default=None, description="When it was said (unix seconds or ISO 8601).")


class V3List(_Mem0In):
    filters: dict[str, Any] | None = None


class V3Search(_Mem0In):
    query: str = Field(min_length=1, max_length=10_000)
    filters: dict[str, Any] | None = None
    top_k: int | None = Field(default=None, ge=1, le=MAX_LIMIT)
    limit: int | None = Field(default=None, ge=1, le=MAX_LIMIT)
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)


class Page(BaseModel):
    model_config = ConfigDict(extra="allow")
    count: int
    next: str | None
    previous: str | None
    results: list[dict[str, Any]]


class Entity(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    name: str
    type: str
    total_memories: int
    created_at: str | None
    updated_at: str | None


class Entities(BaseModel):
    count: int
    results: list[Entity]


def _scope(top: dict[str, Any], filters: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """(user_id, engine filters) from top-level entity ids and mem0 ``filters``."""
    merged = merged_scope(top, filters)
    user_id, rest = mem0_scope(merged.pop("user_id", None), merged or None)
    if user_id is None:
        raise ScopeError("memscribe partitions by user: give user_id (at the top level or in filters)")
    if not isinstance(user_id, str):
        raise InvalidInput("user_id must be a string")
    unknown = sorted(set(rest or {}) - {"agent_id", "session_id", "project"})
    if unknown:
        raise InvalidInput(f"filters {unknown} cannot be mapped; memscribe filters by agent_id, run_id and app_id")
    for key, value in (rest or {}).items():
        if not isinstance(value, str):
            raise InvalidInput(f"filters.{key} must be a string (operators such as 'in' are not supported)")
    return user_id, rest


@router.get("/v1/ping/", summary="mem0: check the key (the tenant is mem0's org and project)")
def ping(principal: TenantDep) -> dict[str, Any]:
    return {"status": "ok", "message": "pong", "org_id": principal.tenant, "project_id": principal.tenant,
            "user_email": None}  # fmt: skip


@router.post("/v3/memories/add/", response_model=AddResponse, summary="mem0: add (v3)")
@router.post("/v2/memories/add/", response_model=AddResponse, include_in_schema=False)
def add_v3(request: Request, principal: TenantDep, body: V3Add) -> Any:
    _refuse_unsupported(body)
    top = {"user_id": body.user_id, "agent_id": body.agent_id, "run_id": body.run_id, "app_id": body.app_id}
    user_id, scope = _scope(top, body.filters)
    scope = scope or {}
    try:
        native = AddRequest.model_validate({
            "messages": body.messages, "user_id": user_id, "agent_id": scope.get("agent_id"),
            "session_id": scope.get("session_id"), "project": scope.get("project"), "metadata": body.metadata,
            "timestamp": body.timestamp, "source": "mem0",
        })  # fmt: skip
    except ValidationError as exc:
        raise InvalidInput(f"unusable add body: {exc.errors()[0]['msg']}") from None
    assert principal.tenant is not None
    memory = server_state(request).pool.get(principal.tenant, writer=None if body.infer else "raw")
    return add_memories(memory, native)


def _page_url(request: Request, page: int, size: int) -> str:
    return str(request.url.include_query_params(page=page, page_size=size))


@router.post("/v3/memories/", response_model=Page, summary="mem0: get all (v3), paginated")
@router.post("/v2/memories/", response_model=Page, include_in_schema=False)
def get_all_v3(
    request: Request,
    memory: MemoryDep,
    body: V3List,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    page_size: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
) -> Any:
    extra = body.model_extra or {}
    user_id, filters = _scope({k: extra.get(k) for k in _SCOPE_KEYS}, body.filters)
    offset = (page - 1) * page_size
    found = memory.list(user_id=user_id, filters=filters, limit=page_size + 1, offset=offset)["results"]
    results = [dict(r) for r in found[:page_size]]
    total = memory.stats(user_id=user_id)["current"] if filters is None else offset + len(found)
    return {
        "count": total,
        "next": _page_url(request, page + 1, page_size) if len(found) > page_size else None,
        "previous": _page_url(request, page - 1, page_size) if page > 1 else None,
        "results": results,
    }


@router.post("/v3/memories/search/", response_model=SearchResponse, summary="mem0: search (v3)")
@router.post("/v2/memories/search/", response_model=SearchResponse, include_in_schema=False)
def search_v3(memory: MemoryDep, body: V3Search) -> Any:
    _refuse_unsupported(body)
    extra = body.model_extra or {}
    user_id, filters = _scope({k: extra.get(k) for k in _SCOPE_KEYS}, body.filters)
    # mem0's default threshold is 0.1 on a [0, 1] score; memscribe's score is on the same scale.
    threshold = 0.1 if body.threshold is None else body.threshold
    return memory.search(
        body.query, user_id=user_id, limit=body.top_k or body.limit or 10, filters=filters, threshold=threshold
    )


@router.get("/v1/entities/", response_model=Entities, summary="mem0: users with memories (this tenant)")
def entities(memory: MemoryDep) -> Any:
    users = memory.stats().get("users", [])
    results = [
        {"id": u["user_id"], "name": u["user_id"], "type": "user", "total_memories": u["memories"],
         "created_at": u["created_at"], "updated_at": u["updated_at"], "metadata": {}}
        for u in users
    ]  # fmt: skip
    return {"count": len(results), "results": results}


@router.delete("/v2/entities/{entity_type}/{entity_id}/", summary="mem0: delete a user (purge)")
@router.delete("/v1/entities/{entity_type}/{entity_id}/", include_in_schema=False)
def delete_entity(memory: MemoryDep, entity_type: EntityName, entity_id: EntityName) -> Any:
    if entity_type != "user":
        raise InvalidInput(
            f"memscribe partitions by user; a {entity_type!r} has no memories of its own to delete "
            "(delete the user's memories, or forget them by id)"
        )
    report = purge_report(memory, entity_id)
    return {**report, "message": "Entity deleted successfully."}


class BatchItem(_Mem0In):
    memory_id: str = Field(min_length=1, max_length=256)
    text: str | None = Field(default=None, min_length=1, max_length=100_000)


class Batch(BaseModel):
    memories: list[BatchItem] = Field(min_length=1, max_length=1000)


def _check_batch(memory: Memory, body: Batch, *, need_text: bool) -> None:
    """Every id must exist (and carry text, for updates) before any is changed."""
    for item in body.memories:
        memory.get(item.memory_id)  # NotFound (404) before anything changes
        if need_text and item.text is None:
            raise InvalidInput(f"memory {item.memory_id!r}: memscribe updates text; send 'text'")


@router.put("/v1/batch/", summary="mem0: update many memories (each a new version)")
def batch_update(memory: MemoryDep, body: Batch) -> Any:
    _check_batch(memory, body, need_text=True)
    results = [memory.update(item.memory_id, str(item.text)) for item in body.memories]
    return {"message": f"Successfully updated {len(results)} memories", "results": results}


@router.delete("/v1/batch/", summary="mem0: retract many memories (kept as history)")
def batch_delete(memory: MemoryDep, body: Batch) -> Any:
    _check_batch(memory, body, need_text=False)
    results = [memory.delete(item.memory_id) for item in body.memories]
    return {"message": f"Successfully deleted {len(results)} memories", "results": results}


@router.get("/v2/entities/user/{entity_id}/profile/", summary="mem0: a user's profile (memscribe's L0 profile)")
def user_profile(memory: MemoryDep, entity_id: EntityName) -> Any:
    """Built on request from current slot memories, so it is always fresh (never pending)."""
    profile = memory.profile(user_id=entity_id)
    return {
        "profile": profile, "status": "succeeded" if profile else "insufficient_data", "entity_type": "user",
        "entity_id": entity_id, "updated_at": None, "generation_count": 0,
    }  # fmt: skip
