"""Putting a Memory together from its configuration: the store, the embedder (built on first use), the
writer and the model a writer may need."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memscribe.config import MemoryConfig
from memscribe.core.clock import Clock, SystemClock
from memscribe.engine.core import Core
from memscribe.errors import ConfigError
from memscribe.providers.chat import ChatModel
from memscribe.providers.ports import Embedder
from memscribe.stores.embedding import HoldsVectors
from memscribe.stores.ports import Store, VectorIndex
from memscribe.write.ports import Writer

__all__ = ["build_core", "chat_factory"]


def build_core(
    path: str | Path | None,
    *,
    config: MemoryConfig | None,
    writer: str | Writer | None,
    embedder: str | Embedder | None,
    store: Store | str | None,
    clock: Clock | None,
    tenant: str | None,
    vectors: str | VectorIndex | None = None,
) -> Core:
    from memscribe.engine.writers import make_writer

    cfg = config or MemoryConfig()
    if store is None or isinstance(store, str):  # a URL (postgresql://...) or a path; default: the SQLite file
        from memscribe.stores.factory import open_store

        location = store if isinstance(store, str) else (path if path else cfg.resolved_path())
        store = open_store(
            location,
            lock_timeout=cfg.lock_timeout,
            vectors=vectors if vectors is not None else cfg.vectors,
            vectors_api_key=cfg.vectors_api_key,
        )
    elif vectors is not None:
        raise ConfigError("pass vectors= to the store you give, not to Memory")
    chosen_writer = writer if writer is not None else cfg.writer
    spec = embedder if embedder is not None else cfg.embedder
    factory = _embedder_factory(spec, store)
    chat = chat_factory(cfg)
    return Core(
        store=store,
        embedder_factory=factory,
        writer=make_writer(chosen_writer, chat_factory=chat) if isinstance(chosen_writer, str) else chosen_writer,
        clock=clock or SystemClock(),
        tenant=tenant or cfg.tenant,
        max_retries=cfg.max_retries,
        model=cfg.llm,
        defer_vectors=True,
    )


def _embedder_factory(spec: str | Embedder, store: Store) -> Callable[[], Embedder]:
    """Builds the embedder on first use; a named one learns then which model the store's vectors are from."""
    if not isinstance(spec, str):
        return lambda: spec

    def make() -> Embedder:
        from memscribe.providers.registry import make_embedder

        held = store.embedding_model() if isinstance(store, HoldsVectors) else None
        return make_embedder(spec, held=held[0] if held else None)

    return make


def chat_factory(cfg: MemoryConfig) -> Callable[[], ChatModel] | None:
    """Builds the configured model on first use (None when no ``llm`` is configured)."""
    if not cfg.llm:
        return None
    spec = cfg.llm

    def make() -> ChatModel:
        from memscribe.providers.presets import make_chat

        return make_chat(spec, base_url=cfg.llm_base_url, api_key=cfg.llm_api_key, **dict(cfg.llm_options))

    return make
