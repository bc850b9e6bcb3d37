"""FaissIndex: the :class:`~memscribe.stores.ports.VectorIndex` on FAISS (``memscribe[faiss]``, faiss-cpu).

Each partition is a FAISS ``IndexIDMap2`` over an exact inner-product ``IndexFlatIP`` of unit vectors (cosine
similarity, recall 1.0), saved per partition as ``<token>-<watermark>.faiss`` beside a ``<token>.json``, the
same file layout as the default :class:`~memscribe.stores.local.LocalIndex`. A flat index removes ids by
compacting its storage, so a saved file never holds a deleted vector. FAISS's graph indexes cannot remove
ids and its IVF indexes need training on the data, so the flat index is the one that keeps the contract;
past ~100k vectors per partition the default index's HNSW graph is the faster choice.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from memscribe.errors import ConfigError, EmbeddingMismatch, InvalidInput, StoreError
from memscribe.stores.local import FileIndex

if TYPE_CHECKING:
    from memscribe.core.vectors import Keys, Vectors

__all__ = ["FaissFlatIndex", "FaissIndex"]


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as exc:
        raise ConfigError("the FAISS vector index needs `pip install 'memscribe[faiss]'`") from exc
    return faiss


def _unit_rows(vectors: Vectors, dim: int) -> Vectors:
    rows = np.asarray(vectors, dtype=np.float32).reshape(-1, dim)
    if not np.isfinite(rows).all():
        raise InvalidInput("vectors contain NaN or infinity")
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: Vectors = np.ascontiguousarray(rows / np.clip(norms, 1e-12, None), dtype=np.float32)
    return unit


class FaissFlatIndex:
    """One partition: exact cosine search in a FAISS flat index keyed by 64-bit integers."""

    def __init__(self, dim: int, *, _index: Any = None) -> None:
        faiss = _faiss()
        if dim < 1:
            raise InvalidInput(f"index dim must be positive, got {dim}")
        self._dim = dim
        self._index: Any = _index if _index is not None else faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, keys: Keys, vectors: Vectors) -> None:
        ids = np.asarray(keys, dtype=np.int64).reshape(-1)
        if np.shape(vectors)[-1] != self._dim:
            raise EmbeddingMismatch(f"index holds {self._dim}-dimensional vectors, got shape {np.shape(vectors)}")
        rows = _unit_rows(vectors, self._dim)
        if rows.shape[0] != ids.shape[0]:
            raise InvalidInput(f"{ids.shape[0]} keys for {rows.shape[0]} vectors")
        _, last = np.unique(ids[::-1], return_index=True)  # a key given twice keeps its last row
        keep = np.sort(ids.shape[0] - 1 - last)
        ids, rows = np.ascontiguousarray(ids[keep]), np.ascontiguousarray(rows[keep])
        with self._lock:
            self._index.remove_ids(ids)  # replace: FAISS would otherwise keep both rows under one id
            self._index.add_with_ids(rows, ids)

    def remove(self, keys: Keys) -> None:
        ids = np.ascontiguousarray(np.asarray(keys, dtype=np.int64).reshape(-1))
        if ids.shape[0]:
            with self._lock:
                self._index.remove_ids(ids)

    def search(self, vector: Vectors, k: int) -> list[tuple[int, float]]:
        query = self._query(vector)
        with self._lock:
            k = min(k, int(self._index.ntotal))
            if k <= 0:
                return []
            scores, ids = self._index.search(query, k)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def search_among(self, vector: Vectors, k: int, among: Collection[int]) -> list[tuple[int, float]]:
        query = self._query(vector)[0]
        keys, rows = [], []
        with self._lock:
            for key in {int(a) for a in among}:
                try:
                    rows.append(self._index.reconstruct(key))
                except RuntimeError:  # not present
                    continue
                keys.append(key)
        if not keys or k <= 0:
            return []
        scores = np.asarray(rows, dtype=np.float32) @ query
        top = np.argsort(-scores, kind="stable")[:k]
        return [(keys[i], float(scores[i])) for i in top]

    def save(self, path: str | os.PathLike[str]) -> None:
        faiss = _faiss()
        target = Path(path)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            with self._lock:
                faiss.write_index(self._index, str(tmp))
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | os.PathLike[str], dim: int) -> Self:
        faiss = _faiss()
        try:
            index = faiss.read_index(os.fspath(path))
        except RuntimeError as exc:
            raise StoreError(f"{path} is not a FAISS index: {exc}") from exc
        if index.d != dim:
            raise EmbeddingMismatch(f"{path} holds {index.d}-dimensional vectors, expected {dim}")
        return cls(dim, _index=index)

    def _query(self, vector: Vectors) -> Vectors:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self._dim:
            raise EmbeddingMismatch(f"index holds {self._dim}-dimensional vectors, got a query of {query.shape[0]}")
        return _unit_rows(query, self._dim)


class FaissIndex(FileIndex):
    """Per-partition FAISS flat indexes, persisted as files in ``directory``."""

    suffix = ".faiss"

    def __init__(self, directory: str | os.PathLike[str], *, threads: int | None = 1) -> None:
        faiss = _faiss()  # fail at configuration, not at the first search
        if threads is not None:
            # FAISS parallelises one query over OpenMP threads; for the store's single queries the thread
            # start-up costs more than it saves (10x slower on a loaded 2-core machine). Process-wide setting.
            faiss.omp_set_num_threads(threads)
        super().__init__(directory)

    def _new(self, dim: int) -> FaissFlatIndex:
        return FaissFlatIndex(dim)

    def _open(self, path: Path, dim: int) -> FaissFlatIndex:
        return FaissFlatIndex.load(path, dim)
