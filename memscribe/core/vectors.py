"""Types every store and vector index shares: the partition a row lives in and the vectors it carries.

A partition is the (tenant, user_id) pair every store query is confined to. Vectors cross the ports as
float32 numpy arrays of shape (n, dim); the alias exists for type checkers only, so importing this module
never imports numpy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors: TypeAlias = npt.NDArray[np.float32]
    Keys: TypeAlias = Sequence[int] | npt.NDArray[np.int64]

__all__ = ["Partition", "partition_token"]

Partition: TypeAlias = tuple[str, str]  # (tenant, user_id)


def partition_token(partition: Partition) -> str:
    """A stable, content-free name for a partition (keyword-index tags, index file names, payload filters)."""
    return "p" + hashlib.sha256("\x00".join(partition).encode()).hexdigest()[:24]
