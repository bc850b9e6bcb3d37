"""Chroma's erasure beyond the contract suite's few vectors: past Chroma's sync threshold (1,000 writes) its
HNSW segment is flushed to files, which only mark a deleted entry, and ``delete_collection`` leaves the
segment's directory behind. ChromaIndex must erase from those files too (its docstring says how)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("chromadb", reason="the chroma extra is not installed (pip install 'memscribe[chroma]')")

from memscribe.stores.chroma import ChromaIndex

DIM = 64  # +-0.125 components: unit length exactly (Chroma normalises for cosine); 2**64 sign patterns
A, B = ("t", "alice"), ("t", "bob")
KEYS = list(range(1, 1_501))


def vec(seed: int) -> np.ndarray:
    signs = np.random.default_rng(seed).integers(0, 2, DIM) * 2 - 1
    return (signs * 0.125).astype(np.float32)


def holds(index: ChromaIndex, seed: int) -> bool:
    blob = b"".join(p.read_bytes() for p in index.files())
    v = vec(seed)
    return any(e in blob for e in (v.astype("<f4").tobytes(), v.astype("<f2").tobytes(), v.astype("<f8").tobytes()))


def test_a_flushed_segment_keeps_no_deleted_or_dropped_vector(tmp_path: Path) -> None:
    index = ChromaIndex(path=tmp_path / "chroma")
    index.load(A, DIM)
    index.upsert(A, np.asarray(KEYS, dtype=np.int64), np.stack([vec(k) for k in KEYS]))
    index.upsert(B, np.asarray([1, 2], dtype=np.int64), np.stack([vec(100_001), vec(100_002)]))
    index.persist(A, 1_500)
    index.persist(B, 2)
    flushed = [p for p in index.files() if p.name == "data_level0.bin" and vec(3).tobytes() in p.read_bytes()]
    assert flushed, "the scan must see Chroma's flushed HNSW files"

    index.delete(A, np.asarray([3], dtype=np.int64))
    index.persist(A, 1_501)
    assert not holds(index, 3)
    assert holds(index, 4) and holds(index, 100_001)
    assert [k for k, _ in index.search(A, vec(4), 1)] == [4]
    assert 3 not in [k for k, _ in index.search(A, vec(3), 10)]
    assert index.load(A, DIM) == 1_501

    index.drop(A)
    assert not any(holds(index, k) for k in (1, 2, 4, 700, 1_500))
    assert holds(index, 100_001)  # bob's are kept
    assert index.load(A, DIM) == 0 and index.search(A, vec(4), 3) == []
    index.close()


def test_an_interrupted_rewrite_rebuilds_from_the_log(tmp_path: Path) -> None:
    """The watermark is cleared before the collection is rebuilt: a crash in between reads as 'rebuild'."""
    index = ChromaIndex(path=tmp_path / "chroma")
    index.load(A, DIM)
    index.upsert(A, np.asarray([1, 2, 3], dtype=np.int64), np.stack([vec(k) for k in (1, 2, 3)]))
    index.persist(A, 3)
    index.delete(A, np.asarray([2], dtype=np.int64))

    def crash(name: str, keys: list[int], rows: np.ndarray) -> None:
        raise RuntimeError("killed")

    index._put = crash  # type: ignore[method-assign]  # dies between dropping and refilling the collection
    with pytest.raises(RuntimeError):
        index.persist(A, 4)
    index.close()
    assert ChromaIndex(path=tmp_path / "chroma").load(A, DIM) == 0
