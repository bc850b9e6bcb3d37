"""The UI's forms: sign in and out, forget a memory and purge a user (each behind a confirmation page, each
POST checked against the session's CSRF token), and the bundled static files."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response

from memscribe.engine.memory import Memory
from memscribe.server.auth import server_state
from memscribe.server.errors import ApiError
from memscribe.server.ui.access import COOKIE, Viewer, check_csrf, sessions, tenant_of_key
from memscribe.server.ui.markup import html, url
from memscribe.server.ui.render import HEADERS, Page, form_fields, page_response, serve_page, set_session_cookie

__all__ = ["router"]

router = APIRouter(prefix="/ui", include_in_schema=False)
_STATIC = {
    "htmx.min.js": "text/javascript",
    "ui.js": "text/javascript",
    "ui.css": "text/css",
    "htmx.LICENSE.txt": "text/plain",
    "favicon.svg": "image/svg+xml",
}


@router.get("")
def root() -> Response:
    return RedirectResponse("/ui/", status_code=308)


@router.get("/static/{name}")
def static(name: str) -> Response:
    if name not in _STATIC:
        raise ApiError(404, "not_found", "no such file")
    data = files("memscribe.server.ui").joinpath("static", name).read_bytes()
    return Response(
        data, media_type=_STATIC[name], headers={"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"}
    )


def _next(target: str | None) -> str:
    """Only a path inside the UI: a sign-in link must not send anyone elsewhere."""
    if target and target.startswith("/ui/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/ui/"


def _login_form(target: str, message: str = "") -> Page:
    body = html(
        '{m}<form action="/ui/login" method="post" class="login"><input type="hidden" name="next" value="{n}">'
        '<label for="key">API key</label><input id="key" name="key" type="password" autocomplete="off" required '
        'autofocus><button type="submit">Sign in</button></form><p>A tenant key, as the REST API takes: '
        "<code>memscribe keys create TENANT</code> makes one.</p>",
        m=html('<p class="error" role="alert">{t}</p>', t=message) if message else "",
        n=target,
    )
    return Page("Sign in", body, status=401 if message else 200)


@router.get("/login")
def login_page(request: Request, next: str | None = None) -> Response:
    return page_response(request, None, _login_form(_next(next)))


@router.post("/login")
async def login(request: Request) -> Response:
    fields = await form_fields(request)
    target, key = _next(fields.get("next")), fields.get("key", "").strip()
    state = server_state(request)
    try:
        tenant = state.settings.default_tenant if state.settings.no_auth else tenant_of_key(state, key)
    except ApiError as exc:
        return page_response(request, None, _login_form(target, exc.message))
    sid, _ = sessions(request).open(tenant, None if state.settings.no_auth else key)
    response = RedirectResponse(target, status_code=303, headers=HEADERS)
    set_session_cookie(response, sid)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    fields = await form_fields(request)
    sid = request.cookies.get(COOKIE)
    session = sessions(request).get(sid) if sid else None
    if session is not None:
        check_csrf(Viewer(session.tenant, session.csrf, sid), fields.get("csrf"))
        sessions(request).close(str(sid))
    response = RedirectResponse("/ui/login", status_code=303, headers=HEADERS)
    response.delete_cookie(COOKIE, path="/ui", httponly=True, samesite="strict")
    return response


def _confirm(
    title: str,
    question: Any,
    action: str,
    who: Viewer,
    fields: dict[str, str],
    button: str,
    cancel: str,
    extra: Any = "",
) -> Page:
    hidden = [html('<input type="hidden" name="{k}" value="{v}">', k=k, v=v) for k, v in fields.items()]
    body = html(
        '<div class="confirm" role="alertdialog" aria-labelledby="confirm-q"><p id="confirm-q">{q}</p>'
        '<form action="{a}" method="post"><input type="hidden" name="csrf" value="{c}">{h}{x}'
        '<button type="submit" name="confirm" value="yes" class="danger">{b}</button> '
        '<a class="button" href="{cancel}">Cancel</a></form></div>',
        q=question,
        a=action,
        c=who.csrf,
        h=hidden,
        x=extra,
        b=button,
        cancel=cancel,
    )
    return Page(title, body)


@router.get("/memories/{memory_id}/forget")
def forget_page(request: Request, memory_id: str, user: str | None = None) -> Response:
    def build(who: Viewer, memory: Memory) -> Page:
        item = memory.get(memory_id[:256], user_id=user or None)
        question = html(
            "Erase this memory for good, with every version and the text it came from? <blockquote>{t}</blockquote>",
            t=item["memory"],
        )
        back = url(f"/ui/memories/{item['id']}", user=item["user_id"])
        page = _confirm(
            "Forget a memory",
            question,
            f"/ui/memories/{item['id']}/forget",
            who,
            {"user": item["user_id"]},
            "Forget for good",
            back,
        )
        page.user = item["user_id"]
        return page

    return serve_page(request, build)


@router.post("/memories/{memory_id}/forget")
async def forget(request: Request, memory_id: str) -> Response:
    fields = await form_fields(request)

    def build(who: Viewer, memory: Memory) -> Response:
        check_csrf(who, fields.get("csrf"))
        if fields.get("confirm") != "yes":
            raise ApiError(400, "bad_request", "forgetting needs the confirmation button")
        user = fields.get("user") or None
        owner = memory.get(memory_id[:256], user_id=user)["user_id"]  # 404 before anything is erased
        memory.forget(memory_id[:256], user_id=owner)
        return RedirectResponse(url("/ui/search", user=owner, done="forgot"), status_code=303)

    return await run_in_threadpool(serve_page, request, build)


def _purge_confirm(who: Viewer, memory: Memory, user: str, problem: str = "") -> Page:
    count = memory.stats(user_id=user)["current"]
    question = html(
        "{p}Purge everything {u} has in this store ({n} current memories, their history, episodes and "
        "journal)? This cannot be undone. Type the user id to confirm.",
        p=html('<span class="error" role="alert">{t}</span> ', t=problem) if problem else "",
        u=user,
        n=count,
    )
    typed = html('<label for="typed">User id</label><input id="typed" name="typed" autocomplete="off" required>')
    page = _confirm("Purge a user", question, "/ui/purge", who, {"user": user}, "Purge", url("/ui/", user=user), typed)
    page.user = user
    return page


@router.get("/purge")
def purge_page(request: Request, user: str = "") -> Response:
    def build(who: Viewer, memory: Memory) -> Page:
        if not user:
            raise ApiError(400, "bad_request", "purge needs ?user=")
        return _purge_confirm(who, memory, user)

    return serve_page(request, build)


@router.post("/purge")
async def purge(request: Request) -> Response:
    fields = await form_fields(request)

    def build(who: Viewer, memory: Memory) -> Page:
        check_csrf(who, fields.get("csrf"))
        user = fields.get("user", "")
        if not user or fields.get("confirm") != "yes":
            raise ApiError(400, "bad_request", "purging needs a user and the confirmation button")
        if fields.get("typed") != user:  # asked again, as a form asks again about a wrong field
            return _purge_confirm(who, memory, user, "The typed user id does not match; nothing was purged.")
        done = memory.purge(user)
        facts = html(
            "<p role='status'>Purged {u}: {m} memories, {e} episodes, {j} journal entries; {v}.</p>"
            "<p><a href='/ui/'>Back to the overview</a></p>",
            u=user,
            m=done["memories"],
            e=done["episodes"],
            j=done["journal"],
            v="verified: no byte of it is left" if done["verified"] else f"NOT verified: {done['leftovers']} left over",
        )
        return Page("Purged", facts)

    return await run_in_threadpool(serve_page, request, build)
