"""Benchmark of vector-index candidates for the per-partition ANN index (results in docs/vector-index.md).

Measures, for each candidate and size: build time, single-query search latency (p50/p95) at ``k``, the
resident memory the index adds, the saved file size and load time, the latency of adding one vector to a
built index, and recall@10 and recall@k against exact search over the same queries.

The data are ``random`` synthetic unit vectors (isotropic Gaussian, normalised: the hardest case for a
graph index, since no point has a clearly nearest neighbour), ``clustered`` synthetic vectors (scattered
around 1,000 topic centres) or ``text``: real MiniLM embeddings (LocalEmbedder) of sentences taken from the
docstrings of Python's standard library, with held-out sentences as queries. Every case runs in a fresh
process so that its memory is measured from a clean baseline.

    python -m memscribe.bench.vectors --sizes 10000 100000 --json .bench/vectors.json

hnswlib, faiss-cpu and sqlite-vec (the ``bench`` extra) are imported only by the cases that use them; a
candidate whose library is missing is reported as skipped.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import re
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, fields, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memscribe.stores.ann import NumpyIndex, USearchIndex

__all__ = ["CANDIDATES", "Params", "main", "run"]

CANDIDATES = (
    "numpy",
    "usearch-f32",
    "usearch-f16",
    "usearch-i8",
    "hnswlib",
    "faiss-flat",
    "faiss-hnsw",
    "sqlite-vec",
)
Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Params:
    """Settings shared by every case; the HNSW ones apply to usearch, hnswlib and faiss-hnsw alike."""

    dim: int = 384
    k: int = 40
    queries: int = 200
    data: str = "random"
    seed: int = 0
    threads: int = 2
    connectivity: int = 16
    expansion_add: int = 128
    expansion_search: int = 128
    single_adds: int = 100


def make_vectors(n: int, params: Params, *, seed_offset: int = 0) -> Matrix:
    """``n`` synthetic unit vectors; queries use another seed offset but the same topic centres."""
    rng = np.random.default_rng(params.seed + seed_offset)
    if params.data == "random":
        rows = rng.standard_normal((n, params.dim), dtype=np.float32)
    elif params.data == "clustered":
        centres = np.random.default_rng(params.seed + 999).standard_normal((1000, params.dim), dtype=np.float32)
        centres /= np.linalg.norm(centres, axis=1, keepdims=True)
        # Noise of norm ~1 around a unit centre: same-topic pairs sit near cosine 0.5, like related texts.
        rows = centres[rng.integers(0, len(centres), n)]
        rows += rng.standard_normal((n, params.dim), dtype=np.float32) / np.sqrt(params.dim)
    else:
        raise ValueError(f"synthetic data is 'random' or 'clustered', not {params.data!r}")
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def text_corpus(count: int) -> list[str]:
    """Up to ``count`` distinct sentences from the docstrings of the standard library and of the installed
    packages: real English prose that needs no download and is the same on every run in one environment."""
    sentences: dict[str, None] = {}
    skip = {"test", "tests", "site-packages", "idlelib"}
    roots = dict.fromkeys(Path(sysconfig.get_paths()[key]) for key in ("stdlib", "purelib"))
    paths = [
        path for root in roots for path in sorted(root.rglob("*.py")) if not skip & set(path.relative_to(root).parts)
    ]
    for path in paths:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = " ".join((ast.get_docstring(node) or "").split())
                for sentence in re.split(r"(?<=[.!?])\s+", doc):
                    if 40 <= len(sentence) <= 200 and sentence[0].isupper():
                        sentences.setdefault(sentence)
                        if len(sentences) >= count:
                            return list(sentences)
    return list(sentences)


def make_dataset(n: int, p: Params, text: Matrix | None = None) -> tuple[Matrix, Matrix]:
    """(data, queries) for one size; ``text`` holds the embedded corpus when ``p.data == "text"``."""
    if p.data != "text":
        return make_vectors(n, p), make_vectors(p.queries, p, seed_offset=1)
    if text is None or len(text) < n + p.queries:
        available = 0 if text is None else len(text) - p.queries
        raise ValueError(f"the text corpus has {available} sentences besides the queries, {n} asked for")
    return text[p.queries : p.queries + n], text[: p.queries]


def embed_corpus(count: int, p: Params, cache_dir: str | None = None) -> Matrix:
    """The embedded ``text`` corpus; cached in ``cache_dir`` because embedding 50k sentences takes minutes."""
    from memscribe.providers.local import LocalEmbedder

    if p.dim != 384:
        raise ValueError("the text data set is MiniLM embeddings, so dim must be 384")
    cache = Path(cache_dir) / f"text-{count}-seed{p.seed}.npy" if cache_dir else None
    if cache is not None and cache.exists():
        cached: Matrix = np.load(cache)
        return cached
    corpus = text_corpus(count)
    order = np.random.default_rng(p.seed).permutation(len(corpus))  # spread queries over every module
    vectors = LocalEmbedder(threads=p.threads).embed([corpus[i] for i in order])
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, vectors)
    return vectors


def exact_top_k(data: Matrix, queries: Matrix, k: int, chunk: int = 100_000) -> npt.NDArray[np.int64]:
    """Row ids of the exact top ``k`` per query, best first, scanning ``data`` in chunks to bound memory."""
    best_ids = np.empty((len(queries), 0), dtype=np.int64)
    best_scores = np.empty((len(queries), 0), dtype=np.float32)
    for start in range(0, len(data), chunk):
        scores = queries @ data[start : start + chunk].T
        ids = np.broadcast_to(np.arange(start, start + scores.shape[1]), scores.shape)
        all_scores = np.concatenate([best_scores, scores], axis=1)
        all_ids = np.concatenate([best_ids, ids], axis=1)
        keep = np.argsort(-all_scores, axis=1, kind="stable")[:, :k]
        best_scores = np.take_along_axis(all_scores, keep, axis=1)
        best_ids = np.take_along_axis(all_ids, keep, axis=1)
    return best_ids


# --- candidates: each one builds, searches, adds one vector, saves and loads --------------------------


class _Memscribe:
    """The indexes memscribe ships (stores/ann.py), measured through their public methods."""

    def __init__(self, name: str, p: Params, workdir: str) -> None:
        self.p, self.dtype = p, name.split("-", 1)[1] if "-" in name else ""
        self.index: NumpyIndex | USearchIndex = self._new()

    def _new(self) -> NumpyIndex | USearchIndex:
        if not self.dtype:
            return NumpyIndex(self.p.dim)
        return USearchIndex(
            self.p.dim,
            dtype=self.dtype,
            connectivity=self.p.connectivity,
            expansion_add=self.p.expansion_add,
            expansion_search=self.p.expansion_search,
            threads=self.p.threads,
        )

    def build(self, keys: npt.NDArray[np.int64], data: Matrix) -> None:
        self.index.add(keys, data)

    def search(self, query: Matrix, k: int) -> list[int]:
        return [key for key, _ in self.index.search(query, k)]

    def save(self, path: Path) -> None:
        self.index.save(path)

    def load(self, path: Path) -> None:
        kind = NumpyIndex if not self.dtype else USearchIndex
        self.index = kind.load(path, self.p.dim)


class _Hnswlib:
    def __init__(self, name: str, p: Params, workdir: str) -> None:
        import hnswlib

        self.p, self.lib, self.index = p, hnswlib, hnswlib.Index(space="cosine", dim=p.dim)
        self.ready = False

    def build(self, keys: npt.NDArray[np.int64], data: Matrix) -> None:
        if not self.ready:  # hnswlib's capacity is fixed up front: leave room for the single adds
            self.index.init_index(len(data) + self.p.single_adds, self.p.connectivity, self.p.expansion_add)
            self.index.set_num_threads(self.p.threads)
            self.index.set_ef(max(self.p.expansion_search, self.p.k))
            self.ready = True
        self.index.add_items(data, keys)

    def search(self, query: Matrix, k: int) -> list[int]:
        labels, _ = self.index.knn_query(query, k)
        return [int(x) for x in labels[0]]

    def save(self, path: Path) -> None:
        self.index.save_index(str(path))

    def load(self, path: Path) -> None:
        self.index = self.lib.Index(space="cosine", dim=self.p.dim)
        self.index.load_index(str(path))  # keeps the saved capacity, which left room for the adds
        self.index.set_ef(max(self.p.expansion_search, self.p.k))


class _Faiss:
    def __init__(self, name: str, p: Params, workdir: str) -> None:
        import faiss

        faiss.omp_set_num_threads(p.threads)
        self.p, self.lib = p, faiss
        inner: Any
        if name == "faiss-flat":
            inner = faiss.IndexFlatIP(p.dim)
        else:
            inner = faiss.IndexHNSWFlat(p.dim, p.connectivity, faiss.METRIC_INNER_PRODUCT)
            inner.hnsw.efConstruction = p.expansion_add
            inner.hnsw.efSearch = max(p.expansion_search, p.k)
        self.index: Any = faiss.IndexIDMap(inner)

    def build(self, keys: npt.NDArray[np.int64], data: Matrix) -> None:
        self.index.add_with_ids(data, keys)

    def search(self, query: Matrix, k: int) -> list[int]:
        _, ids = self.index.search(query.reshape(1, -1), k)
        return [int(x) for x in ids[0]]

    def save(self, path: Path) -> None:
        self.lib.write_index(self.index, str(path))

    def load(self, path: Path) -> None:
        self.index = self.lib.read_index(str(path))


class _SqliteVec:
    """sqlite-vec's vec0 table: a brute-force scan inside SQLite. The stdlib sqlite3 module cannot load
    extensions on every Python build, so apsw is used when it cannot."""

    def __init__(self, name: str, p: Params, workdir: str) -> None:
        self.p, self.path = p, Path(workdir) / f"sqlite-vec-{os.getpid()}.db"
        self.path.unlink(missing_ok=True)
        self.db = self._connect(self.path)
        columns = f"id INTEGER PRIMARY KEY, e float[{p.dim}] distance_metric=cosine"
        self.db.execute(f"CREATE VIRTUAL TABLE v USING vec0({columns})")

    @staticmethod
    def _connect(path: Path) -> Any:
        import sqlite3

        import sqlite_vec

        db: Any = sqlite3.connect(path, isolation_level=None)
        if not hasattr(db, "enable_load_extension"):
            import apsw  # this Python's sqlite3 was built without extension loading

            db = apsw.Connection(str(path))
        db.enable_load_extension(True)
        db.load_extension(sqlite_vec.loadable_path())
        return db

    def build(self, keys: npt.NDArray[np.int64], data: Matrix) -> None:
        self.db.execute("BEGIN")
        rows = ((int(key), row.tobytes()) for key, row in zip(keys, data, strict=True))
        self.db.executemany("INSERT INTO v(id, e) VALUES (?, ?)", rows)
        self.db.execute("COMMIT")

    def search(self, query: Matrix, k: int) -> list[int]:
        sql = "SELECT id FROM v WHERE e MATCH ? AND k = ? ORDER BY distance"
        return [int(r[0]) for r in self.db.execute(sql, (query.astype(np.float32).tobytes(), k))]

    def save(self, path: Path) -> None:
        path.write_bytes(self.path.read_bytes())  # the database file is the index

    def load(self, path: Path) -> None:
        self.db = self._connect(path)


_ADAPTERS: dict[str, Any] = {"numpy": _Memscribe, "usearch": _Memscribe, "hnswlib": _Hnswlib}
_ADAPTERS |= {"faiss": _Faiss, "sqlite": _SqliteVec}


def _rss_mb() -> float | None:
    """Resident set size from /proc; None where there is no /proc (the column is then left empty)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _percentiles(samples: list[float]) -> tuple[float, float]:
    arr = np.asarray(samples) * 1000.0
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


