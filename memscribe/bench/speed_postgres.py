"""PostgreSQL beside the embedded default: search p50/p95 and add throughput, one store after the other,
through the same code paths as ``memscribe bench speed`` (its inserts, queries and timers).

The PostgreSQL server is the caller's: ``--postgres-url`` (or ``$MEMSCRIBE_BENCH_POSTGRES_URL``) names a
database whose role may create databases (each measurement gets a fresh one, copied from it, so the
``vector`` and ``unaccent`` extensions it holds come along). ``postgres_store`` is also the factory the
pluggable ``--store`` list of ``bench speed`` registers as ``postgres``.

    python -m memscribe.bench.speed_postgres --sizes 100000 --postgres-url postgresql://memscribe@127.0.0.1/memscribe
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from memscribe.bench import speed, speed_data
from memscribe.bench.speed_probe import PrecomputedQueries, stage_timings

__all__ = ["ENV", "measure", "postgres_store"]

ENV = "MEMSCRIBE_BENCH_POSTGRES_URL"


def postgres_store(directory: Path, url: str | None = None) -> Any:
    """A PostgresStore in a database named after ``directory`` (created on first use from ``url``'s)."""
    import psycopg

    from memscribe.errors import ConfigError
    from memscribe.stores.postgres import PostgresStore

    base = url or os.environ.get(ENV)
    if not base:
        raise ConfigError(f"the postgres bench store needs a server: set {ENV}=postgresql://user@host/db")
    name = "speed_" + hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
    template = base.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(base, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return PostgresStore(base.rsplit("/", 1)[0] + "/" + name)


def _open(kind: str, directory: Path, url: str | None) -> Any:
    if kind == "postgres":
        return postgres_store(directory, url)
    from memscribe.stores.sqlite import SQLiteStore

    return SQLiteStore(directory / "memscribe.db")


def measure_search(kind: str, n: int, p: speed.SpeedParams, workdir: str, url: str | None) -> dict[str, Any]:
    from memscribe.engine.memory import Memory
    from memscribe.providers.registry import make_embedder

    directory = Path(tempfile.mkdtemp(prefix=f"speed-{kind}-{n}-", dir=workdir))
    embedder = make_embedder(p.embedder)
    queries = speed_data.questions(p.queries, seed=p.seed + 1)
    wrapped = PrecomputedQueries(embedder, queries)
    store = _open(kind, directory, url)
    row: dict[str, Any] = {"store": kind, "n": n, **speed._insert(store, embedder, n, p, speed._stderr_log)}
    memory = Memory(store=store, embedder=wrapped, writer="raw")
    started = time.perf_counter()
    memory.search(queries[0], user_id=speed.USER)
    row["first_search_ms"] = round((time.perf_counter() - started) * 1000, 1)
    speed._timed_searches(memory, queries)  # warm caches equally for both passes below
    wrapped.precomputed = False
    row |= speed._summary("search", speed._timed_searches(memory, queries))
    wrapped.precomputed = True
    row |= speed._summary("search_no_embed", speed._timed_searches(memory, queries))
    row |= stage_timings(store, wrapped, queries, speed.USER)
    row["store_mb"] = round(store.stats()["bytes"] / 2**20, 1) if kind == "postgres" else None
    memory.close()
    return row


def measure_add(kind: str, p: speed.SpeedParams, workdir: str, url: str | None) -> dict[str, Any]:
    """Turns per second through Memory.add (embedding included), one episode per call."""
    from memscribe.engine.memory import Memory
    from memscribe.providers.registry import make_embedder

    embedder = make_embedder(p.embedder)
    embedder.embed(["warm up the model"])
    episodes = list(speed_data.conversation(p.turns, seed=p.seed))
    store = _open(kind, Path(tempfile.mkdtemp(prefix=f"add-{kind}-", dir=workdir)), url)
    timings = []
    with Memory(store=store, writer=p.writer, embedder=embedder) as memory:
        for i, messages in enumerate(episodes):
            started = time.perf_counter()
            memory.add(messages, user_id=speed.USER, timestamp=f"2024-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z")
            timings.append((time.perf_counter() - started) * 1000)
    total_s = sum(timings) / 1000
    return {"store": kind, "writer": p.writer, "turns": p.turns, "turns_per_s": round(p.turns / total_s, 1),
            **speed._summary("add", timings)}  # fmt: skip


def measure(p: speed.SpeedParams, url: str, kinds: tuple[str, ...] = ("sqlite", "postgres")) -> dict[str, Any]:
    """Add throughput and search latency at each size, per store, each in a fresh process."""
    meta = {"sizes": p.sizes, "embedder": p.embedder, "writer": p.writer, "queries": p.queries, "cpus": os.cpu_count()}
    report: dict[str, Any] = {"meta": meta, "add": [], "search": []}
    with tempfile.TemporaryDirectory(prefix="memscribe-speed-pg-") as tmp:
        for kind in kinds:
            speed._stderr_log(f"add throughput: {kind}")
            report["add"].append(speed._in_fresh_process(measure_add, kind, p, tmp, url))
        for n in p.sizes:
            for kind in kinds:
                speed._stderr_log(f"search at {n:,}: {kind}")
                row = speed._in_fresh_process(measure_search, kind, n, p, tmp, url)
                speed._stderr_log(f"  {kind} n={n}: search p50 {row['search_p50_ms']} ms p95 {row['search_p95_ms']}")
                report["search"].append(row)
    return report


@click.command()
@click.option("--sizes", default="10000,100000", show_default=True, help="Store sizes, comma-separated.")
@click.option("--postgres-url", default=None, help=f"A database the bench may copy (default: ${ENV}).")
@click.option("--queries", default=200, show_default=True)
@click.option("--turns", default=300, show_default=True, help="Turns added one episode at a time.")
@click.option("--writer", default="lite", show_default=True)
@click.option("--embedder", default="local", show_default=True)
@click.option("--output", type=click.Path(dir_okay=False), default=None, help="Write the report as JSON here.")
def main(sizes: str, postgres_url: str | None, queries: int, turns: int, writer: str, embedder: str,
         output: str | None) -> None:  # fmt: skip
    """Search latency and add throughput, SQLite beside PostgreSQL."""
    url = postgres_url or os.environ.get(ENV)
    if not url:
        raise click.UsageError(f"give --postgres-url or set {ENV}")
    params = speed.SpeedParams(sizes=tuple(int(s) for s in sizes.split(",")), queries=queries, turns=turns,
                               writer=writer, embedder=embedder)  # fmt: skip
    report = measure(params, url)
    text = json.dumps(report, indent=2)
    if output:
        Path(output).write_text(text)
    print(text, file=sys.stdout)


if __name__ == "__main__":
    main()
