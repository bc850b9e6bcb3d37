"""LocalIndex: the default :class:`~memscribe.stores.ports.VectorIndex`, one file per partition.

:class:`FileIndex` is the machinery: one in-process ANN index per partition, persisted as files; the FAISS
adapter reuses it with another index kind. In :class:`LocalIndex` each partition is an
:class:`~memscribe.stores.ann.AutoIndex` (exact numpy search while small, a usearch HNSW graph past
``hnsw_threshold``), saved in ``directory`` as ``<token>-<watermark>.index`` with a ``<token>.json`` naming
that file, its watermark, width and size. The index file is named by its watermark and the JSON names the
file, so a reader never pairs an index with another snapshot's watermark, whatever order concurrent savers
finish in. Removed vectors are overwritten before they are freed (see
:meth:`~memscribe.stores.ann.USearchIndex.remove`), so a saved file holds only the vectors present.
"""

from __future__ import annotations

import json
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from memscribe.core.vectors import Partition, partition_token
from memscribe.errors import MemscribeError
from memscribe.stores.ann import DEFAULT_HNSW_THRESHOLD, AutoIndex

if TYPE_CHECKING:
    from memscribe.core.vectors import Keys, Vectors

__all__ = ["FileIndex", "LocalIndex", "PartitionAnn"]


class PartitionAnn(Protocol):
    """What :class:`FileIndex` needs of one partition's in-process index."""

    @property
    def dim(self) -> int: ...
    def __len__(self) -> int: ...
    def add(self, keys: Keys, vectors: Vectors) -> None: ...
    def remove(self, keys: Keys) -> None: ...
    def search(self, vector: Vectors, k: int) -> list[tuple[int, float]]: ...
    def search_among(self, vector: Vectors, k: int, among: Collection[int]) -> list[tuple[int, float]]: ...
    def save(self, path: str | os.PathLike[str]) -> None: ...


class FileIndex(ABC):
    """Per-partition ANN indexes in memory, persisted as files in ``directory`` (created on first save).
    Subclasses say which index kind: :meth:`_new` makes one, :meth:`_open` opens a saved one."""

    suffix = ".index"

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._indexes: dict[Partition, PartitionAnn] = {}
        self._lock = threading.Lock()

    @abstractmethod
    def _new(self, dim: int) -> PartitionAnn:
        """An empty index of this kind."""

    @abstractmethod
    def _open(self, path: Path, dim: int) -> PartitionAnn:
        """A saved index of this kind; raises MemscribeError (or OSError, ValueError) when unreadable."""

    def load(self, partition: Partition, dim: int) -> int:
        index, watermark = self._read(partition, dim)
        with self._lock:
            self._indexes[partition] = index or self._new(dim)
        return watermark if index is not None else 0

    def upsert(self, partition: Partition, keys: Keys, vectors: Vectors) -> None:
        dim = int(vectors.shape[-1])
        with self._lock:
            index = self._indexes.get(partition)
            if index is None or index.dim != dim:
                index = self._indexes[partition] = self._new(dim)
        index.add(keys, vectors)

    def delete(self, partition: Partition, keys: Keys) -> None:
        with self._lock:
            index = self._indexes.get(partition)
        if index is not None:
            index.remove(keys)

    def search(
        self, partition: Partition, vector: Vectors, k: int, *, among: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        with self._lock:
            index = self._indexes.get(partition)
        if index is None or len(index) == 0 or k <= 0:
            return []
        if among is not None:
            return index.search_among(vector, k, among)
        return index.search(vector, min(k, len(index)))

    def persist(self, partition: Partition, watermark: int) -> None:
        with self._lock:
            index = self._indexes.get(partition)
        if index is None:
            return
        name = partition_token(partition)
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        index_name = f"{name}-{watermark}{self.suffix}"
        index.save(self.directory / index_name)
        os.chmod(self.directory / index_name, 0o600)
        meta = {"file": index_name, "watermark": watermark, "dim": index.dim, "size": len(index)}
        tmp = self.directory / f"{name}.json.{os.getpid()}.{threading.get_ident()}.tmp"
        with os.fdopen(os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600), "w") as fp:
            fp.write(json.dumps(meta))
        os.replace(tmp, self.directory / f"{name}.json")
        for old in self.directory.glob(f"{name}-*{self.suffix}"):
            if old.name != index_name:
                old.unlink(missing_ok=True)

    def drop(self, partition: Partition) -> None:
        with self._lock:
            self._indexes.pop(partition, None)
        name = partition_token(partition)
        if self.directory.exists():
            for path in [self.directory / f"{name}.json", *self.directory.glob(f"{name}-*{self.suffix}")]:
                path.unlink(missing_ok=True)

    def files(self) -> list[Path]:
        return sorted(self.directory.glob("*")) if self.directory.exists() else []

    def close(self) -> None:
        with self._lock:
            self._indexes.clear()

    def check_files(self, dim: int) -> list[str]:
        """Problems with the saved files: unreadable, another width, or not the size recorded. Each is
        harmless (the index is rebuilt from the record store on first use) but worth a ``memscribe reindex``."""
        problems = []
        for meta_path in sorted(self.directory.glob("p*.json")) if self.directory.exists() else []:
            try:
                meta = json.loads(meta_path.read_text())
                index = self._open(self.directory / meta["file"], dim)
                if len(index) != meta["size"]:
                    problems.append(f"vector index {meta_path.stem}: holds {len(index)} vectors, not {meta['size']}")
            except (OSError, ValueError, KeyError, TypeError, MemscribeError) as exc:
                problems.append(f"vector index {meta_path.stem}: {exc} (rebuilt on first use; or run reindex)")
        return problems

    def _read(self, partition: Partition, dim: int) -> tuple[PartitionAnn | None, int]:
        try:
            meta = json.loads((self.directory / f"{partition_token(partition)}.json").read_text())
            if meta["dim"] != dim:
                return None, 0
            index = self._open(self.directory / meta["file"], dim)
            if len(index) != meta["size"]:
                return None, 0
            return index, int(meta["watermark"])
        except (OSError, ValueError, KeyError, TypeError, MemscribeError):
            return None, 0  # absent or unreadable: rebuilt by replaying the whole log


class LocalIndex(FileIndex):
    """The default: exact numpy search while a partition is small, usearch HNSW past ``hnsw_threshold``."""

    def __init__(
        self, directory: str | os.PathLike[str], *, hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD, threads: int = 2
    ) -> None:
        super().__init__(directory)
        self.hnsw_threshold = hnsw_threshold
        self.threads = threads

    def _new(self, dim: int) -> AutoIndex:
        return AutoIndex(dim, hnsw_threshold=self.hnsw_threshold, threads=self.threads)

    def _open(self, path: Path, dim: int) -> AutoIndex:
        return AutoIndex.load(path, dim, hnsw_threshold=self.hnsw_threshold, threads=self.threads)
