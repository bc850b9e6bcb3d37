"""Choosing the vector index: a spec string (Memory(vectors=...), MEMSCRIBE_VECTORS) or an adapter object."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.errors import ConfigError
from memscribe.settings import memory_config, resolve_settings
from memscribe.stores.local import LocalIndex
from memscribe.stores.select import make_vector_index
from memscribe.stores.sqlite import SQLiteStore

needs_faiss = pytest.mark.skipif(importlib.util.find_spec("faiss") is None, reason="faiss extra not installed")
needs_qdrant = pytest.mark.skipif(importlib.util.find_spec("qdrant_client") is None, reason="qdrant extra missing")


def test_local_is_the_default_and_unknown_specs_are_refused(tmp_path: Path) -> None:
    assert make_vector_index("local", db_path=tmp_path / "s.db") is None
    assert make_vector_index("", db_path=tmp_path / "s.db") is None
    with pytest.raises(ConfigError, match=r"unknown vector index 'annoy'.*qdrant://"):
        make_vector_index("annoy", db_path=tmp_path / "s.db")


@needs_qdrant
def test_qdrant_specs(tmp_path: Path) -> None:
    from memscribe.stores.qdrant import QdrantIndex

    local = make_vector_index("qdrant+local", db_path=tmp_path / "s.db")
    assert isinstance(local, QdrantIndex) and local.path == tmp_path / "s.db.qdrant" and local.url is None
    there = make_vector_index(f"qdrant+local://{tmp_path}/q", db_path=tmp_path / "s.db")
    assert isinstance(there, QdrantIndex) and there.path == tmp_path / "q"
    server = make_vector_index("qdrant://vec.internal:6334/team", db_path=tmp_path / "s.db", api_key="k-123")
    assert isinstance(server, QdrantIndex) and server.url == "http://vec.internal:6334"
    assert server.collection == "team" and "k-123" not in repr(server)
    tls = make_vector_index("qdrant+https://vec.internal", db_path=tmp_path / "s.db")
    assert isinstance(tls, QdrantIndex) and tls.url == "https://vec.internal" and tls.collection == "memscribe"
    with pytest.raises(ConfigError, match="never in the URL"):
        make_vector_index("qdrant://user:secret@vec.internal:6333", db_path=tmp_path / "s.db")


@needs_faiss
def test_memory_takes_a_spec_and_searches_through_that_index(tmp_path: Path) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder="hash", vectors="faiss") as m:
        m.add("I keep bees on the roof", user_id="u")
        assert m.search("bees", user_id="u")["results"][0]["memory"] == "I keep bees on the roof"
        assert type(m._core.store.vectors.index).__name__ == "FaissIndex"  # type: ignore[attr-defined]
    assert list((tmp_path / "s.db.faiss").glob("*.faiss"))  # saved at close


def test_memory_takes_an_adapter_object_but_not_beside_a_store(tmp_path: Path) -> None:
    index = LocalIndex(tmp_path / "elsewhere")
    with Memory(tmp_path / "s.db", writer="raw", embedder="hash", vectors=index) as m:
        m.add("I keep bees on the roof", user_id="u")
        assert m.search("bees", user_id="u")["results"]
    assert list((tmp_path / "elsewhere").glob("*.index"))
    with pytest.raises(ConfigError, match="vectors="):
        Memory(store=SQLiteStore(tmp_path / "t.db"), vectors="faiss")


def test_settings_read_the_vector_index_and_its_key_from_the_environment(tmp_path: Path) -> None:
    env = {"MEMSCRIBE_HOME": str(tmp_path), "MEMSCRIBE_VECTORS": "qdrant://vec:6333",
           "MEMSCRIBE_VECTORS_API_KEY": "k-secret"}  # fmt: skip
    settings = resolve_settings({}, env)
    assert settings.vectors.value == "qdrant://vec:6333" and settings.vectors.source == "env"
    config = memory_config(settings, env)
    assert config.vectors == "qdrant://vec:6333" and config.vectors_api_key == "k-secret"
    assert "k-secret" not in repr(config)
    assert memory_config(resolve_settings({}, {"MEMSCRIBE_HOME": str(tmp_path)}), {}).vectors == "local"
