"""RecordFilter → SQL. Mirrors :func:`memscribe.stores.filtering.matches` (the contract suite checks it)."""

from __future__ import annotations

from typing import Any

from memscribe.stores.ports import Partition, RecordFilter
from memscribe.stores.sqlite.codec import t

__all__ = ["where"]


def where(partition: Partition, flt: RecordFilter, alias: str = "m") -> tuple[str, list[Any]]:
    """A WHERE clause (without the keyword) confining rows to ``partition`` and ``flt``."""
    a = alias
    clauses = [f"{a}.tenant = ?", f"{a}.user_id = ?"]
    params: list[Any] = [partition[0], partition[1]]
    if flt.include_history:
        pass
    elif flt.as_of is not None:
        clauses += [
            f"{a}.retired_at IS NULL",
            f"{a}.status != 'deleted'",
            f"{a}.valid_from <= ?",
            f"({a}.valid_to IS NULL OR {a}.valid_to > ?)",
        ]
        params += [t(flt.as_of), t(flt.as_of)]
    else:
        clauses.append(f"{a}.retired_at IS NULL")
        clauses.append(f"{a}.status IN ({','.join('?' * len(flt.statuses))})")
        params += list(flt.statuses)
        if flt.now is not None:
            clauses.append(f"({a}.valid_to IS NULL OR {a}.valid_to > ?)")
            params.append(t(flt.now))
    for column, allowed in (
        ("layer", flt.layers),
        ("scene", flt.scenes),
        ("source", flt.sources),
        ("owner", flt.owners),
        ("id", flt.memory_ids),
    ):
        if allowed:
            clauses.append(f"{a}.{column} IN ({','.join('?' * len(allowed))})")
            params += list(allowed)
    for column, value in (
        ("agent_id", flt.agent_id),
        ("session_id", flt.session_id),
        ("project", flt.project),
    ):
        if value is not None:
            clauses.append(f"{a}.{column} = ?")
            params.append(value)
    if flt.valid_after is not None:
        clauses.append(f"{a}.valid_from >= ?")
        params.append(t(flt.valid_after))
    if flt.valid_before is not None:
        clauses.append(f"{a}.valid_from < ?")
        params.append(t(flt.valid_before))
    return " AND ".join(clauses), params