def _measure(name: str, data_path: str, query_path: str, p: Params) -> dict[str, Any]:
    """One case, run in its own process. Returns the figures and the result keys for the recall."""
    try:
        adapter = _ADAPTERS[name.split("-")[0]](name, p, str(Path(data_path).parent))
    except ImportError as exc:
        return {"skipped": f"{exc}"}
    try:
        return _measure_adapter(adapter, data_path, query_path, p)
    except Exception as exc:  # one broken candidate must not lose the figures of the others
        return {"skipped": f"failed: {exc!r}"}


def _measure_adapter(adapter: Any, data_path: str, query_path: str, p: Params) -> dict[str, Any]:
    data, queries = np.load(data_path), np.load(query_path)
    keys = np.arange(len(data), dtype=np.int64)
    rss_before = _rss_mb()
    started = time.perf_counter()
    adapter.build(keys, data)
    build_s = time.perf_counter() - started
    rss_after = _rss_mb()
    for query in queries[:20]:  # warm caches and lazy initialisation out of the timings
        adapter.search(query, p.k)
    found, timings = [], []
    for query in queries:
        started = time.perf_counter()
        found.append(adapter.search(query, p.k))
        timings.append(time.perf_counter() - started)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.bin"
        adapter.save(path)
        file_mb = path.stat().st_size / 2**20
        started = time.perf_counter()
        adapter.load(path)
        load_s = time.perf_counter() - started
        extra = data[: p.single_adds] + make_vectors(p.single_adds, replace(p, data="random"), seed_offset=2)
        extra /= np.linalg.norm(extra, axis=1, keepdims=True)
        adds = []
        for i, row in enumerate(extra):
            started = time.perf_counter()
            adapter.build(np.array([len(data) + i], dtype=np.int64), row.reshape(1, -1))
            adds.append(time.perf_counter() - started)
    p50, p95 = _percentiles(timings)
    return {
        "build_s": build_s,
        "p50_ms": p50,
        "p95_ms": p95,
        "rss_mb": None if rss_before is None or rss_after is None else rss_after - rss_before,
        "file_mb": file_mb,
        "load_s": load_s,
        "add1_ms": _percentiles(adds)[0],
        "found": found,
    }


