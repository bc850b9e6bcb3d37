"""Measuring tools for ``memscribe bench speed``: percentiles, resident memory, install size, a query
embedder that can answer from a table, and bulk records for the store."""

from __future__ import annotations

import math
import sysconfig
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from memscribe.providers.ports import Embedder, Vectors
    from memscribe.stores.ports import Changeset

__all__ = ["PrecomputedQueries", "make_records", "percentile", "rss_mb", "stage_timings", "venv_size"]


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (0.0 for no values)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[max(1, min(len(ordered), math.ceil(pct / 100 * len(ordered)))) - 1]


def rss_mb() -> float | None:
    """This process's resident set size in MiB, from /proc (None where there is none)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class PrecomputedQueries:
    """Wraps an embedder. While ``precomputed`` is true, the known queries are answered from a table built
    up front, so a search measures everything but the model call; other texts go to the model."""

    def __init__(self, inner: Embedder, queries: Sequence[str]) -> None:
        self.inner = inner
        self.precomputed = True
        vectors = inner.embed(list(dict.fromkeys(queries)))
        self._table = {text: vectors[i] for i, text in enumerate(dict.fromkeys(queries))}

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self.precomputed and texts and all(text in self._table for text in texts):
            result: Vectors = np.stack([self._table[text] for text in texts])
            return result
        return self.inner.embed(texts)

    def time_model(self, text: str) -> float:
        """Milliseconds the model takes to embed one query."""
        started = time.perf_counter()
        self.inner.embed([text])
        return (time.perf_counter() - started) * 1000


def make_records(texts: Sequence[str], vectors: Vectors, model_id: str, user_id: str) -> Changeset:
    """One changeset inserting a current fact per text, as a writer would have produced it."""
    from memscribe.core.ids import new_id
    from memscribe.core.records import Layer, MemoryRecord, Owner, Scope, Status
    from memscribe.stores.ports import Changeset

    scope = Scope(user_id=user_id)
    now = datetime.now(UTC)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    records = tuple(
        MemoryRecord(
            id=new_id(),
            version_id=new_id(),
            version=1,
            scope=scope,
            text=text,
            subject="user",
            slot=None,
            value=None,
            owner=Owner.USER,
            layer=Layer.FACT,
            scene="chat",
            tags=(),
            episode_id=None,
            message_indices=(),
            confidence=1.0,
            writer="bench",
            embedding_model=model_id,
            source="bench",
            valid_from=start + timedelta(minutes=i),
            valid_to=None,
            recorded_at=now,
            retired_at=None,
            status=Status.ACTIVE,
        )
        for i, text in enumerate(texts)
    )
    return Changeset(partition=scope.partition, episode_id=None, insert=records, vectors=vectors)


def stage_timings(
    store: Any, wrapped: PrecomputedQueries, queries: Sequence[str], user_id: str
) -> dict[str, float]:
    """p50 of each store call one search makes, so a slow stage shows up by name."""
    from memscribe.core.text import keyword_terms
    from memscribe.read.search import inflected
    from memscribe.stores.ports import RecordFilter

    partition, flt = ("default", user_id), RecordFilter(now=datetime.now(UTC))
    timings: dict[str, list[float]] = {"vector": [], "keyword": [], "fetch": []}
    for query in queries:
        vector = wrapped.embed([query])[0]
        started = time.perf_counter()
        hits = store.vector_search(partition, vector, wrapped.model_id, flt, 30)
        timings["vector"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        store.keyword_search(partition, inflected(keyword_terms(query)), flt, 30)  # as Memory.search asks
        timings["keyword"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        store.by_version_ids(partition, [vid for vid, _ in hits[:10]])
        timings["fetch"].append((time.perf_counter() - started) * 1000)
    return {f"stage_{name}_p50_ms": round(percentile(values, 50), 2) for name, values in timings.items()}


def _dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def _base_distributions() -> set[str]:
    """memscribe and everything its base requirements pull in (no extras)."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = ["memscribe"]
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        for line in requires:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def venv_size() -> dict[str, Any]:
    """Bytes in site-packages, and in the files of the base install's own distributions."""
    site = Path(sysconfig.get_paths()["purelib"])
    base = _base_distributions()
    base_bytes = 0
    for dist in metadata.distributions():
        if dist.metadata["Name"].lower().replace("_", "-") not in base:
            continue
        for file in dist.files or ():
            located = Path(str(dist.locate_file(file)))
            if located.is_file():
                base_bytes += located.stat().st_size
    return {
        "site_packages": str(site),
        "site_packages_mb": round(_dir_bytes(site) / 2**20, 1),
        "base_install_mb": round(base_bytes / 2**20, 1),
        "base_distributions": sorted(base),
    }
