"""One contract for every VectorIndex adapter: local files (exact and HNSW), Qdrant (local mode on disk with a
collection per partition; on disk and in memory with one collection and a payload filter), FAISS and Chroma.
An adapter whose library is not installed is skipped, saying which extra installs it.

Vectors are 16 components of +-0.25: unit length exactly in every float width, so the bytes each backend
stores (f32, f16, f64, pickled floats) are known and a byte scan of its files can tell whether a deleted
vector is still there. A scan that cannot find a kept vector proves nothing, so each erasure test first
checks that it can."""

from __future__ import annotations

import importlib.util
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from memscribe import Memory
from memscribe.stores.local import LocalIndex
from memscribe.stores.ports import VectorIndex
from memscribe.stores.sqlite import SQLiteStore

DIM = 16
A, B, C = ("t", "alice"), ("t", "bob"), ("t", "carol")


@dataclass(frozen=True)
class Adapter:
    name: str
    make: Callable[[Path], VectorIndex]  # a fresh instance over the files in that directory
    durable: bool = True  # keeps its state across instances (files or a server)
    needs: str | None = None  # the module the extra installs


def _local(path: Path) -> VectorIndex:
    return LocalIndex(path / "ann")


def _local_hnsw(path: Path) -> VectorIndex:
    return LocalIndex(path / "ann", hnsw_threshold=4)


def _qdrant_path(path: Path) -> VectorIndex:
    from memscribe.stores.qdrant import QdrantIndex

    return QdrantIndex(path=path / "qdrant")


def _qdrant_shared(path: Path) -> VectorIndex:
    from memscribe.stores.qdrant import QdrantIndex

    return QdrantIndex(path=path / "qdrant", layout="shared")  # a server's layout: one collection, payload filter


def _qdrant_memory(path: Path) -> VectorIndex:
    from memscribe.stores.qdrant import QdrantIndex

    return QdrantIndex(layout="shared")


def _faiss(path: Path) -> VectorIndex:
    from memscribe.stores.faiss import FaissIndex

    return FaissIndex(path / "faiss")


def _chroma(path: Path) -> VectorIndex:
    from memscribe.stores.chroma import ChromaIndex

    return ChromaIndex(path=path / "chroma")


ADAPTERS = [
    Adapter("local", _local),
    Adapter("local-hnsw", _local_hnsw),
    Adapter("qdrant-local", _qdrant_path, needs="qdrant_client"),
    Adapter("qdrant-shared", _qdrant_shared, needs="qdrant_client"),
    Adapter("qdrant-memory", _qdrant_memory, durable=False, needs="qdrant_client"),
    Adapter("faiss", _faiss, needs="faiss"),
    Adapter("chroma", _chroma, needs="chromadb"),
]
EXTRA = {"qdrant_client": "qdrant", "faiss": "faiss", "chromadb": "chroma"}


@pytest.fixture(params=ADAPTERS, ids=[a.name for a in ADAPTERS])
def adapter(request: pytest.FixtureRequest) -> Adapter:
    found: Adapter = request.param
    if found.needs and importlib.util.find_spec(found.needs) is None:
        pytest.skip(f"{found.name}: {found.needs} is not installed (pip install 'memscribe[{EXTRA[found.needs]}]')")
    return found


@pytest.fixture
def index(adapter: Adapter, tmp_path: Path) -> Iterator[VectorIndex]:
    made = adapter.make(tmp_path)
    yield made
    made.close()


def vec(seed: int) -> np.ndarray:
    signs = np.random.default_rng(seed).integers(0, 2, DIM) * 2 - 1
    return (signs * 0.25).astype(np.float32)


def rows(seeds: list[int]) -> np.ndarray:
    return np.stack([vec(s) for s in seeds])


def keys_of(hits: list[tuple[int, float]]) -> list[int]:
    return [k for k, _ in hits]


def fill(index: VectorIndex, partition: tuple[str, str], keys: list[int], seed0: int = 0) -> None:
    index.load(partition, DIM)
    index.upsert(partition, np.asarray(keys, dtype=np.int64), rows([seed0 + k for k in keys]))


# -- upsert, search, delete --------------------------------------------------------------------------


def test_search_finds_each_vector_first(index: VectorIndex) -> None:
    fill(index, A, list(range(1, 11)))
    for key in (1, 5, 10):
        hits = index.search(A, vec(key), 3)
        assert hits[0][0] == key and hits[0][1] == pytest.approx(1.0, abs=1e-3)
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert sorted(keys_of(index.search(A, vec(1), 100))) == list(range(1, 11))


def test_upsert_replaces_a_key(index: VectorIndex) -> None:
    fill(index, A, [1, 2, 3])
    index.upsert(A, np.asarray([2], dtype=np.int64), rows([99]))
    every = index.search(A, vec(99), 100)
    assert sorted(keys_of(every)) == [1, 2, 3]  # still one row per key
    assert every[0][0] == 2 and every[0][1] == pytest.approx(1.0, abs=1e-3)
    assert dict(index.search(A, vec(2), 100))[2] < 0.99  # the old vector is gone


def test_deleted_keys_are_never_returned(index: VectorIndex) -> None:
    fill(index, A, list(range(1, 9)))
    index.delete(A, np.asarray([2, 5, 404], dtype=np.int64))  # 404 was never there: ignored
    for key in range(1, 9):
        assert not {2, 5} & set(keys_of(index.search(A, vec(key), 100)))
    assert sorted(keys_of(index.search(A, vec(2), 100))) == [1, 3, 4, 6, 7, 8]


