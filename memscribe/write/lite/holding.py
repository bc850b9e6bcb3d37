"""Temporary clauses of a unit keep their own memory.

A short message is kept whole as one memory, but its clauses may hold in different ways: "our flat in Leeds is
being redone so we're staying at my parents' in York for 3 weeks" says where the user lives and where they stay
for a while. Kept as one text, the stay's place answers "where do I live?", and tagging the whole text temporary
hides the home. So a unit whose statements say something both for good and for a while is split in two; fragments
stay with the lasting statements.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from memscribe.write.lite.cues import temporary

__all__ = ["split_by_holding"]

T = TypeVar("T")


def split_by_holding(kept: Sequence[T], *, text: Callable[[T], str], substantial: Callable[[T], bool]) -> list[list[T]]:
    """``kept`` as groups that each keep one memory: the lasting statements, then the temporary ones."""
    lasting: list[T] = []
    passing: list[T] = []
    for item in kept:
        (passing if substantial(item) and temporary(text(item)) else lasting).append(item)
    if not passing or not any(substantial(item) for item in lasting):
        return [list(kept)] if kept else []
    return [lasting, passing]
