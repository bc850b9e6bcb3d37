"""Who is looking at the UI, with the REST server's keys: a key in a header (as the API takes it) or a sign-in
form that keeps the key server-side and gives the browser an opaque session cookie (HttpOnly,
SameSite=Strict, Path=/ui). Every POST form carries the session's CSRF token. With ``--no-auth`` (loopback
only) a session is opened on the first visit so the forms still carry a token.

The UI answers loopback clients only, unless the server itself was bound to a non-loopback address.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import Request

from memscribe.server.auth import authenticate, server_state
from memscribe.server.errors import ApiError
from memscribe.settings import is_loopback

if TYPE_CHECKING:
    from memscribe.server.app import ServerState

__all__ = ["COOKIE", "Sessions", "Viewer", "check_csrf", "viewer"]

COOKIE = "memscribe_ui"
SESSION_S = 12 * 3600
MAX_SESSIONS = 1000


@dataclass(frozen=True)
class Session:
    tenant: str
    csrf: str
    token: str | None  # the API key it was opened with (kept here, never in the cookie); None: --no-auth
    expires: float


@dataclass(frozen=True)
class Viewer:
    """The caller of one UI request: a tenant, and the session (and CSRF token) when a browser form is used."""

    tenant: str
    csrf: str = ""
    session: str | None = None
    by_header: bool = False


class LoginRequired(Exception):
    """No usable credentials: the page answers with the sign-in form."""


class Sessions:
    """Open UI sessions, in memory (a restart signs everyone out), oldest dropped past ``MAX_SESSIONS``."""

    def __init__(self) -> None:
        self._open: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, tenant: str, token: str | None) -> tuple[str, Session]:
        sid = secrets.token_urlsafe(32)
        session = Session(tenant, secrets.token_urlsafe(24), token, time.monotonic() + SESSION_S)
        with self._lock:
            self._open[sid] = session
            while len(self._open) > MAX_SESSIONS:
                self._open.popitem(last=False)
        return sid, session

    def get(self, sid: str) -> Session | None:
        with self._lock:
            session = self._open.get(sid)
            if session is not None and session.expires < time.monotonic():
                del self._open[sid]
                return None
            return session

    def close(self, sid: str) -> None:
        with self._lock:
            self._open.pop(sid, None)


def sessions(request: Request) -> Sessions:
    found: Sessions = request.app.state.memscribe_ui
    return found


def tenant_of_key(state: ServerState, token: str) -> str:
    """The tenant a key opens, or ApiError (401 unknown, 403 revoked or the admin key)."""
    admin = state.settings.admin_key
    if admin is not None and hmac.compare_digest(token.encode(), admin.encode()):
        raise ApiError(403, "forbidden", "the admin key manages keys; sign in with a tenant key")
    key = state.keys.verify(token)
    if key is None:
        raise ApiError(401, "unauthorized", "unknown API key")
    if key.revoked:
        raise ApiError(403, "forbidden", "this API key has been revoked")
    return key.tenant


def _check_client(request: Request, state: ServerState) -> None:
    client = request.client.host if request.client else ""
    if not is_loopback(state.settings.host) or not client or is_loopback(client):
        return
    raise ApiError(403, "forbidden", "the web UI answers loopback clients only")


def viewer(request: Request) -> Viewer:
    """The tenant behind this request; LoginRequired when a browser has to sign in first."""
    state = server_state(request)
    _check_client(request, state)
    if request.headers.get("authorization") or request.headers.get("x-api-key"):
        principal = authenticate(request)
        if principal.tenant is None:
            raise ApiError(403, "forbidden", "the admin key manages keys; use a tenant key for the UI")
        return Viewer(principal.tenant, by_header=True)
    sid = request.cookies.get(COOKIE)
    session = sessions(request).get(sid) if sid else None
    if session is not None and session.token is not None:
        try:
            tenant_of_key(state, session.token)  # a key revoked since sign-in stops working at once
        except ApiError:
            sessions(request).close(str(sid))
            session = None
    if session is None:
        if not state.settings.no_auth:
            raise LoginRequired
        sid, session = sessions(request).open(state.settings.default_tenant, None)
        request.state.ui_new_session = sid
    request.state.tenant = session.tenant
    return Viewer(session.tenant, session.csrf, sid)


def check_csrf(viewer: Viewer, sent: str | None) -> None:
    """A POST form must carry its session's token; calls with a key in a header carry no ambient credential."""
    if viewer.by_header:
        return
    if not sent or not viewer.csrf or not hmac.compare_digest(sent.encode(), viewer.csrf.encode()):
        raise ApiError(403, "forbidden", "the form's CSRF token is missing or stale; reload the page")
