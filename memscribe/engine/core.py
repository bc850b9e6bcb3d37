"""The engine core shared by Memory and AsyncMemory: the parts put together, and scope handling."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memscribe.core.clock import Clock
from memscribe.core.limits import check_text
from memscribe.core.messages import parse_scope
from memscribe.core.records import Scope
from memscribe.core.redact import redact_id
from memscribe.errors import InvalidInput, NotFound
from memscribe.providers.ports import Embedder
from memscribe.stores.ports import Partition, Store
from memscribe.write.ports import Writer

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = ["Core"]


@dataclass
class Core:
    """Everything one Memory owns. Built lazily: no file is touched until the first write."""

    store: Store
    embedder_factory: Callable[[], Embedder]  # the local model loads only when first needed
    writer: Writer
    clock: Clock
    tenant: str = "default"
    max_retries: int = 3
    model: str | None = None  # the configured model spec ("provider:model"), recorded on pending episodes
    _embedder: Embedder | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # Vectors embedded ahead, in one batch, for episodes about to be written (text -> vector); shared by the
    # cores ``dataclasses.replace`` derives from this one, taken (and removed) by the first cache that needs one.
    prefetched: dict[str, Vectors] = field(default_factory=dict, repr=False)
    # Writes may leave vectors to the indexer (``engine.indexing``) when the store supports it; ``on_deferred``
    # is called after such a write (the Memory starts its background indexer), ``index_lock`` keeps two
    # indexing passes from embedding the same texts.
    defer_vectors: bool = False
    on_deferred: Callable[[], None] | None = field(default=None, repr=False)
    index_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    self._embedder = self.embedder_factory()
        assert self._embedder is not None
        return self._embedder

    def scope(
        self,
        user_id: object,
        *,
        agent_id: object = None,
        session_id: object = None,
        project: object = None,
    ) -> Scope:
        # A secret pasted into an id is stored as a digest: the same id still finds the same scope.
        ids = [redact_id(v) if isinstance(v, str) else v for v in (user_id, agent_id, session_id, project)]
        for value in ids:
            if isinstance(value, str):
                check_text(value, "scope id")
        return parse_scope(ids[0], tenant=self.tenant, agent_id=ids[1], session_id=ids[2], project=ids[3])

    def partition(self, user_id: object) -> Partition:
        return self.scope(user_id).partition

    def locate(self, memory_id: object, user_id: object | None) -> Partition:
        """The partition holding ``memory_id``: the caller's, or found within the tenant when not given."""
        if not isinstance(memory_id, str) or not memory_id:
            raise InvalidInput(f"memory id must be a non-empty string, got {memory_id!r}")
        if user_id is not None:
            return self.partition(user_id)
        owner = self.store.owner_of(self.tenant, memory_id)
        if owner is None:
            raise NotFound(f"no memory {memory_id!r}")
        return (self.tenant, owner)
