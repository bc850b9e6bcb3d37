"""The read-only pages: overview, search, a memory with its version chain and source turns, the timeline of a
project, and the hub's sources with their import status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from memscribe.engine.memory import Memory
from memscribe.server.auth import server_state
from memscribe.server.ui.access import Viewer
from memscribe.server.ui.hubstatus import hub_path, known_sources, read_status
from memscribe.server.ui.markup import Markup, html, join, table, url
from memscribe.server.ui.render import Page, day, serve_page, short, when

__all__ = ["choose_user", "router"]

router = APIRouter(prefix="/ui", include_in_schema=False)
_DONE = {
    "forgot": "The memory was erased: every version and its source text.",
    "purged": "The user's memory was purged.",
}


def choose_user(memory: Memory, requested: str | None) -> tuple[str | None, list[dict[str, Any]]]:
    """The user to show (the one asked for, else the only one) and every user of the tenant."""
    users = list(memory.stats().get("users", []))
    if requested:
        return requested, users
    return (str(users[0]["user_id"]) if len(users) == 1 else None), users


def _pick_user(users: list[dict[str, Any]], path: str) -> Markup:
    links = [
        html('<li><a href="{href}">{u}</a></li>', href=url(path, user=u["user_id"]), u=u["user_id"]) for u in users
    ]
    if not links:
        return html("<p>This store has no memories yet.</p>")
    return html("<p>Whose memory?</p><ul class='users'>{links}</ul>", links=links)


def _status(item: dict[str, Any]) -> Markup:
    status = str(item.get("status") or "active")
    return html('<span class="badge badge-{s}">{s}</span>', s=status)


def _memory_link(item: dict[str, Any], user: str | None) -> Markup:
    return html(
        '<a href="{href}">{text}</a>', href=url(f"/ui/memories/{item['id']}", user=user), text=short(item.get("memory"))
    )


@router.get("/")
def overview(request: Request, user: str | None = None) -> Response:
    def build(who: Viewer, memory: Memory) -> Page:
        stats = memory.stats()
        counts = table(
            ["memories", "current", "versions", "episodes", "pending"],
            [[stats["memories"], stats["current"], stats["versions"], stats["episodes"], stats["pending_episodes"]]],
            caption=f"Tenant {who.tenant}",
        )
        rows = [
            [
                html('<a href="{h}">{u}</a>', h=url("/ui/search", user=u["user_id"]), u=u["user_id"]),
                u["memories"],
                when(u["updated_at"]),
                html('<a href="{h}">timeline</a>', h=url("/ui/timeline", user=u["user_id"])),
                html('<a href="{h}">purge…</a>', h=url("/ui/purge", user=u["user_id"])),
            ]
            for u in stats.get("users", [])
        ]
        users = table(["user", "current memories", "last change", "", ""], rows, caption="Users")
        return Page(
            "Overview",
            join([counts, users]),
            active="overview",
            user=user,
            flash=_DONE.get(str(request.query_params.get("done")), ""),
        )

    return serve_page(request, build)


def _results(hits: list[dict[str, Any]], user: str | None, query: str) -> Markup:
    if not query:
        return html('<div id="results"></div>')
    if not hits:
        return html('<div id="results"><p role="status">No current memory matches.</p></div>')
    items = [
        html(
            '<li><p class="hit">{link}</p><p class="meta">{status} score {score} · valid from {since} · {project}'
            "</p></li>",
            link=_memory_link(h, user),
            status=_status(h),
            score=f"{h['score']:.2f}",
            since=day(h.get("valid_from")),
            project=h.get("project") or "no project",
        )
        for h in hits
    ]
    return html(
        '<div id="results"><p role="status">{n} found</p><ol class="hits">{items}</ol></div>', n=len(hits), items=items
    )


@router.get("/search")
def search(request: Request, q: str = "", user: str | None = None) -> Response:
    def build(who: Viewer, memory: Memory) -> Page:
        chosen, users = choose_user(memory, user)
        if chosen is None:
            return Page("Search", _pick_user(users, "/ui/search"), active="search", query=q)
        hits = memory.search(q[:2000], user_id=chosen, limit=20)["results"] if q.strip() else []
        box = html(
            '<form action="/ui/search" method="get" class="search"><label for="search-q">Search {u}\'s memories'
            '</label><input id="search-q" name="q" type="search" value="{q}" autofocus autocomplete="off" '
            'hx-get="/ui/search" hx-trigger="input changed delay:300ms, search" hx-target="#results" '
            'hx-select="#results" hx-swap="outerHTML" hx-include="closest form" hx-push-url="true">'
            '<input type="hidden" name="user" value="{u}"><button type="submit">Search</button></form>',
            u=chosen,
            q=q,
        )
        return Page(
            "Search",
            join([box, _results([dict(h) for h in hits], chosen, q)]),
            active="search",
            user=chosen,
            query=q,
            flash=_DONE.get(str(request.query_params.get("done")), ""),
        )

    return serve_page(request, build)


def _chain(versions: list[dict[str, Any]], user: str | None, current: str) -> Markup:
    rows = []
    for v in versions:
        mark = " (this memory)" if v["id"] == current else ""
        link = html('<a href="{h}">{i}</a>{m}', h=url(f"/ui/memories/{v['id']}", user=user), i=v["id"][:13], m=mark)
        later = v.get("superseded_by")
        after = html('<a href="{h}">{i}</a>', h=url(f"/ui/memories/{later}", user=user), i=later[:13]) if later else "—"
        rows.append(
            [
                link,
                v["version"],
                _status({"status": "retired"} if v.get("retired_at") else v),  # replaced by a later version
                when(v["valid_from"]),
                when(v.get("valid_to")),
                when(v["created_at"]),
                when(v.get("retired_at")),
                v["memory"],
                after,
            ]
        )
    return table(
        ["memory", "version", "status", "valid from", "valid to", "recorded", "retired", "text", "superseded by"],
        rows,
        caption="Version chain",
    )


def _operations(ops: list[dict[str, Any]]) -> Markup:
    rows = [
        [o["kind"], when(o["created_at"]), o["reason"], o["writer"] + (f" / {o['model']}" if o.get("model") else "")]
        for o in ops
    ]
    return table(["operation", "when", "why", "writer"], rows, caption="What changed it, and why")


def _turns(episodes: list[dict[str, Any]]) -> Markup:
    parts = []
    for e in episodes:
        turns = [
            html(
                '<li><span class="role">{r}</span> <q>{c}</q></li>',
                r=m.get("name") or m.get("role"),
                c=m.get("content"),
            )
            for m in e["messages"]
        ]
        parts.append(
            html(
                '<section class="episode"><h3>{src} · {t}</h3><ol>{turns}</ol></section>',
                src=e["source"],
                t=when(e["timestamp"]),
                turns=turns,
            )
        )
    return html("<h2>Source turns</h2>{p}", p=parts or [html("<p>No source turns kept.</p>")])


@router.get("/memories/{memory_id}")
def memory_page(request: Request, memory_id: str, user: str | None = None) -> Response:
    def build(who: Viewer, memory: Memory) -> Page:
        why: Any = memory.why(memory_id[:256], user_id=user or None)
        item, owner = why["memory"], why["memory"]["user_id"]
        facts = table(
            ["status", "valid from", "valid to", "project", "source", "subject", "writer"],
            [
                [
                    _status(item),
                    when(item["valid_from"]),
                    when(item.get("valid_to")),
                    item.get("project") or "—",
                    item.get("source") or "—",
                    item.get("subject"),
                    item["writer"],
                ]
            ],
        )
        forget = html(
            '<p><a class="button danger" href="{h}">Forget this memory…</a></p>',
            h=url(f"/ui/memories/{item['id']}/forget", user=owner),
        )
        body = join(
            [
                html('<blockquote class="memory">{t}</blockquote>', t=item["memory"]),
                facts,
                forget,
                _chain(why["versions"], owner, item["id"]),
                _operations(why["operations"]),
                _turns(why["episodes"]),
            ]
        )
        return Page("Memory", body, user=owner)

    return serve_page(request, build)


def _timeline(items: list[dict[str, Any]], user: str) -> Markup:
    days: dict[str, list[Markup]] = {}
    for m in sorted(items, key=lambda m: (str(m["valid_from"]), m["version"]), reverse=True):
        entry = html(
            "<li>{status} {link} <span class='meta'>{t} · v{v}</span></li>",
            status=_status(m),
            link=_memory_link(m, user),
            t=when(m["valid_from"]),
            v=m["version"],
        )
        days.setdefault(day(m["valid_from"]), []).append(entry)
    sections = [html("<section><h2>{d}</h2><ul class='timeline'>{e}</ul></section>", d=d, e=e) for d, e in days.items()]
    return join(sections) if sections else html("<p role='status'>Nothing recorded for this project.</p>")


@router.get("/timeline")
def timeline(request: Request, user: str | None = None, project: str | None = None) -> Response:
    def build(who: Viewer, memory: Memory) -> Page:
        chosen, users = choose_user(memory, user)
        if chosen is None:
            return Page("Timeline", _pick_user(users, "/ui/timeline"), active="timeline")
        every = memory.list(user_id=chosen, limit=1000, include_history=True)["results"]
        projects = sorted({str(m["project"]) for m in every if m.get("project")})
        shown = [dict(m) for m in every if not project or m.get("project") == project]
        options = [
            html('<option value="{p}"{s}>{p}</option>', p=p, s=Markup(" selected") if p == project else "")
            for p in projects
        ]
        picker = html(
            '<form action="/ui/timeline" method="get" class="picker"><input type="hidden" name="user" value="{u}">'
            '<label for="project">Project</label><select id="project" name="project"><option value="">every '
            'project</option>{o}</select><button type="submit">Show</button></form>',
            u=chosen,
            o=options,
        )
        title = f"Timeline of {project}" if project else "Timeline"
        return Page(title, join([picker, _timeline(shown, chosen)]), active="timeline", user=chosen)

    return serve_page(request, build)


@router.get("/sources")
def sources(request: Request, user: str | None = None) -> Response:
    def build(who: Viewer, memory: Memory) -> Page:
        settings = server_state(request).settings
        if who.tenant != settings.default_tenant:
            note = html(
                "<p>The hub imports into tenant {t}; this key opens {w}.</p>", t=settings.default_tenant, w=who.tenant
            )
            return Page("Sources", note, active="sources", user=user)
        status = read_status(hub_path(Path(settings.store_path)))
        rows = []
        for name in sorted({*known_sources(), *status}):
            s = status.get(name)
            errors = html("<span class='error'>{n} in error</span>", n=len(s["errors"])) if s and s["errors"] else "—"
            rows.append(
                [
                    name,
                    s["files"] if s else 0,
                    s["sessions"] if s else 0,
                    s["turns"] if s else 0,
                    s["episodes"] if s else 0,
                    when(s["last_import"]) if s else "never",
                    errors,
                ]
            )
        help_text = html(
            "<p>Import with <code>memscribe hub import</code>; <code>memscribe hub status</code> prints "
            "the same figures.</p>"
        )
        grid = table(
            ["source", "files", "sessions", "turns", "episodes", "last import", "errors"],
            rows,
            caption="History sources and their import status",
        )
        return Page("Sources", join([grid, help_text]), active="sources", user=user)

    return serve_page(request, build)
