"""Provider ports. Vectors cross these ports as float32 numpy arrays of shape (n, dim), L2-normalised."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from memscribe.core.vectors import Vectors as Vectors

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors. ``model_id`` is recorded with every stored vector."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch; returns an array of shape (len(texts), dim). An empty batch gives (0, dim)."""
        ...
