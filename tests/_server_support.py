"""Helpers shared by the server, client, MCP and isolation tests (loopback only, hash embedder)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

ADMIN_KEY = "admin-key-for-tests-0123456789"
SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"  # matches the redactor's OpenAI key pattern


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def child_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment for a server subprocess: hash embedder, store under ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSCRIBE_")}
    env.update({"MEMSCRIBE_HOME": str(home), "MEMSCRIBE_EMBEDDER": "hash", "MEMSCRIBE_WRITER": "raw", **extra})
    return env


def wait_until_up(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with {proc.returncode}: {log.read_text()[-2000:]}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url, timeout=1.0).status_code < 500:
                return
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not come up")


@dataclass
class Served:
    url: str
    proc: subprocess.Popen[bytes]
    home: Path
    log: Path


@contextlib.contextmanager
def serve(args: list[str], home: Path, health_path: str, **env: str) -> Iterator[Served]:
    """Run ``python -m <args...>`` (which must bind ``--port``) and stop it afterwards."""
    port = free_port()
    home.mkdir(parents=True, exist_ok=True)
    log = home / f"server-{port}.log"  # a file, not a pipe: a full pipe would stall the server
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", *args, "--port", str(port)],
            env=child_env(home, **env),
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url + health_path, proc, log)
        yield Served(url=url, proc=proc, home=home, log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
