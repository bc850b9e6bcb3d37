"""ChromaIndex: the :class:`~memscribe.stores.ports.VectorIndex` on Chroma (``memscribe[chroma]``, chromadb).

One collection per partition, ``<collection>-<token>`` (cosine space); each record's id is its row key and
its metadata carries the key for the ``among`` filter. The log position each partition reflects is kept in a
small ``<collection>_state`` collection. Memscribe hands Chroma vectors only: no embedding function runs.

- ``ChromaIndex(path="dir")``: Chroma's persistent client, files in ``dir``.
- ``ChromaIndex(url="http://host:8000")``: a Chroma server.
- ``ChromaIndex()``: Chroma in memory, for tests.

**Erasure (persistent client).** Chroma's own delete does not erase: it keeps each written vector in its
write-ahead log (``embeddings_queue`` in ``chroma.sqlite3``) until the HNSW segment is flushed, the flushed
segment only marks a deleted entry, SQLite leaves deleted rows in free pages, and ``delete_collection``
leaves the collection's HNSW directory on disk (checked with chromadb 1.5.9). So this adapter erases for
it: a ``persist`` after a delete rebuilds the partition's collection from its remaining vectors
(``delete_collection`` + a fresh collection), and a ``persist`` after a delete and every ``drop`` then
removes the HNSW directories no live segment owns and rewrites ``chroma.sqlite3`` (``VACUUM``). The cost is a copy
of the partition's vectors per persist that follows a delete (deletes also come from superseded versions;
the engine persists every few thousand log entries, at close, and right after a forget or purge). A crash
mid-rebuild is safe: the partition's saved watermark is cleared first, so the next start rebuilds it from
the record store's log. **A Chroma server's files are out of reach**: with ``url=``, deletes go through the
API and each forget/purge logs a warning that the server's files are not verified erased.

Chroma's errors are translated into :class:`~memscribe.errors.StoreError` at this boundary.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import sqlite3
import threading
import time
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

log = logging.getLogger(__name__)

_BATCH = 1_000
_LAYOUT = "collection-per-partition"  # saved with each watermark: a state written by another layout reads as 0
T = TypeVar("T")


class ChromaIndex:
    """One Chroma collection per partition."""

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
        self._deleted: set[str] = set()  # partitions' collections deleted from since their last rewrite

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
        if not metas or not metas[0] or metas[0].get("layout") != _LAYOUT:
            return 0
        return int(metas[0].get("watermark", 0)) if metas[0].get("dim") == dim else 0

    def upsert(self, partition: Partition, keys: Keys, vectors: Vectors) -> None:
        rows = np.asarray(vectors, dtype=np.float32).reshape(len(keys), -1)
        self._dim = self._dim or int(rows.shape[1])
        key_list = [int(k) for k in np.asarray(keys, dtype=np.int64).tolist()]
        last = {key: i for i, key in enumerate(key_list)}  # a key given twice keeps its last row
        order = sorted(last.values())
        self._put(self._name(partition), [key_list[i] for i in order], rows[order])

    def delete(self, partition: Partition, keys: Keys) -> None:
        name = self._name(partition)
        ids = [str(int(k)) for k in np.asarray(keys, dtype=np.int64).tolist()]
        for start in range(0, len(ids), _BATCH):
            chunk = ids[start : start + _BATCH]
            self._call(lambda: self._get(name).delete(ids=chunk))  # noqa: B023
        if ids:
            self._deleted.add(name)

    def search(
        self, partition: Partition, vector: Vectors, k: int, *, among: Collection[int] | None = None
    ) -> list[tuple[int, float]]:
        if k <= 0 or (among is not None and not among):
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        if self._dim is not None and query.shape[1] != self._dim:
            raise EmbeddingMismatch(f"index holds {self._dim}-dimensional vectors, got a query of {query.shape[1]}")
        target = self._get(self._name(partition))
        where = {"key": {"$in": sorted(int(a) for a in among)}} if among is not None else None
        size = self._call(lambda: target.count())
        if not size:
            return []
        result = self._call(
            lambda: target.query(
                query_embeddings=query, n_results=min(k, size), where=where, include=["metadatas", "distances"]
            )
        )
        metas, distances = (result.get("metadatas") or [[]])[0], (result.get("distances") or [[]])[0]
        return [(int(m["key"]), 1.0 - float(d)) for m, d in zip(metas, distances, strict=True)]

    def persist(self, partition: Partition, watermark: int) -> None:
        if self._dim is None:
            return
        name = self._name(partition)
        if name in self._deleted:
            self._rewrite(partition)
        meta = {"watermark": watermark, "dim": self._dim, "layout": _LAYOUT}
        token = partition_token(partition)
        self._call(lambda: self._state().upsert(ids=[token], embeddings=[[1.0]], metadatas=[meta]))

    def drop(self, partition: Partition) -> None:
        name = self._name(partition)
        self._call(lambda: self._state().delete(ids=[partition_token(partition)]))
        self._delete_collection(name)
        self._deleted.discard(name)
        self._scrub()

    def files(self) -> list[Path]:
        if self.path is None or not self.path.exists():
            return []
        return sorted(p for p in self.path.rglob("*") if p.is_file())

    def close(self) -> None:
        with self._lock:
            self._client, self._collections, self._dim = None, {}, None

    # -- erasure ------------------------------------------------------------------------------------

    def _rewrite(self, partition: Partition) -> None:
        """Rebuild the partition's collection from its remaining vectors, so that no Chroma file keeps a
        deleted one (Chroma's delete only marks it); then scrub. The saved watermark goes first: a crash
        in between makes the next load rebuild the partition from the record store's log."""
        name = self._name(partition)
        self._deleted.discard(name)
        if self.path is None and self.url is None:
            return  # in memory: no file to erase from
        keys, vectors = self._everything(name)
        self._call(lambda: self._state().delete(ids=[partition_token(partition)]))
        self._delete_collection(name)
        self._put(name, keys, vectors)
        self._scrub()

    def _everything(self, name: str) -> tuple[list[int], np.ndarray]:
        target = self._get(name)
        keys: list[int] = []
        parts: list[np.ndarray] = []
        offset = 0
        while True:
            page = self._call(
                lambda: target.get(include=["embeddings", "metadatas"], limit=_BATCH * 5, offset=offset)  # noqa: B023
            )
            metas = page.get("metadatas") or []
            if not metas:
                break
            keys += [int(m["key"]) for m in metas]
            parts.append(np.asarray(page["embeddings"], dtype=np.float32))
            offset += len(metas)
        matrix = np.concatenate(parts) if parts else np.zeros((0, self._dim or 1), dtype=np.float32)
        return keys, matrix

    def _delete_collection(self, name: str) -> None:
        client = self._connect()
        with self._lock:
            self._collections.pop(name, None)
        with contextlib.suppress(Exception):  # chromadb raises NotFoundError/ValueError for a missing one
            client.delete_collection(name)

    def _scrub(self) -> None:
        """Remove HNSW directories that no live segment owns (``delete_collection`` leaves them) and
        ``VACUUM`` Chroma's SQLite file, so freed pages keep no deleted vector."""
        if self.path is None:
            if self.url is not None:
                log.warning("%r: a Chroma server's files are not verified erased after a forget or purge", self)
            return
        database = self.path / "chroma.sqlite3"
        if not database.exists():
            return
        for attempt in range(50):
            try:
                with contextlib.closing(sqlite3.connect(database, timeout=5.0)) as conn:
                    live = {row[0] for row in conn.execute("SELECT id FROM segments")}
                    for entry in self.path.iterdir():
                        if entry.is_dir() and entry.name not in live and _is_segment_dir(entry):
                            shutil.rmtree(entry)
                    conn.execute("VACUUM")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 49:
                    raise StoreError(f"Chroma ({self!r}): could not rewrite chroma.sqlite3: {exc}") from exc
                time.sleep(0.1)

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

    def _name(self, partition: Partition) -> str:
        return f"{self.collection}-{partition_token(partition)}"

    def _put(self, name: str, keys: list[int], rows: np.ndarray) -> None:
        target = self._get(name)
        for start in range(0, len(keys), _BATCH):
            chunk = keys[start : start + _BATCH]
            ids, metas = [str(k) for k in chunk], [{"key": k} for k in chunk]
            embeddings = rows[start : start + _BATCH]
            self._call(lambda: target.upsert(ids=ids, embeddings=embeddings, metadatas=metas))  # noqa: B023

    def _state(self) -> Any:
        return self._get(f"{self.collection}_state")

    def _call(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except MemscribeError:
            raise
        except Exception as exc:  # chromadb raises its own, ValueError, and its Rust bindings' errors
            raise StoreError(f"Chroma ({self!r}): {type(exc).__name__}: {exc}") from exc


def _is_segment_dir(entry: Path) -> bool:
    """Chroma names each HNSW segment's directory by the segment's UUID."""
    import uuid

    try:
        uuid.UUID(entry.name)
    except ValueError:
        return False
    return (entry / "header.bin").exists() or not any(entry.iterdir())
