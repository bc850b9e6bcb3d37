"""HTML built from format strings whose values are escaped unless they are already :class:`Markup`.

``html("<a href='{href}'>{text}</a>", href=url, text=memory)`` escapes both values (quotes included); a value
that is Markup (another ``html(...)`` result) goes in as it is, and a list of Markup is joined. There is no
other way to put text into a page, so memory text can never become markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any
from urllib.parse import urlencode

__all__ = ["Markup", "hidden", "html", "join", "layout", "table", "url"]


class Markup(str):
    """Text that is already HTML."""

    __slots__ = ()


def _fill(value: Any) -> str:
    if isinstance(value, Markup):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, Markup) for v in value):
        return "".join(value)
    return escape("" if value is None else str(value), quote=True)


def html(template: str, **values: Any) -> Markup:
    """``template`` with each ``{name}`` replaced by its escaped value."""
    return Markup(template.format_map({k: _fill(v) for k, v in values.items()}))


def join(parts: Iterable[Markup], sep: str = "") -> Markup:
    return Markup(sep.join(parts))


def url(path: str, **query: Any) -> str:
    """A path with a query string of the values that are set (escape it with :func:`html` like any text)."""
    chosen = {k: v for k, v in query.items() if v not in (None, "")}
    return f"{path}?{urlencode(chosen, doseq=True)}" if chosen else path


_NAV = (
    ("overview", "/ui/", "Overview"),
    ("search", "/ui/search", "Search"),
    ("timeline", "/ui/timeline", "Timeline"),
    ("sources", "/ui/sources", "Sources"),
)

# htmx: no inline <style> (the CSP forbids it), no eval, no history snapshots of memory text in localStorage.
_HTMX_CONFIG = (
    '{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true,'
    '"historyCacheSize":0,"refreshOnHistoryMiss":true}'
)


def layout(
    title: str,
    body: Markup,
    *,
    active: str = "",
    user: str | None = None,
    signed_in: bool = True,
    csrf: str = "",
    flash: str = "",
    query: str = "",
) -> Markup:
    """A whole page: head, skip link, navigation with the search box, the flash line and ``body``."""
    nav: list[Markup] = []
    for key, path, label in _NAV:
        current = Markup(' aria-current="page"') if key == active else Markup("")
        nav.append(
            html(
                '<li><a href="{href}"{current}>{label}</a></li>',
                href=url(path, user=user),
                current=current,
                label=label,
            )
        )
    search = html(
        '<form role="search" action="/ui/search" method="get" class="top-search">'
        '<label for="q" class="visually-hidden">Search memories</label>'
        '<input id="q" name="q" type="search" value="{query}" placeholder="Search memories (press /)" '
        'autocomplete="off" aria-keyshortcuts="/">{user_field}<button type="submit">Search</button></form>',
        query=query,
        user_field=html('<input type="hidden" name="user" value="{u}">', u=user) if user else "",
    )
    out = ""
    if signed_in and csrf:
        out = html(
            '<form action="/ui/logout" method="post" class="logout"><input type="hidden" name="csrf" '
            'value="{csrf}"><button type="submit">Sign out</button></form>',
            csrf=csrf,
        )
    return html(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<meta name=\"htmx-config\" content='{config}'><title>{title} · memscribe</title>"
        '<link rel="icon" href="/ui/static/favicon.svg" type="image/svg+xml">'
        '<link rel="stylesheet" href="/ui/static/ui.css"><script src="/ui/static/htmx.min.js" defer></script>'
        '<script src="/ui/static/ui.js" defer></script></head><body>'
        '<a class="skip" href="#main">Skip to content</a><header><a class="brand" href="{home}">memscribe</a>'
        '<nav aria-label="Main"><ul>{nav}</ul></nav>{search}{out}</header>'
        '<main id="main" tabindex="-1">{flash}<h1>{title}</h1>{body}</main></body></html>',
        config=Markup(escape(_HTMX_CONFIG, quote=False)),
        title=title,
        home=url("/ui/", user=user),
        nav=nav if signed_in else [],
        search=search if signed_in else "",
        out=out,
        flash=html('<p class="flash" role="status">{f}</p>', f=flash) if flash else "",
        body=body,
    )


def table(headers: Iterable[str], rows: Iterable[Iterable[Any]], *, caption: str = "") -> Markup:
    """A table; cells are escaped unless Markup."""
    head = join(html("<th scope='col'>{h}</th>", h=h) for h in headers)
    body = join(html("<tr>{cells}</tr>", cells=[html("<td>{c}</td>", c=c) for c in row]) for row in rows)
    cap = html("<caption>{c}</caption>", c=caption) if caption else ""
    return html(
        "<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>", cap=cap, head=head, body=body
    )


def hidden(fields: Mapping[str, Any]) -> Markup:
    return join(html('<input type="hidden" name="{k}" value="{v}">', k=k, v=v) for k, v in fields.items() if v)
