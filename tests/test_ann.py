"""The per-partition vector indexes: every implementation honours the VectorIndex contract."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memscribe.errors import EmbeddingMismatch, InvalidInput, StoreError
from memscribe.stores.ann import AutoIndex, NumpyIndex, USearchIndex, VectorIndex, load_index

DIM = 16
Factory = Callable[[int], VectorIndex]

FACTORIES: dict[str, Factory] = {
    "numpy": NumpyIndex,
    # f32 storage keeps scores exact, so the graph's answers on tiny data equal the exact index's.
    "usearch": lambda dim: USearchIndex(dim, dtype="f32"),
    "auto": lambda dim: AutoIndex(dim, hnsw_threshold=50),
}


def unit(rows: int, dim: int = DIM, seed: int = 0) -> np.ndarray:
    data = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    result: np.ndarray = data / np.linalg.norm(data, axis=1, keepdims=True)
    return result


def clustered(rows: int, dim: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, dim))
    data = centres[rng.integers(0, 20, rows)] + 0.3 * rng.standard_normal((rows, dim))
    result: np.ndarray = (data / np.linalg.norm(data, axis=1, keepdims=True)).astype(np.float32)
    return result


@pytest.fixture(params=sorted(FACTORIES))
def make(request: pytest.FixtureRequest) -> Factory:
    return FACTORIES[request.param]


def test_follows_the_protocol(make: Factory) -> None:
    index = make(DIM)
    assert isinstance(index, VectorIndex)
    assert index.dim == DIM and len(index) == 0
    assert index.search(unit(1)[0], 5) == []


def test_add_then_search_finds_each_vector_first(make: Factory) -> None:
    vectors = unit(30)
    index = make(DIM)
    index.add(list(range(100, 130)), vectors)
    assert len(index) == 30
    for i in (0, 7, 29):
        hits = index.search(vectors[i], 5)
        assert hits[0][0] == 100 + i
        assert hits[0][1] == pytest.approx(1.0, abs=1e-3)
        assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)
    assert len(index.search(vectors[0], 100)) == 30
    assert index.search(vectors[0], 0) == []
    assert sorted(index.keys().tolist()) == list(range(100, 130))


def test_remove_and_missing_keys(make: Factory) -> None:
    vectors = unit(10)
    index = make(DIM)
    index.add(range(10), vectors)
    index.remove([3, 4, 999])
    index.remove([])
    assert len(index) == 8
    assert {key for key, _ in index.search(vectors[3], 10)} == set(range(10)) - {3, 4}
    index.remove([3])  # removing twice is a no-op
    assert len(index) == 8


def test_readding_a_key_replaces_it(make: Factory) -> None:
    old, new = unit(2, seed=1)
    index = make(DIM)
    index.add([1, 2], unit(2, seed=2))
    index.add([7], old[None, :])
    index.add([7], new[None, :])
    assert len(index) == 3
    key, score = index.search(new, 1)[0]
    assert key == 7 and score == pytest.approx(1.0, abs=1e-3)


def test_duplicate_keys_in_one_batch_keep_the_last(make: Factory) -> None:
    vectors = unit(3)
    index = make(DIM)
    index.add([5, 6, 5], vectors)
    assert len(index) == 2
    assert index.search(vectors[2], 1)[0][0] == 5


def test_keys_cover_the_int64_range(make: Factory) -> None:
    keys = [1, 2**62 + 3, -(2**40), 2**63 - 1]
    vectors = unit(4)
    index = make(DIM)
    index.add(keys, vectors)
    assert [index.search(v, 1)[0][0] for v in vectors] == keys


def test_dimension_mismatch(make: Factory, tmp_path: Path) -> None:
    index = make(DIM)
    with pytest.raises(EmbeddingMismatch):
        index.add([1], unit(1, dim=DIM + 1))
    with pytest.raises(EmbeddingMismatch):
        index.search(unit(1, dim=DIM - 1)[0], 3)
    index.add([1], unit(1))
    index.save(tmp_path / "index.bin")
    with pytest.raises(EmbeddingMismatch):
        type(index).load(tmp_path / "index.bin", DIM * 2)


def test_bad_batches_are_refused(make: Factory) -> None:
    index = make(DIM)
    with pytest.raises(InvalidInput):
        index.add([1, 2], unit(3))
    with pytest.raises(InvalidInput):
        index.add([1], np.full((1, DIM), np.nan, dtype=np.float32))
    assert len(index) == 0


def test_save_load_round_trip(make: Factory, tmp_path: Path) -> None:
    vectors = unit(80)
    index = make(DIM)
    index.add(range(80), vectors)
    index.remove([0, 1])
    path = tmp_path / "partition.idx"
    index.save(path)
    index.save(path)  # overwriting goes through a rename as well
    assert [p.name for p in tmp_path.iterdir()] == ["partition.idx"]  # no temporary file is left behind
    loaded = type(index).load(path, DIM)
    assert len(loaded) == 78
    assert sorted(loaded.keys().tolist()) == list(range(2, 80))
    for query in unit(5, seed=3):
        assert [k for k, _ in loaded.search(query, 5)] == [k for k, _ in index.search(query, 5)]
    loaded.add([500], vectors[:1])  # a loaded index stays writable
    assert loaded.search(vectors[0], 1)[0][0] == 500


def test_damaged_files_are_store_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.idx"
    junk.write_bytes(b"not an index" * 20)
    with pytest.raises(StoreError):
        load_index(junk, DIM)
    with pytest.raises(StoreError):
        load_index(tmp_path / "missing.idx", DIM)
    index = NumpyIndex(DIM)
    index.add(range(5), unit(5))
    index.save(tmp_path / "ok.idx")
    (tmp_path / "cut.idx").write_bytes((tmp_path / "ok.idx").read_bytes()[:-7])
    with pytest.raises(StoreError):
        NumpyIndex.load(tmp_path / "cut.idx", DIM)


def test_usearch_refuses_its_reserved_key() -> None:
    with pytest.raises(InvalidInput):
        USearchIndex(DIM).add([-1], unit(1))


def test_hnsw_agrees_with_exact_search() -> None:
    dim = 64
    data, queries = clustered(2000, dim), clustered(50, dim, seed=9)
    exact, graph = NumpyIndex(dim), USearchIndex(dim)
    exact.add(range(2000), data)
    graph.add(range(2000), data)
    recall = []
    for query in queries:
        truth = {k for k, _ in exact.search(query, 10)}
        recall.append(len(truth & {k for k, _ in graph.search(query, 10)}) / 10)
    assert np.mean(recall) >= 0.9
    top_exact, top_graph = exact.search(queries[0], 1)[0], graph.search(queries[0], 1)[0]
    assert top_graph[1] == pytest.approx(top_exact[1], abs=5e-3)  # f16 storage rounds the score only slightly


def test_auto_index_switches_to_hnsw_and_back_from_disk(tmp_path: Path) -> None:
    vectors = unit(60)
    index = AutoIndex(DIM, hnsw_threshold=40)
    index.add(range(30), vectors[:30])
    assert index.kind == "exact"
    index.save(tmp_path / "small.idx")
    index.add(range(30, 60), vectors[30:])
    assert index.kind == "hnsw" and len(index) == 60
    assert index.search(vectors[45], 1)[0][0] == 45
    index.save(tmp_path / "big.idx")
    assert AutoIndex.load(tmp_path / "small.idx", DIM).kind == "exact"
    reopened = AutoIndex.load(tmp_path / "big.idx", DIM)
    assert reopened.kind == "hnsw" and len(reopened) == 60


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.lists(st.integers(0, 12), min_size=1, max_size=5)),
        max_size=15,
    )
)
def test_exact_index_matches_a_dict_model(ops: list[tuple[bool, list[int]]]) -> None:
    index, model = NumpyIndex(4), dict[int, np.ndarray]()
    rng = np.random.default_rng(0)
    for is_add, keys in ops:
        if is_add:
            rows = unit(len(keys), dim=4, seed=int(rng.integers(1 << 30)))
            index.add(keys, rows)
            model.update(zip(keys, rows, strict=True))
        else:
            index.remove(keys)
            for key in keys:
                model.pop(key, None)
    assert sorted(index.keys().tolist()) == sorted(model)
    for key, row in model.items():
        best_key, best_score = index.search(row, 1)[0]
        assert best_score == pytest.approx(1.0, abs=1e-5)
        assert best_key == key or float(model[best_key] @ row) == pytest.approx(1.0, abs=1e-5)
