"""A bounded load test for the REST server: N concurrent clients mix adds and searches on loopback for a
fixed time, then every acknowledged add is read back.

    python -m memscribe.bench.load --spawn --clients 8 --seconds 10        # its own server, temp store
    python -m memscribe.bench.load --url http://127.0.0.1:8765 --key msk_...

Reports throughput, p50/p95/p99 per operation, errors by kind, and how many acknowledged adds are present
afterwards (all of them, or the run fails). Not part of the default test suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from memscribe.client import AsyncMemoryClient

__all__ = ["LoadResult", "run_load", "spawned_server"]

MAX_CLIENTS = 256
MAX_SECONDS = 600


@dataclass
class LoadResult:
    """What one run measured."""

    seconds: float
    clients: int
    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: {"add": [], "search": []})
    errors: Counter[str] = field(default_factory=Counter)
    acknowledged: list[tuple[str, str, str]] = field(default_factory=list)  # (user, memory id, marker)
    missing: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        done = sum(len(v) for v in self.latencies_ms.values())
        return {
            "seconds": round(self.seconds, 2),
            "clients": self.clients,
            "requests_ok": done,
            "throughput_rps": round(done / self.seconds, 1) if self.seconds else 0.0,
            "latency_ms": {op: _percentiles(values) for op, values in self.latencies_ms.items()},
            "errors": dict(self.errors),
            "acknowledged_adds": len(self.acknowledged),
            "missing_after_run": len(self.missing),
        }


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, max(0, int(q / 100 * len(ordered) + 0.999999) - 1))], 2)

    return {"count": len(ordered), "p50": at(50), "p95": at(95), "p99": at(99)}


async def _worker(
    n: int, client: AsyncMemoryClient, deadline: float, add_ratio: float, result: LoadResult
) -> None:
    rng = random.Random(n)
    users = [f"load-user-{i}" for i in range(16)]
    while time.monotonic() < deadline:
        user = rng.choice(users)
        started = time.perf_counter()
        try:
            if rng.random() < add_ratio:
                marker = f"m{uuid.uuid4().hex[:12]}"
                out = await client.add(
                    f"load fact {n} about topic {rng.randint(0, 50)} {marker}", user_id=user
                )
                result.latencies_ms["add"].append((time.perf_counter() - started) * 1000)
                result.acknowledged += [
                    (user, r["id"], marker) for r in out["results"] if r["event"] == "ADD"
                ]
            else:
                await client.search(f"topic {rng.randint(0, 50)}", user_id=user, limit=5)
                result.latencies_ms["search"].append((time.perf_counter() - started) * 1000)
        except Exception as exc:  # counted, not raised: the run measures failures too
            result.errors[type(exc).__name__] += 1


async def _verify(url: str, key: str | None, result: LoadResult) -> None:
    gate = asyncio.Semaphore(16)

    async def check(client: AsyncMemoryClient, user: str, memory_id: str, marker: str) -> None:
        async with gate:
            try:
                found = await client.get(memory_id, user_id=user)
                if marker not in found["memory"]:
                    result.missing.append(memory_id)
            except Exception:
                result.missing.append(memory_id)

    async with AsyncMemoryClient(url, key, timeout=60) as client:
        await asyncio.gather(*(check(client, *ack) for ack in result.acknowledged))


async def run_load(
    url: str, key: str | None, *, clients: int = 8, seconds: float = 10.0, add_ratio: float = 0.3
) -> LoadResult:
    """Drive the server at ``url`` and verify afterwards; bounded by MAX_CLIENTS and MAX_SECONDS."""
    clients = max(1, min(clients, MAX_CLIENTS))
    seconds = max(0.5, min(seconds, MAX_SECONDS))
    result = LoadResult(seconds=seconds, clients=clients)
    pool = [AsyncMemoryClient(url, key, timeout=30) for _ in range(clients)]
    started = time.monotonic()
    try:
        deadline = started + seconds
        await asyncio.gather(*(_worker(i, c, deadline, add_ratio, result) for i, c in enumerate(pool)))
    finally:
        for c in pool:
            await c.aclose()
    result.seconds = time.monotonic() - started
    await _verify(url, key, result)
    return result


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def spawned_server(store: Path, *, embedder: str = "hash", writer: str = "raw") -> Iterator[str]:
    """A no-auth server on a free loopback port, in a thread, for the length of the block; yields its URL."""
    import uvicorn

    from memscribe.server.app import create_app
    from memscribe.server.settings import ServerSettings

    port = _free_port()
    app = create_app(
        ServerSettings(store_path=store, port=port, no_auth=True, embedder=embedder, writer=writer)
    )
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    )
    thread = threading.Thread(target=server.run, name="memscribe-load-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the load-test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@click.command("load")
@click.option("--url", default=None, help="Server to load (default: --spawn one).")
@click.option("--key", default=None, help="Tenant API key for --url.")
@click.option("--spawn", is_flag=True, help="Start a no-auth server on a temp store for the run.")
@click.option("--embedder", default="hash", show_default=True, help="Embedder of a spawned server.")
@click.option("--clients", default=8, show_default=True, type=click.IntRange(1, MAX_CLIENTS))
@click.option("--seconds", default=10.0, show_default=True, type=click.FloatRange(0.5, MAX_SECONDS))
@click.option("--add-ratio", default=0.3, show_default=True, type=click.FloatRange(0.0, 1.0))
def main(
    url: str | None,
    key: str | None,
    spawn: bool,
    embedder: str,
    clients: int,
    seconds: float,
    add_ratio: float,
) -> None:
    """Load the REST server with mixed adds and searches; print a JSON summary."""
    if url is None and not spawn:
        raise click.UsageError("pass --url (and --key) or --spawn")
    with contextlib.ExitStack() as stack:
        if url is None:
            store = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "load.db"
            url = stack.enter_context(spawned_server(store, embedder=embedder))
        result = asyncio.run(run_load(url, key, clients=clients, seconds=seconds, add_ratio=add_ratio))
    click.echo(json.dumps(result.summary(), indent=2))
    if result.missing:
        raise SystemExit(f"{len(result.missing)} acknowledged adds are missing")


if __name__ == "__main__":
    main()
