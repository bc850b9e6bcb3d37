"""The active branch of a tree-shaped session (Claude Code, Qwen Code, Pi, OpenClaw, CodeBuddy).

Records point at their parent. Rewinds and edits start a new branch from an older record, so the file
holds every branch; the conversation the person ended up with is the path from the newest leaf to the root.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["active_branch"]

R = TypeVar("R")


def active_branch(
    records: Sequence[R],
    node_id: Callable[[R], str | None],
    parent_ids: Callable[[R], tuple[str | None, ...]],
) -> list[R]:
    """Records on the path from the last record (file order) back to the root, oldest first.

    ``parent_ids`` gives candidates in order (a parent, then a logical parent across a compaction); the
    first one present in the file is followed. Records without an id cannot be placed and are kept only
    when the file has no ids at all (a linear log).
    """
    by_id: dict[str, R] = {}
    for record in records:
        rid = node_id(record)
        if rid:
            by_id[rid] = record
    if not by_id:
        return list(records)
    leaf = next((r for r in reversed(records) if node_id(r)), None)
    chain: list[R] = []
    seen: set[str] = set()
    while leaf is not None:
        rid = node_id(leaf)
        if not rid or rid in seen:
            break
        seen.add(rid)
        chain.append(leaf)
        leaf = next((by_id[p] for p in parent_ids(leaf) if p and p in by_id), None)
    chain.reverse()
    return chain
