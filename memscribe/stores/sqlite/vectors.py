"""Per-partition vector indexes kept in step with SQLite.

SQLite holds every vector (as a BLOB) and ``vector_log``, the order in which current active rows entered
and left. Each partition's in-memory index remembers the last log sequence it applied (its watermark);
before a search it replays newer entries, so writes from other processes show up without a rebuild.
An index is saved beside the database with its watermark and reloaded on the next start; a missing or
unreadable file is rebuilt from SQLite.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memscribe.errors import MemscribeError
from memscribe.stores.ann import AutoIndex
from memscribe.stores.ports import Partition

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = ["VectorCache", "partition_token"]


def partition_token(partition: Partition) -> str:
    """A stable, content-free name for a partition (used in FTS and index file names)."""
    return "p" + hashlib.sha256("\x00".join(partition).encode()).hexdigest()[:24]


class _Entry:
    def __init__(self, index: AutoIndex, watermark: int) -> None:
        self.index = index
        self.watermark = watermark
        self.dirty = 0
        self.lock = threading.Lock()


class VectorCache:
    """Lazily loaded, incrementally synced ANN indexes, one per partition."""

    def __init__(self, directory: Path, connect: Callable[[], sqlite3.Connection], *, save_every: int = 5_000) -> None:
        self.directory = directory
        self.connect = connect  # the database whose vector_log says whether a partition was purged
        self.save_every = save_every
        self._entries: dict[Partition, _Entry] = {}
        self._lock = threading.Lock()

    def search(
        self, conn: sqlite3.Connection, partition: Partition, dim: int, vector: Vectors, k: int
    ) -> list[tuple[int, float]]:
        entry = self._entry(conn, partition, dim)
        with entry.lock:
            self._sync(conn, partition, entry)
            if len(entry.index) == 0:
                return []
            return entry.index.search(vector, min(k, len(entry.index)))

    def size(self, conn: sqlite3.Connection, partition: Partition, dim: int) -> int:
        entry = self._entry(conn, partition, dim)
        with entry.lock:
            self._sync(conn, partition, entry)
            return len(entry.index)

    def rebuild(
        self, conn: sqlite3.Connection, partition: Partition, dim: int, progress: Callable[[int], None] | None = None
    ) -> int:
        """Build the partition's index afresh from SQLite, save it, and return its size. ``progress`` is
        called with the number of vectors added after each batch."""
        entry = _Entry(AutoIndex(dim), 0)  # private until published below: no lock needed to fill it
        self._sync(conn, partition, entry, progress)
        self._save(partition, entry)
        with self._lock:
            self._entries[partition] = entry
        return len(entry.index)

    def drop(self, partition: Partition) -> list[Path]:
        """Forget a partition's index and delete its files (purge). Returns the paths removed."""
        with self._lock:
            self._entries.pop(partition, None)
        removed = []
        for path in self._paths(partition):
            if path.exists():
                path.unlink()
                removed.append(path)
        return removed

    def check_files(self, dim: int) -> list[str]:
        """Problems with the saved index files: unreadable, another width, or not the size recorded. Each is
        harmless (the index is rebuilt from SQLite on first use) but worth a ``memscribe reindex``."""
        problems = []
        for meta_path in sorted(self.directory.glob("p*.json")) if self.directory.exists() else []:
            try:
                meta = json.loads(meta_path.read_text())
                index = AutoIndex.load(self.directory / meta["file"], dim)
                if len(index) != meta["size"]:
                    problems.append(f"vector index {meta_path.stem}: holds {len(index)} vectors, not {meta['size']}")
            except (OSError, ValueError, KeyError, TypeError, MemscribeError) as exc:
                problems.append(f"vector index {meta_path.stem}: {exc} (rebuilt on first use; or run reindex)")
        return problems

    def files(self) -> list[Path]:
        return sorted(self.directory.glob("*")) if self.directory.exists() else []

    def save_all(self) -> None:
        """Save every changed index whose partition still exists (a purge by another process since this one
        loaded it means its vectors must not come back)."""
        conn = self.connect()
        with self._lock:
            entries = list(self._entries.items())
        for partition, entry in entries:
            with entry.lock:
                if entry.dirty and self._still_valid(conn, partition, entry):
                    self._save(partition, entry)

    def _still_valid(self, conn: sqlite3.Connection, partition: Partition, entry: _Entry) -> bool:
        """Whether the log entry the index was last synced to is still there. Log sequence numbers are never
        reused and only a purge deletes a partition's log, so a missing watermark row means: purged."""
        if entry.watermark == 0:
            return True
        row = conn.execute(
            "SELECT 1 FROM vector_log WHERE seq = ? AND tenant = ? AND user_id = ?", (entry.watermark, *partition)
        ).fetchone()
        return row is not None

    def _reset_if_purged(self, conn: sqlite3.Connection, partition: Partition, entry: _Entry) -> None:
        if not self._still_valid(conn, partition, entry):
            entry.index, entry.watermark, entry.dirty = AutoIndex(entry.index.dim), 0, 0
            for path in self._paths(partition):
                path.unlink(missing_ok=True)

    def _entry(self, conn: sqlite3.Connection, partition: Partition, dim: int) -> _Entry:
        with self._lock:
            entry = self._entries.get(partition)
            if entry is None or entry.index.dim != dim:
                entry = self._load(partition, dim) or _Entry(AutoIndex(dim), 0)
                self._entries[partition] = entry
            return entry

    def _sync(
        self,
        conn: sqlite3.Connection,
        partition: Partition,
        entry: _Entry,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self._reset_if_purged(conn, partition, entry)
        rows = conn.execute(
            "SELECT seq, key, op FROM vector_log WHERE tenant = ? AND user_id = ? AND seq > ? ORDER BY seq",
            (*partition, entry.watermark),
        ).fetchall()
        if not rows:
            return
        live: dict[int, bool] = {}
        for _, key, op in rows:
            live[key] = op == "add"
        removed = [k for k, alive in live.items() if not alive]
        if removed:
            entry.index.remove(removed)
        added = [k for k, alive in live.items() if alive]
        for start in range(0, len(added), 5_000):
            chunk = added[start : start + 5_000]
            marks = ",".join("?" * len(chunk))
            found = conn.execute(f"SELECT rowid, vector FROM vectors WHERE rowid IN ({marks})", chunk).fetchall()
            if found:
                keys = [r[0] for r in found]
                matrix = np.frombuffer(b"".join(r[1] for r in found), dtype=np.float32)
                entry.index.add(keys, matrix.reshape(len(found), -1))
            if progress is not None:
                progress(len(chunk))
        entry.watermark = rows[-1][0]
        entry.dirty += len(rows)
        if entry.dirty >= self.save_every:
            self._save(partition, entry)

    def _paths(self, partition: Partition) -> list[Path]:
        name = partition_token(partition)
        return [self.directory / f"{name}.json", *sorted(self.directory.glob(f"{name}-*.index"))]

    def _save(self, partition: Partition, entry: _Entry) -> None:
        # The index file is named by its watermark and the JSON names the file, so a reader never pairs an
        # index with another snapshot's watermark, whatever order concurrent savers finish in.
        name = partition_token(partition)
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        index_name = f"{name}-{entry.watermark}.index"
        entry.index.save(self.directory / index_name)
        os.chmod(self.directory / index_name, 0o600)
        meta_path = self.directory / f"{name}.json"
        tmp = self.directory / f"{name}.json.{os.getpid()}.tmp"
        meta = {
            "file": index_name,
            "watermark": entry.watermark,
            "dim": entry.index.dim,
            "size": len(entry.index),
        }
        with os.fdopen(os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600), "w") as fp:
            fp.write(json.dumps(meta))
        os.replace(tmp, meta_path)
        entry.dirty = 0
        for old in self.directory.glob(f"{name}-*.index"):
            if old.name != index_name:
                old.unlink(missing_ok=True)

    def _load(self, partition: Partition, dim: int) -> _Entry | None:
        try:
            meta = json.loads((self.directory / f"{partition_token(partition)}.json").read_text())
            if meta["dim"] != dim:
                return None
            index = AutoIndex.load(self.directory / meta["file"], dim)
            if len(index) != meta["size"]:
                return None
            return _Entry(index, int(meta["watermark"]))
        except (OSError, ValueError, KeyError, TypeError, MemscribeError):
            return None  # absent or unreadable: rebuilt from SQLite by replaying the whole log
