"""What every UI page shares: running a page under the viewer's tenant, HTML errors, security headers, forms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from memscribe.engine.memory import Memory
from memscribe.errors import MemscribeError, error_info
from memscribe.server.auth import server_state
from memscribe.server.errors import ApiError
from memscribe.server.ui.access import COOKIE, SESSION_S, LoginRequired, Viewer, viewer
from memscribe.server.ui.markup import Markup, html, layout

__all__ = ["Page", "form_fields", "page_response", "serve_page", "short"]

# Scripts and styles from /ui/static only: memory text can never run, even if an escape were missed.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
MAX_FORM = 64 * 1024


@dataclass
class Page:
    title: str
    body: Markup
    active: str = ""
    user: str | None = None
    flash: str = ""
    query: str = ""
    status: int = 200


def page_response(request: Request, who: Viewer | None, page: Page) -> HTMLResponse:
    text = layout(
        page.title,
        page.body,
        active=page.active,
        user=page.user,
        signed_in=who is not None,
        csrf=who.csrf if who else "",
        flash=page.flash,
        query=page.query,
    )
    response = HTMLResponse(text, status_code=page.status, headers=HEADERS)
    new = getattr(request.state, "ui_new_session", None)
    if new:
        set_session_cookie(response, new)
    return response


def set_session_cookie(response: Response, sid: str) -> None:
    response.set_cookie(COOKIE, sid, max_age=SESSION_S, path="/ui", httponly=True, samesite="strict")


def _error_page(request: Request, who: Viewer | None, status: int, message: str) -> HTMLResponse:
    title = {401: "Sign-in needed", 403: "Not allowed", 404: "Not found"}.get(status, "Something went wrong")
    body = html('<p class="error" role="alert">{m}</p><p><a href="/ui/">Back to the overview</a></p>', m=message)
    return page_response(request, who, Page(title, body, status=status))


def serve_page(request: Request, build: Callable[[Viewer, Memory], Page | Response]) -> Response:
    """``build`` with the viewer and their tenant's Memory; sign-in redirect, HTML error pages on failure."""
    who: Viewer | None = None
    try:
        who = viewer(request)
        result = build(who, server_state(request).pool.get(who.tenant))
    except LoginRequired:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/ui/login?next={quote(target, safe='')}", status_code=303, headers=HEADERS)
    except ApiError as exc:
        return _error_page(request, who, exc.status, exc.message)
    except MemscribeError as exc:
        info = error_info(exc)
        return _error_page(request, who, info.http_status, str(exc) if info.http_status < 500 else info.code)
    if isinstance(result, Response):
        for key, value in HEADERS.items():
            result.headers.setdefault(key, value)
        return result
    return page_response(request, who, result)


async def form_fields(request: Request) -> dict[str, str]:
    """An urlencoded form body (first value of each field); 413 past 64 KiB, 415 for another media type."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise ApiError(415, "unsupported_media_type", "forms are sent as application/x-www-form-urlencoded")
    body = await request.body()
    if len(body) > MAX_FORM:
        raise ApiError(413, "payload_too_large", f"form over {MAX_FORM} bytes")
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=50)
    return {k: v[0] for k, v in parsed.items() if v}


def short(text: Any, n: int = 160) -> str:
    value = "" if text is None else str(text)
    return value if len(value) <= n else value[: n - 1] + "…"


def day(stamp: Any) -> str:
    return str(stamp or "")[:10]


def when(stamp: Any) -> str:
    value = str(stamp or "")
    return value[:16].replace("T", " ") if value else "—"
