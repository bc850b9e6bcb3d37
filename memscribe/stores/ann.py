"""In-process ANN indexes, one per (tenant, user_id) partition, used by :class:`memscribe.stores.local.LocalIndex`
(the default vector index) and rebuildable at any time from the vectors the record store keeps.

Three implementations of :class:`AnnIndex` (figures and reasons in ``docs/vector-index.md``):

- :class:`NumpyIndex`: exact search by one matrix product. Under ~50k vectors it is as fast as a graph
  index, needs no build, and its recall is 1.0 by definition; most partitions stay this size.
- :class:`USearchIndex`: HNSW graph from usearch with f16 storage, for partitions that outgrow brute force.
- :class:`AutoIndex`: what the store uses. It starts as a NumpyIndex and becomes a USearchIndex once the
  partition passes ``hnsw_threshold`` vectors; :meth:`AutoIndex.load` opens a file of either kind.

Keys are signed 64-bit integers (SQLite rowids). Scores are cosine similarities, higher is better. All
indexes are thread-safe: one lock per index serialises mutations against searches.
"""

from __future__ import annotations

import os
import struct
import tempfile
import threading
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self, cast, runtime_checkable

import numpy as np
import numpy.typing as npt

from memscribe.errors import EmbeddingMismatch, InvalidInput, StoreError

if TYPE_CHECKING:
    from memscribe.core.vectors import Vectors

__all__ = ["AnnIndex", "AutoIndex", "Keys", "NumpyIndex", "USearchIndex", "VectorIndex", "load_index"]

Keys = Sequence[int] | npt.NDArray[np.int64]
PathLike = str | os.PathLike[str]

# Measured crossover (docs/vector-index.md): at 50k vectors brute force takes ~5 ms per query at k=40;
# past that the graph index wins on latency by an order of magnitude.
DEFAULT_HNSW_THRESHOLD = 50_000

_NUMPY_MAGIC = b"MSVXNP01"
_NUMPY_HEADER = struct.Struct("<8sIQ")  # magic, dim, count; then int64 keys, then float32 rows


@runtime_checkable
class AnnIndex(Protocol):
    """A mutable nearest-neighbour index over unit vectors keyed by 64-bit integers (one partition's)."""

    @property
    def dim(self) -> int: ...

    def add(self, keys: Keys, vectors: Vectors) -> None:
        """Insert rows; a key already present is replaced. Wrong width raises EmbeddingMismatch."""

    def remove(self, keys: Keys) -> None:
        """Delete keys; keys that are not present are ignored."""

    def search(self, vector: Vectors, k: int) -> list[tuple[int, float]]:
        """The ``k`` nearest keys to ``vector`` (shape (dim,)), as (key, cosine), best first."""

    def keys(self) -> npt.NDArray[np.int64]:
        """Every key present, in no particular order (to reconcile the index with the database)."""

    def __len__(self) -> int: ...

    def save(self, path: PathLike) -> None:
        """Write the index to ``path`` atomically: a reader sees the old file or the new, never half."""

    @classmethod
    def load(cls, path: PathLike, dim: int) -> Self:
        """Open a saved index; raises EmbeddingMismatch if it holds vectors of another width."""


VectorIndex = AnnIndex  # the earlier name of this key-level protocol; the partition-level port is in stores.ports


def _dots(rows: Vectors, query: Vectors) -> Vectors:
    """``rows @ query`` on one thread. A matrix-vector product is memory-bound, so BLAS's threads do not speed
    it up, but they wait spinning after each call: on two busy cores OpenBLAS's ``@`` of 10k x 384 took
    15 ms (7.6 ms CPU) against 4.5 ms (2.1 ms CPU) here, and doubled the CPU time of a one-message add."""
    result: Vectors = np.einsum("ij,j->i", rows, query)
    return result


