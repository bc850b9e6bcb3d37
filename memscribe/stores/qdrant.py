"""QdrantIndex: the :class:`~memscribe.stores.ports.VectorIndex` on Qdrant (``memscribe[qdrant]``).

One collection holds every partition; each point carries its partition's token and its row key as payload,
and every search filters on the token (a keyword payload index on a server), so a query never sees
another partition's points. Point ids are UUIDs derived from (partition, key): two partitions may use
the same key. The log position each partition reflects is kept in a small ``<collection>_state``
collection, one point per partition.

- ``QdrantIndex(url="http://host:6333")``: a Qdrant server or cluster (shared by many processes; each
  replays the record store's log, which is idempotent).
- ``QdrantIndex(path="dir")``: qdrant-client's local mode, files in ``dir``, one process at a time (the
  client locks the folder). Local mode keeps points in SQLite; where its build does not zero deleted rows
  (secure delete off by default), ``persist`` and ``drop`` after a delete rewrite those files (VACUUM):
  no file keeps an erased vector either way.
- ``QdrantIndex()``: local mode in memory, for tests.

Qdrant's errors are translated into :class:`~memscribe.errors.StoreError` at this boundary.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from memscribe.core.vectors import Partition, partition_token
from memscribe.errors import ConfigError, EmbeddingMismatch, MemscribeError, StoreError

if TYPE_CHECKING:
    from memscribe.core.vectors import Keys, Vectors

__all__ = ["QdrantIndex"]

_NAMESPACE = uuid.UUID("6f1d0c3e-5b8a-4f47-9a53-0d6c2b7e9a11")
_BATCH = 512
T = TypeVar("T")


def _point_id(token: str, key: int) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{token}:{key}"))


class QdrantIndex:
    """Partitions of one Qdrant collection, told apart by a payload filter."""

    def __init__(
        self,
        url: str | None = None,
        *,
        path: str | Path | None = None,
        collection: str = "memscribe",
        api_key: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        if url is not None and path is not None:
            raise ConfigError("QdrantIndex takes a server url or a local path, not both")
        try:
            import qdrant_client  # noqa: F401
        except ImportError as exc:
            raise ConfigError("the Qdrant vector index needs `pip install 'memscribe[qdrant]'`") from exc
        self.url = url
        self.path = Path(path) if path is not None else None
        self.collection = collection
        self._api_key = api_key  # kept for reconnects only; never logged or shown in repr
        self._timeout = timeout
        self._client: Any = None
        self._dim: int | None = None
        self._lock = threading.Lock()
        self._deleted = False  # local mode: something was deleted since the files were last rewritten

    def __repr__(self) -> str:
        where = self.url or (str(self.path) if self.path else ":memory:")
        return f"QdrantIndex({where!r}, collection={self.collection!r})"

    # -- the port ------------------------------------------------------------------------------------

    def load(self, partition: Partition, dim: int) -> int:
        self._ensure(dim)
        found = self._call(lambda c: c.retrieve(self._state_name, ids=[self._state_id(partition)], with_payload=True))
        if not found:
            return 0
        payload = found[0].payload or {}
        return int(payload.get("watermark", 0)) if payload.get("dim") == dim else 0

    def upsert(self, partition: Partition, keys: Keys, vectors: Vectors) -> None:
        from qdrant_client import models

        rows = np.asarray(vectors, dtype=np.float32).reshape(len(keys), -1)
        self._ensure(int(rows.shape[1]))
        token = partition_token(partition)
        key_list = [int(k) for k in np.asarray(keys, dtype=np.int64).tolist()]
        for start in range(0, len(key_list), _BATCH):
            points = [
                models.PointStruct(id=_point_id(token, key), vector=row.tolist(), payload={"part": token, "key": key})
                for key, row in zip(key_list[start : start + _BATCH], rows[start : start + _BATCH], strict=True)
            ]
            self._invoke("upsert", self.collection, points=points, wait=True)

    def delete(self, partition: Partition, keys: Keys) -> None:
        from qdrant_client import models

        if self._dim is None and not self._exists(self.collection):
            return
        token = partition_token(partition)
        ids = [_point_id(token, int(k)) for k in np.asarray(keys, dtype=np.int64).tolist()]
        for start in range(0, len(ids), _BATCH):
            selector = models.PointIdsList(points=list(ids[start : start + _BATCH]))
            self._invoke("delete", self.collection, points_selector=selector, wait=True)
        self._deleted = self._deleted or bool(ids)

    def search(
        self, partition: Partition, vector: Vectors, k: int, *, among: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        from qdrant_client import models

        if k <= 0 or (among is not None and not among) or (self._dim is None and not self._exists(self.collection)):
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self._dim is not None and query.shape[0] != self._dim:
            raise EmbeddingMismatch(f"index holds {self._dim}-dimensional vectors, got a query of {query.shape[0]}")
        must: list[Any] = [models.FieldCondition(key="part", match=models.MatchValue(value=partition_token(partition)))]
        if among is not None:
            must.append(models.FieldCondition(key="key", match=models.MatchAny(any=[int(a) for a in among])))
        result = self._call(
            lambda c: c.query_points(
                self.collection, query=query.tolist(), limit=k, query_filter=models.Filter(must=must),
                with_payload=["key"],
            )
        )  # fmt: skip
        return [(int((p.payload or {})["key"]), float(p.score)) for p in result.points]

    def persist(self, partition: Partition, watermark: int) -> None:
        from qdrant_client import models

        if self._dim is None:
            return
        state = models.PointStruct(
            id=self._state_id(partition), vector=[1.0], payload={"watermark": watermark, "dim": self._dim}
        )
        self._call(lambda c: c.upsert(self._state_name, points=[state], wait=True))
        self._rewrite_files()

    def drop(self, partition: Partition) -> None:
        from qdrant_client import models

        token = partition_token(partition)
        if self._exists(self.collection):
            flt = models.Filter(must=[models.FieldCondition(key="part", match=models.MatchValue(value=token))])
            selector = models.FilterSelector(filter=flt)
            self._call(lambda c: c.delete(self.collection, points_selector=selector, wait=True))
        if self._exists(self._state_name):
            ids = models.PointIdsList(points=[self._state_id(partition)])
            self._call(lambda c: c.delete(self._state_name, points_selector=ids, wait=True))
        self._deleted = True
        self._rewrite_files()

    def files(self) -> list[Path]:
        if self.path is None or not self.path.exists():
            return []
        return sorted(p for p in self.path.rglob("*") if p.is_file())

    def close(self) -> None:
        with self._lock:
            client, self._client, self._dim = self._client, None, None
        if client is not None:
            client.close()

    # -- helpers ------------------------------------------------------------------------------------

    @property
    def _state_name(self) -> str:
        return f"{self.collection}_state"

    def _state_id(self, partition: Partition) -> str:
        return str(uuid.uuid5(_NAMESPACE, partition_token(partition)))

    def _connect(self) -> Any:
        with self._lock:
            if self._client is None:
                from qdrant_client import QdrantClient

                if self.url is not None:
                    self._client = QdrantClient(url=self.url, api_key=self._api_key, timeout=int(self._timeout))
                elif self.path is not None:
                    self._client = QdrantClient(path=str(self.path))
                else:
                    self._client = QdrantClient(location=":memory:")
            return self._client

    def _call(self, fn: Callable[[Any], T]) -> T:
        client = self._connect()
        try:
            return fn(client)
        except MemscribeError:
            raise
        except Exception as exc:  # qdrant-client raises its own, httpx's, grpc's and RuntimeError
            raise StoreError(f"Qdrant ({self!r}): {type(exc).__name__}: {exc}") from exc

    def _invoke(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._call(lambda c: getattr(c, method)(*args, **kwargs))

    def _exists(self, name: str) -> bool:
        return bool(self._call(lambda c: c.collection_exists(name)))

    def _ensure(self, dim: int) -> None:
        from qdrant_client import models

        if self._dim == dim:
            return
        if self._exists(self.collection):
            info = self._call(lambda c: c.get_collection(self.collection))
            size = info.config.params.vectors.size
            if size != dim:
                raise EmbeddingMismatch(
                    f"Qdrant collection {self.collection!r} holds {size}-dimensional vectors, not {dim}: use "
                    "another collection name for this embedder, or delete the collection and reindex"
                )
        else:
            params = models.VectorParams(size=dim, distance=models.Distance.COSINE)
            self._call(lambda c: c.create_collection(self.collection, vectors_config=params))
            if self.url is not None:  # local mode filters by scanning; a server wants the payload indexed
                for name, schema in (("part", models.PayloadSchemaType.KEYWORD),
                                     ("key", models.PayloadSchemaType.INTEGER)):  # fmt: skip
                    self._invoke("create_payload_index", self.collection, name, schema)
        if not self._exists(self._state_name):
            params = models.VectorParams(size=1, distance=models.Distance.DOT)
            self._call(lambda c: c.create_collection(self._state_name, vectors_config=params))
        self._dim = dim

    def _rewrite_files(self) -> None:
        """Local mode: VACUUM each collection's SQLite file after deletes, so freed pages keep no vector."""
        if self.path is None or not self._deleted:
            return
        for storage in self._storage_files():
            conn = sqlite3.connect(storage, timeout=30)
            try:
                # A SQLite built with secure delete on by default (Debian's) zeroes deleted rows itself: the
                # qdrant-client connection shares that default, and the rewrite would only cost time.
                if not conn.execute("PRAGMA secure_delete").fetchone()[0]:
                    conn.execute("VACUUM")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot rewrite {storage} after a delete: {exc}") from exc
            finally:
                conn.close()
        self._deleted = False

    def _storage_files(self) -> Iterator[Path]:
        assert self.path is not None
        for name in (self.collection, self._state_name):
            storage = self.path / "collection" / name / "storage.sqlite"
            if storage.exists():
                yield storage
