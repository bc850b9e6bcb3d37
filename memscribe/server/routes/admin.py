"""Operations routes: health (open), metrics and API key management (admin key)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from memscribe.server.auth import AdminDep, server_state
from memscribe.server.routes._common import ERRORS

__all__ = ["router"]

router = APIRouter(responses=ERRORS)


class Health(BaseModel):
    status: str
    version: str


class KeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tenant: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$", description="Tenant the key opens")
    name: str = Field(default="", max_length=200, description="A label for people")


class KeyOut(BaseModel):
    id: str
    tenant: str
    name: str
    created_at: str
    revoked_at: str | None


class NewKeyOut(KeyOut):
    key: str = Field(description="The secret: shown once, never stored")


class KeyList(BaseModel):
    keys: list[KeyOut]


class Metrics(BaseModel):
    model_config = ConfigDict(extra="allow")
    uptime_s: float
    tenants_loaded: int
    store: dict[str, int]
    routes: dict[str, Any]


@router.get("/healthz", response_model=Health, tags=["ops"], summary="Liveness; needs no key")
async def healthz() -> dict[str, Any]:
    from memscribe import __version__

    return {"status": "ok", "version": __version__}


@router.get("/metrics", response_model=Metrics, tags=["ops"], summary="Counts and latency per route (admin)")
def metrics(request: Request, _: AdminDep) -> dict[str, Any]:
    state = server_state(request)
    snapshot = state.metrics.snapshot()
    store = {k: int(v) for k, v in state.pool.store_stats().items() if isinstance(v, int | float)}
    return {**snapshot, "tenants_loaded": state.pool.tenants, "store": store}


@router.post("/v1/admin/keys", response_model=NewKeyOut, tags=["admin"], summary="Create a tenant API key")
def create_key(request: Request, _: AdminDep, body: KeyIn) -> dict[str, Any]:
    new = server_state(request).keys.create(body.tenant, body.name)
    return {**vars(new.key), "key": new.token}


@router.get("/v1/admin/keys", response_model=KeyList, tags=["admin"], summary="List API keys (no secrets)")
def list_keys(request: Request, _: AdminDep, tenant: str | None = None) -> dict[str, Any]:
    return {"keys": [vars(k) for k in server_state(request).keys.list(tenant)]}


@router.delete("/v1/admin/keys/{key_id}", response_model=KeyOut, tags=["admin"], summary="Revoke an API key")
def revoke_key(
    request: Request, _: AdminDep, key_id: Annotated[str, Path(min_length=1, max_length=64)]
) -> dict[str, Any]:
    return vars(server_state(request).keys.revoke(key_id))
