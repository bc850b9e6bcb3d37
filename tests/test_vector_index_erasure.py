"""Erased means erased for the vector index files too: after a forget or a purge, no saved index file (exact
or HNSW) holds the forgotten vector's bytes in any encoding the index stores (float32 rows, float16 graph
storage), and this holds even when another process kept the index in memory and saves it afterwards."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memscribe import Memory
from memscribe.stores.local import LocalIndex
from memscribe.stores.sqlite import SQLiteStore


class DenseEmbedder:
    """Dense pseudo-random unit vectors seeded by the text: every component differs from row to row, so a
    run of 8 components identifies one vector's bytes (a hash embedding is mostly zeros and shared words)."""

    model_id = "dense-test-64"
    dim = 64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            row = np.random.default_rng(seed).standard_normal(self.dim)
            rows.append(row / np.linalg.norm(row))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)


def _encodings(vector: np.ndarray) -> list[bytes]:
    """The bytes a saved index could hold a vector as: its first 8 components, as f32 and as f16."""
    head = vector[:8]
    return [head.astype("<f4").tobytes(), head.astype("<f2").tobytes()]


def _stored_vector(db: Path, memory_id: str) -> np.ndarray:
    conn = sqlite3.connect(db)
    row = conn.execute(
        "SELECT v.vector FROM vectors v JOIN memories m ON m.rowid = v.rowid WHERE m.id = ?", (memory_id,)
    ).fetchone()
    conn.close()
    vector = np.frombuffer(row[0], dtype=np.float32)
    return vector / np.linalg.norm(vector)


def _index_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(Path(f"{db}.ann").glob("*")) if p.is_file())


def _memory(db: Path, threshold: int) -> Memory:
    store = SQLiteStore(db, vector_index=LocalIndex(Path(f"{db}.ann"), hnsw_threshold=threshold))
    return Memory(db, writer="raw", embedder=DenseEmbedder(), store=store)


@pytest.mark.parametrize("threshold", [50_000, 8], ids=["exact", "hnsw"])
def test_forget_removes_the_vector_from_the_saved_index_at_once(tmp_path: Path, threshold: int) -> None:
    db = tmp_path / "s.db"
    m = _memory(db, threshold)
    ids = [m.add(f"note {i} about the Quuxly project", user_id="u")["results"][0]["id"] for i in range(20)]
    assert m.search("Quuxly", user_id="u")["results"]
    m._core.store.vectors.save_all()  # type: ignore[attr-defined]
    victim = _stored_vector(db, ids[3])
    kept = _stored_vector(db, ids[4])
    saved = _index_bytes(db)
    assert any(e in saved for e in _encodings(victim)), "the saved index should hold the vector before forget"
    m.forget(ids[3], user_id="u")
    after = _index_bytes(db)  # before close: the forget itself rewrote the saved index
    assert not any(e in after for e in _encodings(victim))
    assert any(e in after for e in _encodings(kept))
    m.close()
    assert not any(e in _index_bytes(db) for e in _encodings(victim))
    with _memory(db, threshold) as again:
        found = {h["id"] for h in again.search("Quuxly project", user_id="u", limit=30)["results"]}
        assert ids[3] not in found and ids[4] in found


def test_a_process_holding_the_index_does_not_save_a_forgotten_vector_back(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    server = _memory(db, 8)
    ids = [server.add(f"note {i} about Zorbtown", user_id="u")["results"][0]["id"] for i in range(12)]
    assert server.search("Zorbtown", user_id="u")["results"]  # the server holds the partition's index
    victim = _stored_vector(db, ids[0])
    with _memory(db, 8) as other:
        other.forget(ids[0], user_id="u")
    server._core.store.vectors._states[("default", "u")].dirty = 1  # type: ignore[attr-defined]
    server.close()  # its save must replay the removal first
    assert not any(e in _index_bytes(db) for e in _encodings(victim))


def test_purge_leaves_no_index_file_holding_the_partition(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    m = _memory(db, 8)
    ids = [m.add(f"victim note {i} on Quuxvale", user_id="victim")["results"][0]["id"] for i in range(12)]
    m.add("a note of bob's", user_id="bob")
    m.search("Quuxvale", user_id="victim")
    m.search("note", user_id="bob")
    m._core.store.vectors.save_all()  # type: ignore[attr-defined]
    vectors = [_stored_vector(db, i) for i in ids]
    assert m.purge("victim")["verified"]
    m.close()
    blob = _index_bytes(db)
    assert blob  # bob's index is still there
    assert not any(e in blob for v in vectors for e in _encodings(v))
