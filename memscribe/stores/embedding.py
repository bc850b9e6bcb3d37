"""One embedding model per store: the check every record store makes before it compares a query vector with
the vectors it holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memscribe.errors import EmbeddingMismatch

if TYPE_CHECKING:
    from memscribe.core.vectors import Vectors

__all__ = ["query_vector"]


def query_vector(known: tuple[str, int], vector: Vectors, model_id: str) -> Vectors:
    """``vector`` as one float32 row, after checking it comes from the model (and dimension) the store holds;
    :class:`~memscribe.errors.EmbeddingMismatch` otherwise."""
    query: Vectors = np.asarray(vector, dtype=np.float32).reshape(-1)
    if known != (model_id, query.shape[0]):
        raise EmbeddingMismatch(
            f"this store holds {known[0]} vectors of dim {known[1]}; the query used {model_id} of dim {query.shape[0]}"
        )
    return query
