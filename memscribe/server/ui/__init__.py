"""The web UI, served by ``memscribe serve`` under ``/ui`` (``memscribe ui`` opens it).

Server-rendered HTML (every value escaped, see :mod:`.markup`) with htmx vendored under ``static/`` for the
live search; no CDN, and a Content-Security-Policy that allows scripts and styles from ``/ui/static`` only.
It takes the REST server's API keys (a header, or a sign-in form and an HttpOnly, SameSite=Strict session
cookie), checks a CSRF token on every form, and answers loopback clients unless the server is bound wider.
"""

from __future__ import annotations

from fastapi import FastAPI

from memscribe.server.ui.access import Sessions

__all__ = ["mount_ui"]


def mount_ui(app: FastAPI) -> None:
    """Add the UI's routes to ``app`` (a :func:`memscribe.server.app.create_app` application)."""
    from memscribe.server.ui import actions, pages

    app.state.memscribe_ui = Sessions()
    app.include_router(pages.router)
    app.include_router(actions.router)
