"""Who is calling: a tenant key, the admin key, or nobody (``--no-auth`` on loopback only).

Keys travel as ``Authorization: Bearer <key>`` (``Token <key>`` too, as mem0's client sends) or
``X-API-Key: <key>``. Missing or unknown keys are 401; a revoked key, or a tenant key on an admin route,
is 403. Every tenant route then works only inside the key's tenant.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPBearer

from memscribe.engine.memory import Memory
from memscribe.server.errors import ApiError

if TYPE_CHECKING:
    from memscribe.server.app import ServerState

__all__ = ["AdminDep", "MemoryDep", "Principal", "TenantDep", "server_state"]

# Declared for the OpenAPI spec; the header is parsed below so that mem0's "Token" scheme works too.
_bearer = HTTPBearer(auto_error=False, description="A tenant API key: msk_...")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="The same key, in a header")
_UNAUTHORIZED = {"WWW-Authenticate": 'Bearer realm="memscribe"'}


@dataclass(frozen=True)
class Principal:
    tenant: str | None
    admin: bool = False


def server_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.memscribe
    return state


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() in ("bearer", "token") and value.strip():
            return value.strip()
        raise ApiError(401, "unauthorized", "use 'Authorization: Bearer <key>'", _UNAUTHORIZED)
    return request.headers.get("x-api-key") or None


def _is_admin(state: ServerState, token: str) -> bool:
    admin = state.settings.admin_key
    return admin is not None and hmac.compare_digest(token.encode(), admin.encode())


def authenticate(request: Request) -> Principal:
    """The caller, or ApiError 401/403. Also notes the tenant for the access log (never the key)."""
    state = server_state(request)
    if state.settings.no_auth:
        principal = Principal(tenant=state.settings.default_tenant, admin=True)
    else:
        token = _token(request)
        if token is None:
            raise ApiError(401, "unauthorized", "an API key is required", _UNAUTHORIZED)
        if _is_admin(state, token):
            principal = Principal(tenant=None, admin=True)
        else:
            key = state.keys.verify(token)
            if key is None:
                raise ApiError(401, "unauthorized", "unknown API key", _UNAUTHORIZED)
            if key.revoked:
                raise ApiError(403, "forbidden", "this API key has been revoked")
            principal = Principal(tenant=key.tenant)
    request.state.tenant = principal.tenant
    return principal


def _tenant_principal(
    request: Request,
    _b: Annotated[object, Security(_bearer)] = None,
    _k: Annotated[object, Security(_api_key)] = None,
) -> Principal:
    principal = authenticate(request)
    if principal.tenant is None:
        raise ApiError(403, "forbidden", "the admin key manages keys; use a tenant key for memory routes")
    return principal


def _admin_principal(
    request: Request,
    _b: Annotated[object, Security(_bearer)] = None,
    _k: Annotated[object, Security(_api_key)] = None,
) -> Principal:
    principal = authenticate(request)
    if not principal.admin:
        raise ApiError(403, "forbidden", "this route needs the admin key")
    return principal


async def _tenant_memory(request: Request, principal: Annotated[Principal, Depends(_tenant_principal)]) -> Memory:
    # async: a dict lookup (building a Memory touches no file), so no worker-thread hop
    assert principal.tenant is not None
    return server_state(request).pool.get(principal.tenant)


TenantDep = Annotated[Principal, Depends(_tenant_principal)]
AdminDep = Annotated[Principal, Depends(_admin_principal)]
MemoryDep = Annotated[Memory, Depends(_tenant_memory)]