def test_a_partition_never_sees_another_partitions_keys(index: VectorIndex) -> None:
    fill(index, A, [1, 2, 3], seed0=0)
    fill(index, B, [1, 2, 3, 4], seed0=100)  # the same keys, other vectors
    index.load(C, DIM)
    assert index.search(C, vec(1), 10) == []
    hits = index.search(B, vec(1), 10)  # alice's vector 1, asked in bob's partition
    assert sorted(keys_of(hits)) == [1, 2, 3, 4] and all(s < 0.99 for _, s in hits)
    assert index.search(A, vec(1), 1)[0][0] == 1
    index.delete(B, np.asarray([1], dtype=np.int64))
    assert index.search(A, vec(1), 1)[0] == (1, pytest.approx(1.0, abs=1e-3))  # alice's 1 untouched


def test_search_among_current_keys_only(index: VectorIndex) -> None:
    fill(index, A, list(range(1, 13)))
    fill(index, B, [50, 51], seed0=0)
    hits = index.search(A, vec(7), 5, among={3, 7, 9, 50})  # 50 is bob's
    assert sorted(keys_of(hits)) == [3, 7, 9] and hits[0][0] == 7
    assert index.search(A, vec(7), 5, among=set()) == []
    assert keys_of(index.search(A, vec(7), 1, among={3, 9})) in ([3], [9])


def test_drop_erases_one_partition(index: VectorIndex) -> None:
    fill(index, A, [1, 2, 3])
    fill(index, B, [1, 2], seed0=100)
    index.drop(A)
    assert index.search(A, vec(1), 10) == []
    assert sorted(keys_of(index.search(B, vec(101), 10))) == [1, 2]
    assert index.load(A, DIM) == 0


# -- persist, reopen, rebuild ------------------------------------------------------------------------


def test_persist_then_reopen(adapter: Adapter, tmp_path: Path) -> None:
    if not adapter.durable:
        pytest.skip(f"{adapter.name} keeps nothing across instances")
    first = adapter.make(tmp_path)
    fill(first, A, list(range(1, 8)))
    fill(first, B, [1], seed0=100)
    first.delete(A, np.asarray([4], dtype=np.int64))
    first.persist(A, 41)
    first.persist(B, 7)
    first.close()
    again = adapter.make(tmp_path)
    try:
        assert again.load(A, DIM) == 41 and again.load(B, DIM) == 7
        assert sorted(keys_of(again.search(A, vec(1), 100))) == [1, 2, 3, 5, 6, 7]
        assert again.search(A, vec(6), 1)[0][0] == 6
        assert keys_of(again.search(B, vec(101), 10)) == [1]
    finally:
        again.close()


def _engine(adapter: Adapter, tmp_path: Path) -> Memory:
    store = SQLiteStore(tmp_path / "s.db", vector_index=adapter.make(tmp_path))
    return Memory(tmp_path / "s.db", writer="raw", embedder="hash", store=store)


def test_the_engine_runs_on_the_adapter_and_rebuilds_from_the_record_store(adapter: Adapter, tmp_path: Path) -> None:
    m = _engine(adapter, tmp_path)
    try:
        ids = [m.add(f"alice note {i} on the Quuxvale trip", user_id="alice")["results"][0]["id"] for i in range(6)]
        m.add("bob keeps bees near Quuxvale", user_id="bob")
        found = {h["id"] for h in m.search("Quuxvale trip", user_id="alice", limit=20)["results"]}
        assert found == set(ids)
        m.forget(ids[0], user_id="alice")
        assert m.reindex(user_id="alice")["vectors"] == 5
        index = m._core.store.vectors.index  # type: ignore[attr-defined]
        query = m._core.embedder.embed(["alice note 3 on the Quuxvale trip"])[0]
        assert len(index.search(("default", "alice"), query, 50)) == 5  # the index itself, not the join
        assert m.purge("alice")["verified"]
        assert index.search(("default", "alice"), query, 50) == []
        assert [h["memory"] for h in m.search("bees", user_id="bob")["results"]] == ["bob keeps bees near Quuxvale"]
        assert len(index.search(("default", "bob"), query, 50)) == 1  # synced by that search
    finally:
        m.close()


# -- erased means erased, byte by byte ---------------------------------------------------------------


def encodings(vector: np.ndarray) -> list[bytes]:
    """Every way a backend is known to store these components: f32, f16, f64 either order, pickled floats."""
    return [
        vector.astype("<f4").tobytes(),
        vector.astype("<f2").tobytes(),
        vector.astype("<f8").tobytes(),
        vector.astype(">f8").tobytes(),
        b"".join(b"G" + struct.pack(">d", float(x)) for x in vector),
    ]


def holds(files: list[Path], vector: np.ndarray) -> bool:
    blob = b"".join(p.read_bytes() for p in files if p.is_file())
    return any(e in blob for e in encodings(vector))


def test_no_file_keeps_a_deleted_or_dropped_vector(adapter: Adapter, index: VectorIndex) -> None:
    fill(index, A, list(range(1, 11)))
    fill(index, B, [1, 2], seed0=500)
    index.persist(A, 10)
    index.persist(B, 2)
    files = index.files()
    if not files:
        pytest.skip(f"{adapter.name} owns no local files")
    assert holds(index.files(), vec(3)), "the scan must see how this backend stores vectors"
    index.delete(A, np.asarray([3], dtype=np.int64))
    index.persist(A, 11)
    assert not holds(index.files(), vec(3))
    assert holds(index.files(), vec(4))
    index.drop(A)
    assert not any(holds(index.files(), vec(k)) for k in range(1, 11))
    assert holds(index.files(), vec(501))  # bob's are kept
