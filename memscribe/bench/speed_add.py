"""Add throughput into a store that already holds N memories: one message per public ``Memory.add``.

The store is filled once, straight through the store (as the search benchmark does), and copied for each
writer so every writer starts from the same N memories. Then each writer ingests the same user turns, one
``add()`` per turn, with the benchmark's embedder. Reported per writer: adds/s, add p50/p95, and the CPU time
per add (all threads of the process), which moves less than wall time when other work shares the cores.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.bench import speed_data
from memscribe.bench.speed_probe import percentile
from memscribe.stores.embedding import DeferredVectors

if TYPE_CHECKING:
    from memscribe.bench.speed import SpeedParams

__all__ = ["measure_add_at", "user_turns"]


def user_turns(count: int, seed: int) -> list[str]:
    """``count`` user messages of the generated conversation, one per add."""
    turns: list[str] = []
    for episode in speed_data.conversation(count * 3, seed=seed):
        turns += [m["content"] for m in episode if m["role"] == "user"]
    return turns[:count]


def _turns(p: SpeedParams) -> list[str]:
    return speed_data.data_turns(list(p.texts), p.adds) if p.texts else user_turns(p.adds, seed=p.seed + 3)


def _when(i: int) -> str:
    return f"2024-02-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"


def _one_writer(p: SpeedParams, path: Path, writer: str, wait: bool, turns: list[str], embedder: Any) -> dict[str, Any]:
    """Adds of ``turns`` into a copy of the filled store. Two rates: ``acked_adds_per_s``, adds returned per
    second of the add loop, and ``adds_per_s``, the sustained rate: the clock stops only once every memory added
    is written and searchable by vector (``flush``: episodes acknowledged with ``wait=False`` are written and
    vectors left to the indexer are computed), so it holds all the deferred work. ``drain_s`` is the time
    between the last add returning and that point. One-time costs (the model, the writer's rules:
    ``Memory.warm_up``) are paid before the clock starts and reported apart, as ``warm_up_ms``."""
    from memscribe.engine.memory import Memory

    with Memory(path, writer=writer, embedder=embedder) as memory:
        started = time.perf_counter()
        memory.warm_up()
        warm_ms = (time.perf_counter() - started) * 1000
        memory.search("warm up the index", user_id="bench")
        timings, cpu_start, wall_start = [], time.process_time(), time.perf_counter()
        for i, text in enumerate(turns):
            started = time.perf_counter()
            memory.add(text, user_id="bench", timestamp=_when(i), wait=wait)
            timings.append((time.perf_counter() - started) * 1000)
        acked = time.perf_counter() - wall_start
        memory.flush()
        wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
        stored = memory.stats(user_id="bench")["pending_episodes"]
        store = memory._core.store
        left = store.unembedded(limit=1_000_000) if isinstance(store, DeferredVectors) else []
    return {
        "writer": writer if wait else f"{writer}, wait=False", "memories": p.add_at, "adds": len(turns),
        "embedder": embedder.model_id, "adds_per_s": round(len(turns) / wall, 1),
        "acked_adds_per_s": round(len(turns) / acked, 1), "drain_s": round(wall - acked, 2),
        "unembedded_after": len(left),
        "add_p50_ms": round(percentile(timings, 50), 2), "add_p95_ms": round(percentile(timings, 95), 2),
        "warm_up_ms": round(warm_ms, 1), "cpu_ms_per_add": round(1000 * cpu / len(turns), 2), "pending_after": stored,
        "texts": ", ".join(p.texts) or "generated", "loadavg": round(os.getloadavg()[0], 2),
    }  # fmt: skip


def measure_add_at(p: SpeedParams, workdir: str) -> dict[str, Any]:
    """``{"rows": [...], "peers": [...]}``: one row per writer in ``p.add_writers`` (and per writer with
    ``wait=False`` when ``p.deferred``), then one per peer. Runs in its own process (``speed.run_speed``)."""
    from memscribe.bench.speed import _insert, _stderr_log
    from memscribe.providers.registry import make_embedder
    from memscribe.stores.sqlite import SQLiteStore

    base = Path(workdir) / "add-at" / "base.db"
    base.parent.mkdir(parents=True, exist_ok=True)
    embedder = make_embedder(p.embedder)
    embedder.embed(["warm up the model"])
    store = SQLiteStore(base)
    filled = _insert(store, embedder, p.add_at, p, _stderr_log)
    store.close()  # checkpoints the WAL, so the copies below are whole
    turns = _turns(p)
    rows = []
    for writer in p.add_writers:
        for wait in (True, False) if p.deferred else (True,):
            path = base.with_name(f"{writer}-{wait}.db")
            shutil.copyfile(base, path)
            rows.append(_one_writer(p, path, writer, wait, turns, embedder) | {"vectors": filled["vectors"]})
            _stderr_log(f"  {rows[-1]['writer']}: {rows[-1]['adds_per_s']} adds/s at {p.add_at:,} memories")
    peers = []
    if p.peers:
        from memscribe.bench.speed_peers import measure_peers

        fills = dict(p.peer_fill)
        fill = {name: fills.get(name, fills.get("*", p.add_at)) for name, _ in p.peers}
        queries = speed_data.questions(min(p.queries, 100), seed=p.seed + 1)
        peers = measure_peers(dict(p.peers), embedder, base.parent, fill=fill, turns=turns, queries=queries)
        for row in peers:
            _stderr_log(f"  peer {row['peer']}: {row.get('adds_per_s', row.get('error'))}")
    shutil.rmtree(base.parent, ignore_errors=True)
    return {"rows": rows, "peers": peers}
