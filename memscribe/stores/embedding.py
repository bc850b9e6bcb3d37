"""One embedding model per store: the check every record store makes before it compares a query vector with
the vectors it holds; and :class:`DeferredVectors`, what a record store offers when it can take memories
before their vectors (the SQLite store does)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from memscribe.errors import EmbeddingMismatch

if TYPE_CHECKING:
    from memscribe.core.records import MemoryRecord
    from memscribe.core.vectors import Partition, Vectors
    from memscribe.stores.ports import RecordFilter

__all__ = ["MOVE_HINT", "DeferredVectors", "HoldsVectors", "query_vector"]

# What an embedding mismatch error tells the user to do: a store keeps the model of its first vectors.
MOVE_HINT = (
    "Use the same embedder, or move the memories with `memscribe export` and `memscribe import` into a new store,"
    " which embeds them again."
)


@runtime_checkable
class HoldsVectors(Protocol):
    """A record store that says which embedding model its vectors come from."""

    def embedding_model(self) -> tuple[str, int] | None:
        """The (model id, dimension) of the vectors the store holds; None before the first."""
        ...


@runtime_checkable
class DeferredVectors(HoldsVectors, Protocol):
    """A record store that stores memories now and their vectors later.

    A :class:`~memscribe.stores.ports.Changeset` naming versions in ``deferred`` writes them without vectors,
    marked in the same transaction; the marks survive a crash until :meth:`attach_vectors` stores the vectors.
    Erasing a memory erases its marks. :meth:`same_text` finds a repeated text without any vector."""

    def unembedded(
        self, partition: Partition | None = None, *, tenant: str | None = None, limit: int = 64
    ) -> list[tuple[Partition, str, str]]:
        """Up to ``limit`` (partition, version id, text) still to be embedded, oldest first."""
        ...

    def attach_vectors(self, partition: Partition, version_ids: Sequence[str], vectors: Vectors, model_id: str) -> int:
        """Store the vectors of still-marked versions (one row each); returns how many were stored."""
        ...

    def same_text(self, partition: Partition, text: str, flt: RecordFilter, limit: int = 5) -> list[MemoryRecord]:
        """Versions under ``flt`` whose text equals ``text`` up to case and spacing, newest first."""
        ...


def query_vector(known: tuple[str, int], vector: Vectors, model_id: str) -> Vectors:
    """``vector`` as one float32 row, after checking it comes from the model (and dimension) the store holds;
    :class:`~memscribe.errors.EmbeddingMismatch` otherwise."""
    import numpy as np  # here, not at import: the engine imports this module for DeferredVectors

    query: Vectors = np.asarray(vector, dtype=np.float32).reshape(-1)
    if known != (model_id, query.shape[0]):
        raise EmbeddingMismatch(
            f"this store holds {known[0]} vectors of dim {known[1]}; the query used {model_id} of dim {query.shape[0]}"
        )
    return query
