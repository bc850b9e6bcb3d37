"""One :class:`Memory` per tenant (and writer), all over one shared store and one embedder."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from memscribe.server.settings import ServerSettings

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory
    from memscribe.providers.ports import Embedder
    from memscribe.stores.ports import Store

__all__ = ["TenantPool"]


class TenantPool:
    """Memories are built on first use. Every tenant's Memory shares the store object (so one in-process
    writer lock and one vector cache) and the embedder (so the model loads once)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._memories: dict[tuple[str, str], Memory] = {}
        self._store: Store | None = None
        self._embedder: Embedder | None = None

    def _shared(self) -> tuple[Store, Embedder]:
        if self._store is None or self._embedder is None:
            from memscribe.providers.registry import make_embedder
            from memscribe.stores.sqlite import SQLiteStore

            self._store = SQLiteStore(self.settings.store_path)
            self._embedder = make_embedder(self.settings.embedder)
        return self._store, self._embedder

    def get(self, tenant: str, *, writer: str | None = None) -> Memory:
        """The Memory confined to ``tenant``; ``writer`` overrides the configured writer (mem0 ``infer``)."""
        name = writer or self.settings.writer
        key = (tenant, name)
        memory = self._memories.get(key)
        if memory is None:
            with self._lock:
                memory = self._memories.get(key)
                if memory is None:
                    from memscribe.engine.memory import Memory

                    store, embedder = self._shared()
                    memory = Memory(
                        config=self.settings.memory_config(), store=store, embedder=embedder, writer=name,
                        tenant=tenant,
                    )  # fmt: skip
                    self._memories[key] = memory
        return memory

    def store_stats(self) -> dict[str, Any]:
        """Counts over the whole store (every tenant), for /metrics; no content, no path."""
        store, _ = self._shared()
        stats = dict(store.stats(None))
        stats.pop("path", None)
        return stats

    @property
    def tenants(self) -> int:
        return len({tenant for tenant, _ in self._memories})

    def close(self) -> None:
        """Write what each Memory acknowledged with wait=false, stop background recovery (pending episodes of
        earlier processes stay pending for the next start: a slow model must not hold up shutdown), then close
        the shared store once."""
        with self._lock:
            memories, self._memories = list(self._memories.values()), {}
            for memory in memories:
                memory.close()
            if self._store is not None:
                self._store.close()
                self._store = None
