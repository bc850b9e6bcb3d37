"""Add throughput into a store that already holds N memories: one message per public ``Memory.add``.

The store is filled once, straight through the store (as the search benchmark does), and copied for each
writer so every writer starts from the same N memories. Then each writer ingests the same user turns, one
``add()`` per turn, with the benchmark's embedder. Reported per writer: adds/s, add p50/p95, and the CPU time
per add (all threads of the process), which moves less than wall time when other work shares the cores.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.bench import speed_data
from memscribe.bench.speed_probe import percentile

if TYPE_CHECKING:
    from memscribe.bench.speed import SpeedParams

__all__ = ["measure_add_at", "user_turns"]


def user_turns(count: int, seed: int) -> list[str]:
    """``count`` user messages of the generated conversation, one per add."""
    turns: list[str] = []
    for episode in speed_data.conversation(count * 3, seed=seed):
        turns += [m["content"] for m in episode if m["role"] == "user"]
    return turns[:count]


def measure_add_at(p: SpeedParams, workdir: str) -> dict[str, Any]:
    """``{"rows": [...]}``, one per writer in ``p.add_writers``. Runs in its own process (``speed.run_speed``)."""
    from memscribe.bench.speed import _insert, _stderr_log
    from memscribe.engine.memory import Memory
    from memscribe.providers.registry import make_embedder
    from memscribe.stores.sqlite import SQLiteStore

    base = Path(workdir) / "add-at" / "base.db"
    base.parent.mkdir(parents=True, exist_ok=True)
    embedder = make_embedder(p.embedder)
    embedder.embed(["warm up the model"])
    store = SQLiteStore(base)
    filled = _insert(store, embedder, p.add_at, p, _stderr_log)
    store.close()  # checkpoints the WAL, so the copies below are whole
    turns = user_turns(p.adds, seed=p.seed + 3)
    rows = []
    for writer in p.add_writers:
        path = base.with_name(f"{writer}.db")
        shutil.copyfile(base, path)
        with Memory(path, writer=writer, embedder=embedder) as memory:
            memory.search("warm up the index", user_id="bench")
            timings, cpu_start = [], time.process_time()
            for i, text in enumerate(turns):
                started = time.perf_counter()
                memory.add(text, user_id="bench", timestamp=f"2024-02-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:"
                           f"{i % 60:02d}Z")  # fmt: skip
                timings.append((time.perf_counter() - started) * 1000)
            cpu = time.process_time() - cpu_start
        total_s = sum(timings) / 1000
        rows.append({
            "writer": writer, "memories": p.add_at, "adds": len(turns), "embedder": embedder.model_id,
            "adds_per_s": round(len(turns) / total_s, 1), "add_p50_ms": round(percentile(timings, 50), 2),
            "add_p95_ms": round(percentile(timings, 95), 2), "cpu_ms_per_add": round(1000 * cpu / len(turns), 2),
            "vectors": filled["vectors"],
        })  # fmt: skip
        _stderr_log(f"  {writer}: {rows[-1]['adds_per_s']} adds/s at {p.add_at:,} memories")
    shutil.rmtree(base.parent, ignore_errors=True)
    return {"rows": rows}
