"""Process caches keyed by what people said, emptied on every erasure: an erased text keeps no copy in memory."""

from __future__ import annotations

import sys

from memscribe.read.traits import forget_traits

__all__ = ["forget_cached"]


def forget_cached() -> None:
    """Empty the read path's traits and topics and, when it is loaded, the lite writer's texts, words and names
    (imported only if some writer already loaded it: ``import memscribe`` stays light)."""
    forget_traits()
    if "memscribe.write.lite" in sys.modules:
        from memscribe.write.lite import forget_cached_texts

        forget_cached_texts()