def _recall(found: list[list[int]], truth: npt.NDArray[np.int64], at: int) -> float:
    hits = [len(set(row[:at]) & set(truth[i, :at].tolist())) for i, row in enumerate(found)]
    return float(np.mean(hits)) / at


def run(
    sizes: Sequence[int],
    dim: int = 384,
    *,
    candidates: Sequence[str] = CANDIDATES,
    params: Params | None = None,
    workdir: str | None = None,
    text_cache: str | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Run every candidate at every size; returns ``{"meta": ..., "results": [row, ...]}``."""
    p = params or Params(dim=dim)
    if p.dim != dim:
        p = Params(**{**asdict(p), "dim": dim})
    unknown = sorted(set(candidates) - set(CANDIDATES))
    if unknown:
        raise ValueError(f"unknown candidates {unknown}; choose from {list(CANDIDATES)}")
    results: list[dict[str, Any]] = []
    text = embed_corpus(max(sizes) + p.queries, p, text_cache) if p.data == "text" else None
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for n in sizes:
            data, queries = make_dataset(n, p, text)
            truth = exact_top_k(data, queries, p.k)
            data_path, query_path = f"{tmp}/data-{n}.npy", f"{tmp}/queries-{n}.npy"
            np.save(data_path, data)
            np.save(query_path, queries)
            del data  # each case loads its own copy; keep the parent small at 1M
            for name in candidates:
                # A fresh process per case: the memory column is then the index's alone.
                with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
                    row = pool.submit(_measure, name, data_path, query_path, p).result()
                row = {"candidate": name, "n": n, **row}
                found = row.pop("found", None)
                if found is not None:
                    row["recall@10"] = _recall(found, truth, 10)
                    row[f"recall@{p.k}"] = _recall(found, truth, p.k)
                results.append(row)
                if progress:
                    print(_format_row(row, p.k), flush=True)
    return {"meta": _meta(p), "results": results}


def _meta(p: Params) -> dict[str, Any]:
    import importlib.metadata as md

    versions: dict[str, str | None] = {}
    for dist in ("numpy", "usearch", "hnswlib", "faiss-cpu", "sqlite-vec", "apsw"):
        try:
            versions[dist] = md.version(dist)
        except md.PackageNotFoundError:
            versions[dist] = None
    machine: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    if hasattr(os, "getloadavg"):  # a busy shared machine shows up in the latency tails
        machine["loadavg_at_end"] = os.getloadavg()[0]
    return {"params": asdict(p), "versions": versions, "platform": machine}


_COLUMNS = ("candidate", "n", "build_s", "p50_ms", "p95_ms", "rss_mb", "file_mb", "load_s", "add1_ms")


def _format_row(row: dict[str, Any], k: int) -> str:
    if "skipped" in row:
        return f"{row['candidate']:<12} {row['n']:>8}  skipped: {row['skipped']}"
    cells = [f"{row['candidate']:<12}", f"{row['n']:>8}"]
    for column in (*_COLUMNS[2:], "recall@10", f"recall@{k}"):
        value = row.get(column)
        cells.append(f"{'-':>9}" if value is None else f"{value:>9.3f}")
    return " ".join(cells)


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: run the benchmark, print a table and write the JSON report."""
    parser = argparse.ArgumentParser(prog="python -m memscribe.bench.vectors", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--candidates", nargs="+", default=list(CANDIDATES), choices=CANDIDATES)
    parser.add_argument("--json", default=".bench/vectors.json", help="where to write the report")
    for field in fields(Params):  # every benchmark setting is also a flag: --expansion-search 128, ...
        choices = ("random", "clustered", "text") if field.name == "data" else None
        flag = f"--{field.name.replace('_', '-')}"
        parser.add_argument(flag, type=type(field.default), default=field.default, choices=choices)
    args = parser.parse_args(argv)
    p = Params(**{field.name: getattr(args, field.name) for field in fields(Params)})
    header = [f"{'candidate':<12}", f"{'n':>8}"] + [f"{c:>9}" for c in (*_COLUMNS[2:], "recall@10", f"recall@{p.k}")]
    print(" ".join(header), flush=True)
    out = Path(args.json)
    report = run(args.sizes, p.dim, candidates=args.candidates, params=p, text_cache=str(out.parent), progress=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
