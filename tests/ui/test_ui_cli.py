"""``memscribe ui``: starts the server when none answers, and only points at it when one does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from tests._server_support import child_env, serve


def test_ui_starts_the_server_then_reuses_it(tmp_path: Path) -> None:
    home = tmp_path / "ms"
    with serve(["memscribe", "ui", "--no-open", "--no-auth"], home, "/healthz") as served:
        page = httpx.get(served.url + "/ui/", timeout=10)
        assert page.status_code == 200 and "<h1>Overview</h1>" in page.text
        port = served.url.rsplit(":", 1)[1]
        again = subprocess.run(
            [sys.executable, "-m", "memscribe", "ui", "--no-open", "--port", port],
            env=child_env(home),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert again.returncode == 0, again.stderr
        assert f"{served.url}/ui/" in again.stdout and "already running" in again.stdout
    assert f"memscribe UI: {served.url}/ui/" in served.log.read_text()
