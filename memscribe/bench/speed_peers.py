"""Peers in ``memscribe bench speed``: mem0 (``infer=False``) and Hy-Memory lite, driven as subprocesses in their
own virtualenvs (``memscribe.bench.writers.peers``), measured on the same turns as memscribe's adds.

Each peer is filled to the same number of memories through its own ``add()`` (many messages per call), with
cheap synthetic vectors served over the wire (unit vectors jittered around real embeddings, as memscribe's own
fill beyond ``--real-max``): filling 10k memories through a peer at its real speed would take longer than the
measurement. Then, with the benchmark's real embedder, the same one-message adds are timed, then searches. The
embedding is done in this process for the peer (the wire's callback) and counted in the figures: CPU time is
this process's plus the peer's (read from ``/proc``), per add.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.bench import speed_data
from memscribe.bench.speed_probe import percentile

if TYPE_CHECKING:
    from memscribe.providers.ports import Embedder, Vectors

__all__ = ["PEERS", "measure_peers"]

PEERS: dict[str, tuple[str, dict[str, Any]]] = {
    "mem0": ("mem0", {"infer": False}),
    "hy": ("hy", {"mode": "lite"}),
    "fake": ("fake", {"infer": False}),
}
"""Peer name in ``--peer NAME=PYTHON`` -> (runner backend, options)."""

_DIRECT_FILL = ("mem0",)  # runners with a ``fill`` op; the others are filled through their add()
USER = "bench"
_START = datetime(2024, 3, 1, tzinfo=UTC)


class _Synthetic:
    """An embedder answering from jittered copies of a few real vectors: the peers' fill costs no model time."""

    def __init__(self, real: Embedder, pool: Vectors) -> None:
        self.model_id, self.dim, self._pool, self._seed = real.model_id, real.dim, pool, 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        self._seed += 1
        return speed_data.jittered(self._pool, len(texts), seed=self._seed)


def _peer_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a running process, from /proc (None where there is none)."""
    import os

    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _fill(subject: Any, texts: list[str], direct: bool, chunk: int = 500) -> float:
    """Fill the peer: straight into its store where the runner can (``fill``), else one ``add()`` a memory."""
    started = time.perf_counter()
    for start in range(0, len(texts), chunk if direct else 1):
        if direct:
            subject._request({"op": "fill", "user_id": USER, "texts": texts[start : start + chunk]})
        else:
            when = _START + timedelta(minutes=start)
            subject.add([{"role": "user", "content": texts[start]}], user_id=USER, when=when)
    return time.perf_counter() - started


def measure_peer(
    name: str, python: str, embedder: Embedder, workdir: Path, *, fill: int, turns: list[str],
    queries: list[str],
) -> dict[str, Any]:  # fmt: skip
    """One peer's row: fill to ``fill`` memories, then time one-message adds of ``turns`` and ``queries``."""
    from memscribe.bench.writers.peers.client import PeerSubject

    backend, options = PEERS[name]
    folder = workdir / f"peer-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    pool = embedder.embed(speed_data.memory_texts(200, seed=11))
    subject = PeerSubject(name, folder, python=python, backend=backend, options=options,
                          embedder=_Synthetic(embedder, pool), chat=None)  # fmt: skip
    try:
        fill_s = _fill(subject, speed_data.memory_texts(fill, seed=0), direct=backend in _DIRECT_FILL)
        subject.embedder = embedder
        # One untimed add for another user: the peer's one-time costs stay out, as memscribe's warm_up() does.
        subject.add([{"role": "user", "content": turns[0]}], user_id=f"{USER}-warm-up", when=_START)
        timings, wall0, cpu0, peer0 = [], time.perf_counter(), time.process_time(), _peer_cpu_s(subject.proc.pid)
        for i, text in enumerate(turns):
            started = time.perf_counter()
            subject.add([{"role": "user", "content": text}], user_id=USER, when=_START + timedelta(days=30, seconds=i))
            timings.append((time.perf_counter() - started) * 1000)
        wall, cpu, peer1 = time.perf_counter() - wall0, time.process_time() - cpu0, _peer_cpu_s(subject.proc.pid)
        searches = []
        for query in queries:
            started = time.perf_counter()
            subject._request({"op": "search", "user_id": USER, "query": query, "limit": 10})
            searches.append((time.perf_counter() - started) * 1000)
    finally:
        subject.close()
    peer_cpu = (peer1 - peer0) if peer0 is not None and peer1 is not None else None
    return {
        "peer": f"{name} ({backend}, {', '.join(f'{k}={v}' for k, v in options.items())})", "memories": fill,
        "adds": len(turns), "adds_per_s": round(len(turns) / wall, 1), "add_p50_ms": round(percentile(timings, 50), 2),
        "add_p95_ms": round(percentile(timings, 95), 2),
        "cpu_ms_per_add": round(1000 * (cpu + peer_cpu) / len(turns), 2) if peer_cpu is not None else None,
        "search_p50_ms": round(percentile(searches, 50), 2), "search_p95_ms": round(percentile(searches, 95), 2),
        "fill_s": round(fill_s, 1), "fill": "straight into its store" if backend in _DIRECT_FILL else "its add()",
    }  # fmt: skip


def measure_peers(
    peers: Mapping[str, str], embedder: Embedder, workdir: Path, *, fill: Mapping[str, int], turns: list[str],
    queries: list[str],
) -> list[dict[str, Any]]:
    """A row per peer in ``peers`` (name -> its venv's python); a peer that fails says so in its row."""
    from memscribe.bench.writers.peers.client import PeerError

    rows = []
    for name, python in peers.items():
        try:
            rows.append(measure_peer(name, python, embedder, workdir, fill=fill[name], turns=turns, queries=queries))
        except (PeerError, OSError) as exc:
            rows.append({"peer": name, "error": str(exc)[:300]})
    return rows
