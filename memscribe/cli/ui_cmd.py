"""``memscribe ui``: open the web UI, starting ``memscribe serve`` first when nothing answers on the port.

It takes every ``serve`` option (the UI uses the same API keys; ``--no-auth`` serves one tenant on loopback),
plus ``--no-open`` to print the address without starting a browser.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
import webbrowser
from typing import Any

import click

from memscribe.server.cli import serve

__all__ = ["ui_cmd"]


def _answering(base: str, timeout: float = 0.5) -> bool:
    """True when a memscribe server answers at ``base`` (its open health route)."""
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=timeout) as reply:
            return bool(json.loads(reply.read()).get("status") == "ok")
    except (OSError, ValueError):
        return False


def _announce_when_up(base: str, open_browser: bool, limit_s: float = 60.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if _answering(base):
            click.echo(f"memscribe UI: {base}/ui/", err=True)
            if open_browser:
                webbrowser.open(f"{base}/ui/")
            return
        time.sleep(0.2)


def _run(ctx: click.Context, no_open: bool, **options: Any) -> None:
    host = str(options["host"])
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{options['port']}"
    if _answering(base):
        click.echo(f"memscribe UI (server already running): {base}/ui/")
        if not no_open:
            webbrowser.open(f"{base}/ui/")
        return
    threading.Thread(target=_announce_when_up, args=(base, not no_open), daemon=True).start()
    ctx.invoke(serve, **options)


ui_cmd = click.Command(
    "ui",
    params=[*serve.params, click.Option(["--no-open"], is_flag=True, help="Print the UI's address; open no browser.")],
    callback=click.pass_context(_run),
    help="Open the web UI (search, version chains, timelines, forget); starts the server when none answers.",
)