def _exact_among(
    found: tuple[npt.NDArray[np.int64], Vectors], query: Vectors, k: int
) -> list[tuple[int, float]]:
    """The ``k`` best of the rows ``found`` (keys, unit rows) by cosine with ``query``."""
    keys, rows = found
    if k <= 0 or keys.shape[0] == 0:
        return []
    scores = _dots(rows.astype(np.float32, copy=False), _normalise(query))
    top = np.argsort(-scores, kind="stable")[:k]
    return list(zip(keys[top].tolist(), scores[top].tolist(), strict=True))


def _as_keys(keys: Keys) -> npt.NDArray[np.int64]:
    try:
        return np.asarray(keys, dtype=np.int64).reshape(-1)
    except (OverflowError, TypeError, ValueError) as exc:
        raise InvalidInput(f"index keys must be 64-bit integers: {exc}") from exc


def _as_rows(keys: Keys, vectors: Vectors, dim: int) -> tuple[npt.NDArray[np.int64], Vectors]:
    """Validate a batch and keep the last row of any key given twice, as sequential adds would."""
    key_arr = _as_keys(keys)
    rows = np.asarray(vectors, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows.reshape(1, -1)
    if rows.ndim != 2 or rows.shape[1] != dim:
        raise EmbeddingMismatch(f"index holds {dim}-dimensional vectors, got shape {np.shape(vectors)}")
    if rows.shape[0] != key_arr.shape[0]:
        raise InvalidInput(f"{key_arr.shape[0]} keys for {rows.shape[0]} vectors")
    if not np.isfinite(rows).all():
        raise InvalidInput("vectors contain NaN or infinity")
    if np.unique(key_arr).shape[0] != key_arr.shape[0]:
        reversed_keys = key_arr[::-1]
        _, first_in_reversed = np.unique(reversed_keys, return_index=True)
        last = np.sort(key_arr.shape[0] - 1 - first_in_reversed)
        key_arr, rows = key_arr[last], rows[last]
    return key_arr, rows


def _as_query(vector: Vectors, dim: int) -> Vectors:
    query = np.asarray(vector, dtype=np.float32).reshape(-1)
    if query.shape[0] != dim:
        raise EmbeddingMismatch(f"index holds {dim}-dimensional vectors, got a query of {query.shape[0]}")
    return query


def _normalise(rows: Vectors) -> Vectors:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    result: Vectors = (rows / np.clip(norms, 1e-12, None)).astype(np.float32, copy=False)
    return result


def _write_atomically(path: PathLike, write: Callable[[str], None]) -> None:
    """Let ``write`` fill a temporary file in the target's directory, fsync it, rename it over ``path``."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class NumpyIndex:
    """Exact cosine search over a float32 matrix; recall is always 1.0.

    Rows live in a preallocated matrix that grows by half its size; removal moves the last row into the hole,
    so add and remove are O(1) per key and search is one matrix-vector product plus a partial sort.
    """

    def __init__(self, dim: int) -> None:
        if dim < 1:
            raise InvalidInput(f"index dim must be positive, got {dim}")
        self._dim = dim
        self._lock = threading.Lock()
        self._matrix: Vectors = np.empty((0, dim), dtype=np.float32)
        self._keys: npt.NDArray[np.int64] = np.empty(0, dtype=np.int64)
        self._count = 0
        self._slot: dict[int, int] = {}

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return self._count

    def add(self, keys: Keys, vectors: Vectors) -> None:
        key_arr, rows = _as_rows(keys, vectors, self._dim)
        rows = _normalise(rows)
        with self._lock:
            self._reserve(self._count + key_arr.shape[0])
            for key, row in zip(key_arr.tolist(), rows, strict=True):
                slot = self._slot.get(key)
                if slot is None:
                    slot = self._count
                    self._slot[key] = slot
                    self._keys[slot] = key
                    self._count += 1
                self._matrix[slot] = row

    def remove(self, keys: Keys) -> None:
        with self._lock:
            for key in _as_keys(keys).tolist():
                slot = self._slot.pop(key, None)
                if slot is None:
                    continue
                last = self._count - 1
                if slot != last:
                    moved = int(self._keys[last])
                    self._matrix[slot] = self._matrix[last]
                    self._keys[slot] = moved
                    self._slot[moved] = slot
                self._count = last

    def search(self, vector: Vectors, k: int) -> list[tuple[int, float]]:
        query = _normalise(_as_query(vector, self._dim))
        with self._lock:
            n = self._count
            if k <= 0 or n == 0:
                return []
            scores = _dots(self._matrix[:n], query)
            if k < n:
                top = np.argpartition(-scores, k - 1)[:k]
                top = top[np.argsort(-scores[top], kind="stable")]
            else:
                top = np.argsort(-scores, kind="stable")
            return list(zip(self._keys[top].tolist(), scores[top].tolist(), strict=True))

    def keys(self) -> npt.NDArray[np.int64]:
        with self._lock:
            return self._keys[: self._count].copy()

    def vectors(self) -> tuple[npt.NDArray[np.int64], Vectors]:
        """A copy of every (key, row) pair, in matching order."""
        with self._lock:
            return self._keys[: self._count].copy(), self._matrix[: self._count].copy()

    def vectors_of(self, keys: Collection[int]) -> tuple[npt.NDArray[np.int64], Vectors]:
        """The (key, row) pairs of those ``keys`` present, in matching order."""
        with self._lock:
            slots = [s for k in keys if (s := self._slot.get(int(k))) is not None]
            return self._keys[slots].copy(), self._matrix[slots].copy()

    def save(self, path: PathLike) -> None:
        def write(tmp: str) -> None:
            with open(tmp, "wb") as handle:
                handle.write(_NUMPY_HEADER.pack(_NUMPY_MAGIC, self._dim, self._count))
                handle.write(self._keys[: self._count].astype("<i8").tobytes())
                handle.write(self._matrix[: self._count].astype("<f4").tobytes())

        with self._lock:
            _write_atomically(path, write)

    @classmethod
    def load(cls, path: PathLike, dim: int) -> Self:
        try:
            with open(path, "rb") as handle:
                header = handle.read(_NUMPY_HEADER.size)
                if len(header) != _NUMPY_HEADER.size:
                    raise StoreError(f"{path} is not a memscribe vector index (truncated header)")
                magic, file_dim, count = _NUMPY_HEADER.unpack(header)
                if magic != _NUMPY_MAGIC:
                    raise StoreError(f"{path} is not a memscribe exact vector index")
                if file_dim != dim:
                    raise EmbeddingMismatch(f"{path} holds {file_dim}-dimensional vectors, expected {dim}")
                keys = np.fromfile(handle, dtype="<i8", count=count)
                matrix = np.fromfile(handle, dtype="<f4", count=count * dim)
                trailing = handle.read(1)
        except OSError as exc:
            raise StoreError(f"cannot read vector index {path}: {exc}") from exc
        if keys.shape[0] != count or matrix.shape[0] != count * dim or trailing:
            raise StoreError(f"{path} is damaged: its size does not match its header")
        index = cls(dim)
        # np.fromfile returns fresh writable arrays: adopt them rather than copy 1.5 KB per vector again.
        index._keys, index._matrix, index._count = keys, matrix.reshape(count, dim), count
        index._slot = {key: slot for slot, key in enumerate(keys.tolist())}
        if len(index._slot) != count:
            raise StoreError(f"{path} is damaged: it holds a key twice")
        return index

    def _reserve(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        capacity = max(needed, capacity + capacity // 2, 64)  # 1.5x: amortised O(1) with less slack
        matrix = np.empty((capacity, self._dim), dtype=np.float32)
        matrix[: self._count] = self._matrix[: self._count]
        keys = np.empty(capacity, dtype=np.int64)
        keys[: self._count] = self._keys[: self._count]
        self._matrix, self._keys = matrix, keys


# usearch marks empty graph slots with the all-ones key, so the int64 key -1 cannot be stored.
_USEARCH_FREE_KEY = -1


class USearchIndex:
    """Approximate cosine search on a usearch HNSW graph.

    Vectors are stored as f16 by default: half the memory of f32 for under a point of recall, while i8
    loses four to five points. The search depth of 128 (usearch's default is 64) lifts recall@10 on MiniLM
    embeddings from 0.97 to 0.99 for about 0.15 ms more per query (docs/vector-index.md). Removed keys leave
    slots that later adds reuse. The key -1 is reserved by usearch and refused.
    """

    def __init__(
        self,
        dim: int,
        *,
        dtype: str = "f16",
        connectivity: int = 16,
        expansion_add: int = 128,
        expansion_search: int = 128,
        threads: int = 2,
        _index: Any = None,
    ) -> None:
        from usearch.index import Index

        if dim < 1:
            raise InvalidInput(f"index dim must be positive, got {dim}")
        self._dim = dim
        self._threads = threads
        self._lock = threading.Lock()
        # Typed as Any: usearch's stubs declare the settable expansion_* properties read-only.
        if _index is None:
            _index = Index(
                ndim=dim,
                metric="cos",
                dtype=dtype,
                connectivity=connectivity,
                expansion_add=expansion_add,
                expansion_search=expansion_search,
            )
        self._index: Any = cast(Any, _index)
        # Search depth is a run-time setting, not stored in the file, so apply it to loaded indexes too.
        self._index.expansion_add = expansion_add
        self._index.expansion_search = expansion_search

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return len(self._index)

    def add(self, keys: Keys, vectors: Vectors) -> None:
        key_arr, rows = _as_rows(keys, vectors, self._dim)
        if key_arr.shape[0] == 0:
            return
        if (key_arr == _USEARCH_FREE_KEY).any():
            raise InvalidInput("the key -1 is reserved by the HNSW index")
        ids = key_arr.view(np.uint64)
        with self._lock:
            # usearch refuses duplicate keys, so replacing means removing the old entry first.
            present = np.asarray(self._index.contains(ids), dtype=bool).reshape(-1)
            if present.any():
                self._index.remove(ids[present])
            self._index.add(ids, rows, threads=self._threads)

    def remove(self, keys: Keys) -> None:
        """Delete keys. usearch frees a removed slot without clearing it, and a saved file would still hold
        the vector; so each present key is first overwritten with zeros (the re-add lands in the slot just
        freed), then removed. A forgotten vector leaves no byte in the next saved file."""
        ids = np.unique(_as_keys(keys)).view(np.uint64)
        if not ids.shape[0]:
            return
        with self._lock:
            present = ids[np.asarray(self._index.contains(ids), dtype=bool).reshape(-1)]
            if not present.shape[0]:
                return
            self._index.remove(present)
            self._index.add(present, np.zeros((present.shape[0], self._dim), dtype=np.float32), threads=self._threads)
            self._index.remove(present)

    def vectors_of(self, keys: Collection[int]) -> tuple[npt.NDArray[np.int64], Vectors]:
        """The (key, row) pairs of those ``keys`` present (rows as stored: f16 rounded), in matching order."""
        ids = np.unique(_as_keys(list(keys))).view(np.uint64)
        with self._lock:
            if not ids.shape[0]:
                return np.empty(0, dtype=np.int64), np.empty((0, self._dim), dtype=np.float32)
            present = ids[np.asarray(self._index.contains(ids), dtype=bool).reshape(-1)]
            if not present.shape[0]:
                return np.empty(0, dtype=np.int64), np.empty((0, self._dim), dtype=np.float32)
            rows = np.asarray(self._index.get(present, dtype=np.float32), dtype=np.float32)
        return present.view(np.int64).copy(), _normalise(rows.reshape(present.shape[0], self._dim))

    def search(self, vector: Vectors, k: int) -> list[tuple[int, float]]:
        query = _as_query(vector, self._dim)
        with self._lock:
            if k <= 0 or len(self._index) == 0:
                return []
            # Asked for the whole index (or more), rank it all: the graph may not reach every node.
            matches = self._index.search(query, k, threads=1, exact=k >= len(self._index))
        keys = np.asarray(matches.keys, dtype=np.uint64).view(np.int64)
        similarity = 1.0 - np.asarray(matches.distances, dtype=np.float64)  # usearch gives 1 - cosine
        return list(zip(keys.tolist(), similarity.tolist(), strict=True))

    def keys(self) -> npt.NDArray[np.int64]:
        with self._lock:
            return np.asarray(self._index.keys, dtype=np.uint64).view(np.int64).copy()

    def save(self, path: PathLike) -> None:
        with self._lock:
            _write_atomically(path, self._index.save)

    @classmethod
    def load(cls, path: PathLike, dim: int, **settings: Any) -> Self:
        """Open a saved index; ``settings`` (expansion_search, threads, ...) apply to this session only."""
        from usearch.index import Index

        try:
            meta = Index.metadata(os.fspath(path))
            if meta is None:
                raise StoreError(f"cannot read vector index {path}: missing or unreadable")
            if meta["dimensions"] != dim:
                found = meta["dimensions"]
                raise EmbeddingMismatch(f"{path} holds {found}-dimensional vectors, expected {dim}")
            index = Index.restore(os.fspath(path))
        except ValueError as exc:  # usearch's answer to a file that is not one of its indexes
            raise StoreError(f"{path} is not a usearch vector index: {exc}") from exc
        if index is None:
            raise StoreError(f"cannot read vector index {path}")
        return cls(dim, _index=index, **settings)


def load_index(path: PathLike, dim: int) -> NumpyIndex | USearchIndex:
    """Open a saved index of either kind, told apart by the exact index's file magic."""
    try:
        with open(path, "rb") as handle:
            magic = handle.read(len(_NUMPY_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read vector index {path}: {exc}") from exc
    if magic == _NUMPY_MAGIC:
        return NumpyIndex.load(path, dim)
    return USearchIndex.load(path, dim)


class AutoIndex:
    """The store's index: exact (:class:`NumpyIndex`) while small, HNSW (:class:`USearchIndex`) once the
    partition holds more than ``hnsw_threshold`` vectors.

    The switch happens inside the :meth:`add` that crosses the threshold and rebuilds the graph from the
    exact rows once (about 20 s for 50k vectors on two cores). A partition that shrinks again stays HNSW:
    switching back and forth around the threshold would rebuild on every crossing.
    """

    def __init__(self, dim: int, *, hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD, threads: int = 2) -> None:
        self._dim = dim
        self._threshold = hnsw_threshold
        self._threads = threads
        # Serialises mutations so that none is lost while the exact rows are copied into the graph.
        self._lock = threading.Lock()
        self._inner: NumpyIndex | USearchIndex = NumpyIndex(dim)

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def kind(self) -> str:
        """``"exact"`` or ``"hnsw"``."""
        return "exact" if isinstance(self._inner, NumpyIndex) else "hnsw"

    def __len__(self) -> int:
        return len(self._inner)

    def add(self, keys: Keys, vectors: Vectors) -> None:
        with self._lock:
            self._inner.add(keys, vectors)
            if isinstance(self._inner, NumpyIndex) and len(self._inner) > self._threshold:
                graph = USearchIndex(self._dim, threads=self._threads)
                graph.add(*self._inner.vectors())
                self._inner = graph

    def remove(self, keys: Keys) -> None:
        with self._lock:
            self._inner.remove(keys)

    def search(self, vector: Vectors, k: int) -> list[tuple[int, float]]:
        return self._inner.search(vector, k)

    def search_among(self, vector: Vectors, k: int, among: Collection[int]) -> list[tuple[int, float]]:
        """Exact search over the keys in ``among`` only (a filter on current versions or memory ids)."""
        return _exact_among(self._inner.vectors_of(among), _as_query(vector, self._dim), k)

    def keys(self) -> npt.NDArray[np.int64]:
        return self._inner.keys()

    def save(self, path: PathLike) -> None:
        with self._lock:
            self._inner.save(path)

    @classmethod
    def load(cls, path: PathLike, dim: int, *, hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD, threads: int = 2) -> Self:
        index = cls(dim, hnsw_threshold=hnsw_threshold, threads=threads)
        inner = load_index(path, dim)
        if isinstance(inner, USearchIndex):
            inner._threads = threads
        index._inner = inner
        return index
