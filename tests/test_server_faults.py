"""Faults through the server: a kill -9 during a burst of adds, and a disk that fills up."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import httpx
import pytest
from _server_support import serve

from memscribe import Memory

pytestmark = pytest.mark.slow

ARGS = ["memscribe.server", "serve", "--no-auth"]


def _burst(url: str, acked: list[str], stop: threading.Event, worker: int) -> None:
    with httpx.Client(base_url=url, timeout=10.0) as client:
        for i in range(10_000):
            if stop.is_set():
                return
            text = f"worker {worker} note {i} about the harbour"
            try:
                r = client.post("/v1/memories", json={"messages": text, "user_id": "u", "wait": i % 2 == 0})
            except httpx.TransportError:
                return  # the server died mid-request: this add was never acknowledged
            if r.status_code == 200:
                acked.append(text)


def test_server_killed_during_a_burst_loses_no_acknowledged_add(tmp_path: Path) -> None:
    home = tmp_path / "home"
    acked: list[str] = []
    stop = threading.Event()
    with serve(ARGS, home, "/healthz") as served:
        threads = [threading.Thread(target=_burst, args=(served.url, acked, stop, w)) for w in range(4)]
        for t in threads:
            t.start()
        while len(acked) < 150:
            threading.Event().wait(0.05)
        os.kill(served.proc.pid, signal.SIGKILL)  # mid-burst, no shutdown hook runs
        served.proc.wait()
        stop.set()
        for t in threads:
            t.join()
    with serve(ARGS, home, "/healthz") as restarted:  # a restart processes what was pending
        listed = httpx.get(f"{restarted.url}/v1/memories", params={"user_id": "u", "limit": 1000}, timeout=30)
        assert listed.status_code == 200
    m = Memory(home / "memscribe.db", writer="raw", embedder="hash")
    m.process_pending()
    stored = {r["memory"] for r in m.list(user_id="u", limit=1000)["results"]}
    assert len(acked) >= 150 and set(acked) <= stored
    assert m.stats()["pending_episodes"] == 0 and m._core.store.check() == []
    m.close()


def test_a_full_disk_gives_a_clear_error_and_keeps_what_was_stored(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with serve(ARGS, home, "/healthz") as served:
        # From now on the server may not grow any file past 2 MiB: writes beyond fail as on a full disk
        # (CPython ignores SIGXFSZ, so the write returns EFBIG instead of killing the process).
        subprocess.run(["prlimit", "--pid", str(served.proc.pid), f"--fsize={2 * 1024 * 1024}"], check=True)
        acked, failure = [], None
        with httpx.Client(base_url=served.url, timeout=30.0) as client:
            for i in range(2000):
                text = f"filler {i} " + "lorem ipsum dolor " * 30
                r = client.post("/v1/memories", json={"messages": text, "user_id": "u"})
                if r.status_code == 200:
                    acked.append(text.strip())
                    continue
                failure = r
                break
        assert failure is not None, "the size limit never bit"
        assert failure.status_code in (500, 507) and "error" in failure.json()
        assert "store" in failure.json()["error"]["message"].lower()
        assert httpx.get(f"{served.url}/healthz", timeout=5).status_code == 200  # still serving
    m = Memory(home / "memscribe.db", writer="raw", embedder="hash")
    assert m._core.store.check() == []
    assert set(acked) <= {r["memory"] for r in m.list(user_id="u", limit=1000)["results"]}
    m.close()
