"""``memscribe bench speed``: how fast memscribe is on this machine, measured through the real code paths.

- **import**: ``import memscribe`` (and ``import memscribe`` + the Memory class) in fresh interpreters.
- **add**: turns/s through ``Memory.add`` with the embedder (local MiniLM by default) and the chosen writer,
  on generated episodes of 2–4 messages.
- **search**: p50/p95 of ``Memory.search`` at N memories, with the query embedded by the model and with a
  precomputed query vector (the same read path; the embedder answers from a table). Memories are inserted
  straight through the store in large changesets: real embeddings of generated sentences up to
  ``--real-max``, beyond that synthetic unit vectors jittered around real embeddings (the report says which).
  Also: the p50 of each store call in a search (vector, keyword, fetching the records), the cold first search
  (builds the ANN index from SQLite), and, in a fresh process, the first search after a reopen (loads the
  saved index) with the resident memory it adds; and the sizes of the database and index files.
- **weight**: the size of site-packages and of the base install's own distributions.

With ``--store sqlite,qdrant,...`` the add and search measurements run once per store (``speed_stores``:
SQLite records with each vector index, or any registered backend), side by side in one report.

Each size runs in a fresh process so its memory figures start from a clean baseline.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import click

from memscribe.bench import speed_data
from memscribe.bench.speed_probe import PrecomputedQueries, percentile, rss_mb, stage_timings, venv_size
from memscribe.config import MemoryConfig

__all__ = ["SpeedParams", "command", "run_speed"]

USER = "bench"


@dataclass(frozen=True)
class SpeedParams:
    """What to measure. ``real_max``: the largest size whose vectors are real embeddings; ``users``: how many
    users the memories are dealt to, round robin (searches ask as the first, who holds ``n / users``)."""

    sizes: tuple[int, ...] = (10_000, 100_000)
    queries: int = 200
    turns: int = 500
    writer: str = field(default_factory=lambda: MemoryConfig().writer)
    embedder: str = "local"
    real_max: int = 10_000
    batch: int = 5_000
    import_runs: int = 5
    seed: int = 0
    users: int = 1
    add_at: int = 10_000  # one-message adds into a store of this many memories (0: skip)
    adds: int = 400
    add_writers: tuple[str, ...] = ("raw", "lite")
    stores: tuple[str, ...] = ("sqlite",)  # names in memscribe.bench.speed_stores.STORES
    texts: tuple[str, ...] = ()  # turn sources for the one-message adds (locomo:PATH, natural:PATH); () generated
    deferred: bool = True  # also measure each add writer with wait=False (drained before the clock stops)
    peers: tuple[tuple[str, str], ...] = ()  # (peer name, its venv's python), see memscribe.bench.speed_peers
    peer_fill: tuple[tuple[str, int], ...] = ()  # (peer name or "*", memories it holds before its adds); add_at


def measure_import(runs: int) -> dict[str, Any]:
    """Median over ``runs`` fresh interpreters of ``import memscribe``, and of that plus the Memory class."""
    code = (
        "import time; t0 = time.perf_counter(); import memscribe; t1 = time.perf_counter(); "
        "memscribe.Memory; t2 = time.perf_counter(); print((t1 - t0) * 1000, (t2 - t0) * 1000)"
    )
    plain, with_memory = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        first, second = (float(x) for x in out.split())
        plain.append(first)
        with_memory.append(second)
    return {"runs": runs, "import_ms": round(statistics.median(plain), 1),
            "import_with_memory_ms": round(statistics.median(with_memory), 1)}  # fmt: skip


def measure_add(p: SpeedParams, workdir: Path, store: str = "sqlite") -> dict[str, Any]:
    """Turns per second through Memory.add, embedding included (model load excluded, reported apart)."""
    from memscribe.bench.speed_stores import open_store
    from memscribe.engine.memory import Memory
    from memscribe.providers.registry import make_embedder

    embedder = make_embedder(p.embedder)
    started = time.perf_counter()
    embedder.embed(["warm up the model"])
    load_ms = (time.perf_counter() - started) * 1000
    episodes = list(speed_data.conversation(p.turns, seed=p.seed))
    timings = []
    with Memory(store=open_store(store, workdir / f"add-{store}"), writer=p.writer, embedder=embedder) as memory:
        for i, messages in enumerate(episodes):
            started = time.perf_counter()
            memory.add(messages, user_id=USER, timestamp=f"2024-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z")
            timings.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        memory.flush()  # vectors left to the background indexer count: the rate is of searchable turns
        drain_s = time.perf_counter() - started
    total_s = sum(timings) / 1000 + drain_s
    return {
        "store": store, "writer": p.writer, "embedder": embedder.model_id, "turns": p.turns, "episodes": len(episodes),
        "turns_per_s": round(p.turns / total_s, 1), "add_p50_ms": round(percentile(timings, 50), 2),
        "add_p95_ms": round(percentile(timings, 95), 2), "model_load_ms": round(load_ms, 1),
        "drain_s": round(drain_s, 2),
    }  # fmt: skip


def _insert(store: Any, embedder: Any, n: int, p: SpeedParams, log: Callable[[str], None]) -> dict[str, Any]:
    """Insert ``n`` memories straight through the store, ``p.batch`` per changeset."""
    from memscribe.bench.speed_probe import make_records

    real = n <= p.real_max
    texts = speed_data.memory_texts(n, seed=p.seed)
    pool = (
        None
        if real
        else speed_data.embed_in_batches(embedder, speed_data.memory_texts(2_000, seed=p.seed + 7))
    )
    embed_s = insert_s = 0.0
    for start in range(0, n, p.batch):
        chunk = texts[start : start + p.batch]
        started = time.perf_counter()
        if pool is None:
            vectors = speed_data.embed_in_batches(embedder, chunk)
        else:
            vectors = speed_data.jittered(pool, len(chunk), seed=p.seed + start)
        embed_s += time.perf_counter() - started
        started = time.perf_counter()
        for first in range(min(p.users, len(chunk))):
            # Memory i goes to user i % users, round robin; user 0 is the one searched.
            k = (start + first) % p.users
            user = USER if k == 0 else f"{USER}-{k}"
            store.apply(make_records(chunk[first :: p.users], vectors[first :: p.users], embedder.model_id, user))
        insert_s += time.perf_counter() - started
        log(f"  n={n}: inserted {start + len(chunk):,}")
    kind = (
        "real embeddings of generated sentences"
        if real
        else ("synthetic: unit vectors jittered around real embeddings of 2,000 generated sentences")
    )
    if p.users > 1:
        kind += f"; dealt to {p.users:,} users, the searched one holds {len(range(0, n, p.users)):,}"
    return {"vectors": kind, "embed_s": round(embed_s, 1), "insert_s": round(insert_s, 1),
            "insert_per_s": round(n / insert_s) if insert_s else None}  # fmt: skip


def _timed_searches(memory: Any, queries: list[str]) -> list[float]:
    timings = []
    for query in queries:
        started = time.perf_counter()
        memory.search(query, user_id=USER, limit=10)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def _summary(prefix: str, timings: list[float]) -> dict[str, float]:
    return {f"{prefix}_p50_ms": round(percentile(timings, 50), 2),
            f"{prefix}_p95_ms": round(percentile(timings, 95), 2)}  # fmt: skip


def measure_search(n: int, p: SpeedParams, workdir: str, store_name: str = "sqlite") -> dict[str, Any]:
    """Search latency at ``n`` memories in store ``store_name``. Runs in its own process (see run_speed)."""
    from memscribe.bench.speed_stores import open_store
    from memscribe.engine.memory import Memory
    from memscribe.providers.registry import make_embedder

    (Path(workdir) / "stores").mkdir(exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=f"speed-{store_name}-{n}-", dir=Path(workdir) / "stores"))
    embedder = make_embedder(p.embedder)
    queries = speed_data.questions(p.queries, seed=p.seed + 1)
    wrapped = PrecomputedQueries(embedder, queries)
    store = open_store(store_name, path)
    row: dict[str, Any] = {"n": n, "store": store_name, "path": str(path)}
    row |= _insert(store, embedder, n, p, _stderr_log)
    memory = Memory(store=store, embedder=wrapped, writer="raw")
    started = time.perf_counter()
    memory.search(queries[0], user_id=USER)  # cold: the ANN index is built from SQLite here
    row["first_search_ms"] = round((time.perf_counter() - started) * 1000, 1)
    _timed_searches(memory, queries)  # warm SQLite's page cache equally for both passes below
    wrapped.precomputed = False
    row |= _summary("search", _timed_searches(memory, queries))
    wrapped.precomputed = True
    row |= _summary("search_no_embed", _timed_searches(memory, queries))
    row |= _summary("embed_only", [wrapped.time_model(q) for q in queries[:50]])
    row |= stage_timings(store, wrapped, queries, USER)
    if len(p.stores) > 1:  # side by side: adds into each filled store (after its searches, which see n)
        from memscribe.bench.speed_stores import adds_at_size

        row |= adds_at_size(store, wrapped, p)
    index_files = store.vectors.files() if hasattr(store, "vectors") else []
    memory.close()  # saves the index beside the database
    files = [f for f in path.glob("memscribe.db*") if f.is_file()]
    row["db_mb"] = round(sum(f.stat().st_size for f in files) / 2**20, 1)
    index_files = store.vectors.files() if hasattr(store, "vectors") else index_files
    row["index_file_mb"] = round(sum(f.stat().st_size for f in index_files if f.is_file()) / 2**20, 1)
    return row


def measure_reopen(path: str, p: SpeedParams, store_name: str = "sqlite") -> dict[str, Any]:
    """In a fresh process: the first search on a reopened store (loads the saved index) and the resident
    memory that opening the store and loading its index adds (modules and model are loaded beforehand)."""
    from memscribe.bench.speed_stores import open_store
    from memscribe.engine.memory import Memory
    from memscribe.providers.registry import make_embedder

    queries = speed_data.questions(2, seed=p.seed + 1)
    wrapped = PrecomputedQueries(make_embedder(p.embedder), queries)
    before = rss_mb()
    memory = Memory(store=open_store(store_name, Path(path)), embedder=wrapped, writer="raw")
    started = time.perf_counter()
    memory.search(queries[1], user_id=USER)
    elapsed = (time.perf_counter() - started) * 1000
    after = rss_mb()
    memory.close()
    rss = round(after - before, 1) if before is not None and after is not None else None
    return {"reopen_first_search_ms": round(elapsed, 1), "index_rss_mb": rss}


def _in_fresh_process(fn: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


def _stderr_log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_speed(
    p: SpeedParams, log: Callable[[str], None] = _stderr_log, workdir: str | None = None
) -> dict[str, Any]:
    """Every measurement; returns the report (also what ``--output`` writes)."""
    log("measuring import time")
    report: dict[str, Any] = {"meta": _meta(p), "import": measure_import(p.import_runs)}
    with tempfile.TemporaryDirectory(prefix="memscribe-speed-", dir=workdir) as tmp:
        report["add_by_store"] = {}
        for store in p.stores:
            log(f"measuring add throughput ({p.turns} turns, writer {p.writer}, store {store})")
            report["add_by_store"][store] = measure_add(p, Path(tmp), store)
        report["add"] = report["add_by_store"][p.stores[0]]
        if p.add_at:
            from memscribe.bench.speed_add import measure_add_at

            log(f"measuring one-message adds at {p.add_at:,} memories ({', '.join(p.add_writers)})")
            measured = _in_fresh_process(measure_add_at, p, tmp)
            report["add_at"], report["peers"] = measured["rows"], measured["peers"]
        report["search"] = []
        for n in p.sizes:
            for store in p.stores:
                log(f"measuring search at {n:,} memories, store {store}")
                row = _in_fresh_process(measure_search, n, p, tmp, store)
                row |= _in_fresh_process(measure_reopen, row.pop("path"), p, store)
                p50, bare = row["search_p50_ms"], row["search_no_embed_p50_ms"]
                log(f"  n={n} {store}: search p50 {p50} ms, {bare} ms without query embedding")
                report["search"].append(row)
                shutil.rmtree(Path(tmp) / "stores", ignore_errors=True)
    report["weight"] = venv_size()
    return report


def _meta(p: SpeedParams) -> dict[str, Any]:
    import importlib.metadata as md

    versions: dict[str, str | None] = {}
    for dist in ("memscribe", "numpy", "onnxruntime", "usearch", "tokenizers"):
        try:
            versions[dist] = md.version(dist)
        except md.PackageNotFoundError:
            versions[dist] = None
    # BLAS thread pools change small matrix products by 10-100x on a busy machine: record them.
    blas = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    return {
        "params": asdict(p), "versions": versions, "python": platform.python_version(),
        "machine": platform.machine(), "cpus": os.cpu_count(),
        "loadavg_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "threads_env": {name: os.environ[name] for name in blas if name in os.environ},
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }  # fmt: skip


def _parse_sizes(options: tuple[str, ...], extra: tuple[int, ...]) -> tuple[int, ...]:
    sizes = [int(part) for option in options for part in option.replace(",", " ").split()] + list(extra)
    if any(size < 1 for size in sizes):
        raise click.BadParameter("sizes must be positive", param_hint="--sizes")
    return tuple(sizes) or SpeedParams.sizes


def _parse_peers(options: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    from memscribe.bench.speed_peers import PEERS

    chosen = []
    for option in options:
        name, _, python = option.partition("=")
        if name not in PEERS or not python:
            raise click.BadParameter(f"{option!r}: use NAME=PYTHON with NAME one of {', '.join(PEERS)}",
                                     param_hint="--peer")  # fmt: skip
        chosen.append((name, python))
    return tuple(chosen)


def _parse_fill(options: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    chosen = []
    for option in options:
        name, _, count = option.rpartition("=")
        if not count.isdigit():
            raise click.BadParameter(f"{option!r}: use N or NAME=N", param_hint="--peer-fill")
        chosen.append((name or "*", int(count)))
    return tuple(chosen)


@click.command("speed")
@click.argument("extra_sizes", nargs=-1, type=int, metavar="[N]...")
@click.option(
    "--sizes",
    "sizes",
    multiple=True,
    metavar="N [N ...]",
    help="Store sizes for the search benchmark (default 10000 100000; 1000000 is optional).",
)
@click.option("--queries", default=200, show_default=True, help="Search queries per size.")
@click.option("--turns", default=500, show_default=True, help="Turns ingested for the add benchmark.")
@click.option(
    "--writer", default=MemoryConfig().writer, show_default=True, help="Writer for the add benchmark."
)
@click.option("--embedder", default="local", show_default=True, help="Embedder (hash only for smoke runs).")
@click.option(
    "--real-max",
    default=10_000,
    show_default=True,
    help="Largest size inserted with real embeddings; larger sizes use synthetic vectors.",
)
@click.option(
    "--users", default=1, show_default=True, type=click.IntRange(min=1),
    help="Deal the memories to this many users; searches ask as one of them.",
)
@click.option(
    "--add-at", default=10_000, show_default=True, type=click.IntRange(min=0),
    help="One-message adds into a store of this many memories (0 skips).",
)
@click.option("--adds", default=400, show_default=True, type=click.IntRange(min=1), help="Adds per writer there.")
@click.option("--add-writers", default="raw,lite", show_default=True, help="Writers for those adds, comma-separated.")
@click.option(
    "--texts", "texts", multiple=True, metavar="KIND:PATH",
    help="Real turns for those adds: locomo:locomo10.json, natural:dev.jsonl (repeatable; default generated).",
)
@click.option("--deferred/--no-deferred", default=True, show_default=True,
              help="Also time each add writer with wait=False, drained before the clock stops.")
@click.option(
    "--peer", "peers", multiple=True, metavar="NAME=PYTHON",
    help="A peer beside memscribe's adds: mem0=.cache/peers/mem0/bin/python, hy=.cache/peers/hy/bin/python.",
)
@click.option("--peer-fill", multiple=True, metavar="[NAME=]N",
              help="Memories a peer (or every peer) holds before its adds [default: --add-at].")
@click.option(
    "--store", "stores", default="sqlite", show_default=True,
    help="Stores to compare side by side, comma-separated: sqlite, postgres, qdrant, qdrant-memory, faiss, chroma "
    "(or registered ones). With more than one, each filled store also takes --adds one-message adds per writer.",
)
@click.option("--import-runs", default=5, show_default=True, help="Fresh interpreters for the import time.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path(".bench/speed.json"),
    show_default=True,
    help="Where to write the JSON report.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of tables.")
def command(
    extra_sizes: tuple[int, ...], sizes: tuple[str, ...], queries: int, turns: int, writer: str,
    embedder: str, real_max: int, users: int, add_at: int, adds: int, add_writers: str, texts: tuple[str, ...],
    deferred: bool, peers: tuple[str, ...], peer_fill: tuple[str, ...], stores: str, import_runs: int, output: Path,
    as_json: bool,
) -> None:  # fmt: skip
    """Measure import time, add throughput, search latency at N memories, index memory and install size."""
    from memscribe.bench.speed_report import render
    from memscribe.bench.speed_stores import parse_stores

    writers = tuple(w.strip() for w in add_writers.split(",") if w.strip())
    try:
        if texts:
            speed_data.data_turns(list(texts), 1)
    except (OSError, ValueError, KeyError) as exc:
        raise click.BadParameter(f"{exc}", param_hint="--texts") from None
    try:
        chosen = parse_stores(stores)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
    params = SpeedParams(sizes=_parse_sizes(sizes, extra_sizes), queries=queries, turns=turns, writer=writer,
                         embedder=embedder, real_max=real_max, import_runs=import_runs, users=users, add_at=add_at,
                         adds=adds, add_writers=writers, stores=chosen, texts=texts, deferred=deferred,
                         peers=_parse_peers(peers), peer_fill=_parse_fill(peer_fill))  # fmt: skip
    report = run_speed(params)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2))
    root = click.get_current_context().find_root().obj
    if as_json or getattr(root, "json", False):
        click.echo(json.dumps(report, indent=2))
    else:
        render(report)
        click.echo(f"wrote {output}")
