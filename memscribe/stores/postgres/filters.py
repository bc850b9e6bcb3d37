"""RecordFilter → SQL for PostgresStore. Mirrors :func:`memscribe.stores.filtering.matches` (the contract
suite checks that they agree)."""

from __future__ import annotations

from typing import Any

from memscribe.stores.ports import Partition, RecordFilter

__all__ = ["CURRENT", "where"]

# The current, active versions, as literal SQL so the planner can match the partial indexes.
CURRENT = "m.retired_at IS NULL AND m.status = 'active'"


def where(partition: Partition, flt: RecordFilter) -> tuple[str, list[Any]]:
    """A WHERE clause (without the keyword) confining rows of ``memories m`` to ``partition`` and ``flt``."""
    clauses = ["m.tenant = %s", "m.user_id = %s"]
    params: list[Any] = [partition[0], partition[1]]
    if flt.include_history:
        pass
    elif flt.as_of is not None:
        clauses += ["m.retired_at IS NULL", "m.status != 'deleted'", "m.valid_from <= %s",
                    "(m.valid_to IS NULL OR m.valid_to > %s)"]  # fmt: skip
        params += [flt.as_of, flt.as_of]
    else:
        if flt.statuses == ("active",):
            clauses.append(CURRENT)
        else:
            clauses += ["m.retired_at IS NULL", "m.status = ANY(%s)"]
            params.append(list(flt.statuses))
        if flt.now is not None:
            clauses.append("(m.valid_to IS NULL OR m.valid_to > %s)")
            params.append(flt.now)
    for column, allowed in (
        ("layer", flt.layers),
        ("scene", flt.scenes),
        ("source", flt.sources),
        ("owner", flt.owners),
        ("id", flt.memory_ids),
    ):
        if allowed:
            clauses.append(f"m.{column} = ANY(%s)")
            params.append(list(allowed))
    for column, value in (("agent_id", flt.agent_id), ("session_id", flt.session_id), ("project", flt.project)):
        if value is not None:
            clauses.append(f"m.{column} = %s")
            params.append(value)
    if flt.valid_after is not None:
        clauses.append("m.valid_from >= %s")
        params.append(flt.valid_after)
    if flt.valid_before is not None:
        clauses.append("m.valid_from < %s")
        params.append(flt.valid_before)
    return " AND ".join(clauses), params
