"""ChromaIndex: the :class:`~memscribe.stores.ports.VectorIndex` on Chroma (``memscribe[chroma]``, chromadb).

One collection (cosine space) holds every partition; each record's metadata carries its partition's token
and its row key, and every query filters on the token, so a search never sees another partition's
records. Record ids are ``<token>:<key>``. The log position each partition reflects is kept in a small
``<collection>_state`` collection. Memscribe hands Chroma vectors only: no embedding function runs.

- ``ChromaIndex(path="dir")``: Chroma's persistent client, files in ``dir``.
- ``ChromaIndex(url="http://host:8000")``: a Chroma server.
- ``ChromaIndex()``: Chroma in memory, for tests.

**Erasure does not reach Chroma's own files.** Chroma keeps each written vector in its write-ahead log
(``embeddings_queue`` in ``chroma.sqlite3``) after the record is deleted, and its HNSW segment marks deleted
entries without overwriting them; memscribe does not rewrite Chroma's internal files. So after a forget or
a purge the vector (never the text: Chroma is given vectors and numeric keys only) may stay on disk until
Chroma compacts it. Where forget and purge must leave no byte, use the default index, FAISS or Qdrant. The
contract suite records this as its one expected failure.

Chroma's errors are translated into :class:`~memscribe.errors.StoreError` at this boundary.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import numpy as np

from memscribe.core.vectors import Partition, partition_token
from memscribe.errors import ConfigError, EmbeddingMismatch, MemscribeError, StoreError

if TYPE_CHECKING:
    from memscribe.core.vectors import Keys, Vectors

__all__ = ["ChromaIndex"]

_BATCH = 1_000
T = TypeVar("T")


class ChromaIndex:
    """Partitions of one Chroma collection, told apart by a metadata filter."""

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        url: str | None = None,
        collection: str = "memscribe",
        api_key: str | None = None,
    ) -> None:
        if url is not None and path is not None:
            raise ConfigError("ChromaIndex takes a server url or a local path, not both")
        try:
            import chromadb  # noqa: F401
        except ImportError as exc:
            raise ConfigError("the Chroma vector index needs `pip install 'memscribe[chroma]'`") from exc
        self.path = Path(path) if path is not None else None
        self.url = url
        self.collection = collection
        self._api_key = api_key  # never logged or shown in repr
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        self._dim: int | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        where = self.url or (str(self.path) if self.path else ":memory:")
        return f"ChromaIndex({where!r}, collection={self.collection!r})"

    # -- the port ------------------------------------------------------------------------------------

    def load(self, partition: Partition, dim: int) -> int:
        self._dim = self._dim or dim
        if dim != self._dim:
            raise EmbeddingMismatch(f"Chroma collection {self.collection!r} holds {self._dim}-dimensional vectors")
        found = self._call(lambda: self._state().get(ids=[partition_token(partition)], include=["metadatas"]))
        metas = found.get("metadatas") or []
        if not metas or not metas[0]:
            return 0
        return int(metas[0].get("watermark", 0)) if metas[0].get("dim") == dim else 0

    def upsert(self, partition: Partition, keys: Keys, vectors: Vectors) -> None:
        rows = np.asarray(vectors, dtype=np.float32).reshape(len(keys), -1)
        self._dim = self._dim or int(rows.shape[1])
        token = partition_token(partition)
        key_list = [int(k) for k in np.asarray(keys, dtype=np.int64).tolist()]
        last = {key: i for i, key in enumerate(key_list)}  # a key given twice keeps its last row
        order = sorted(last.values())
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            ids = [f"{token}:{key_list[i]}" for i in chunk]
            metas = [{"part": token, "key": key_list[i]} for i in chunk]
            embeddings = rows[chunk]
            self._call(lambda: self._main().upsert(ids=ids, embeddings=embeddings, metadatas=metas))  # noqa: B023

    def delete(self, partition: Partition, keys: Keys) -> None:
        token = partition_token(partition)
        ids = [f"{token}:{int(k)}" for k in np.asarray(keys, dtype=np.int64).tolist()]
        for start in range(0, len(ids), _BATCH):
            chunk = ids[start : start + _BATCH]
            self._call(lambda: self._main().delete(ids=chunk))  # noqa: B023

    def search(
        self, partition: Partition, vector: Vectors, k: int, *, among: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        if k <= 0 or (among is not None and not among):
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        if self._dim is not None and query.shape[1] != self._dim:
            raise EmbeddingMismatch(f"index holds {self._dim}-dimensional vectors, got a query of {query.shape[1]}")
        token = partition_token(partition)
        where: dict[str, Any] = {"part": token}
        if among is not None:
            where = {"$and": [{"part": token}, {"key": {"$in": sorted(int(a) for a in among)}}]}
        size = self._call(lambda: self._main().count())
        if not size:
            return []
        result = self._call(
            lambda: self._main().query(
                query_embeddings=query, n_results=min(k, size), where=where, include=["metadatas", "distances"]
            )
        )
        metas, distances = (result.get("metadatas") or [[]])[0], (result.get("distances") or [[]])[0]
        return [(int(m["key"]), 1.0 - float(d)) for m, d in zip(metas, distances, strict=True)]

    def persist(self, partition: Partition, watermark: int) -> None:
        if self._dim is None:
            return
        meta = {"watermark": watermark, "dim": self._dim}
        token = partition_token(partition)
        self._call(lambda: self._state().upsert(ids=[token], embeddings=[[1.0]], metadatas=[meta]))

    def drop(self, partition: Partition) -> None:
        token = partition_token(partition)
        self._call(lambda: self._main().delete(where={"part": token}))
        self._call(lambda: self._state().delete(ids=[token]))

    def files(self) -> list[Path]:
        if self.path is None or not self.path.exists():
            return []
        return sorted(p for p in self.path.rglob("*") if p.is_file())

    def close(self) -> None:
        with self._lock:
            self._client, self._collections, self._dim = None, {}, None

    # -- helpers ------------------------------------------------------------------------------------

    def _connect(self) -> Any:
        with self._lock:
            if self._client is None:
                import chromadb
                from chromadb.config import Settings

                settings = Settings(anonymized_telemetry=False)  # no telemetry, ever
                if self.url is not None:
                    parts = urlsplit(self.url)
                    headers = {"X-Chroma-Token": self._api_key} if self._api_key else None
                    self._client = chromadb.HttpClient(
                        host=parts.hostname or "localhost", port=parts.port or 8000,
                        ssl=parts.scheme == "https", headers=headers, settings=settings,
                    )  # fmt: skip
                elif self.path is not None:
                    self._client = chromadb.PersistentClient(path=str(self.path), settings=settings)
                else:
                    self._client = chromadb.EphemeralClient(settings=settings)
            return self._client

    def _get(self, name: str) -> Any:
        client = self._connect()
        with self._lock:
            if name not in self._collections:
                self._collections[name] = client.get_or_create_collection(
                    name, metadata={"hnsw:space": "cosine"}, embedding_function=None
                )
            return self._collections[name]

    def _main(self) -> Any:
        return self._get(self.collection)

    def _state(self) -> Any:
        return self._get(f"{self.collection}_state")

    def _call(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except MemscribeError:
            raise
        except Exception as exc:  # chromadb raises its own, ValueError, and its Rust bindings' errors
            raise StoreError(f"Chroma ({self!r}): {type(exc).__name__}: {exc}") from exc
