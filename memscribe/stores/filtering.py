"""The meaning of a RecordFilter, in Python. The SQLite store expresses the same rules in SQL; the
contract suite checks that both agree."""

from __future__ import annotations

from memscribe.core.records import MemoryRecord, Status
from memscribe.stores.ports import RecordFilter

__all__ = ["matches"]


def matches(record: MemoryRecord, flt: RecordFilter) -> bool:
    """Whether ``record`` is visible under ``flt``."""
    if flt.include_history:
        pass
    elif flt.as_of is not None:
        if record.retired_at is not None or record.status == Status.DELETED:
            return False
        if record.valid_from > flt.as_of or (record.valid_to is not None and record.valid_to <= flt.as_of):
            return False
    else:
        if record.retired_at is not None or record.status.value not in flt.statuses:
            return False
        if flt.now is not None and record.valid_to is not None and record.valid_to <= flt.now:
            return False
    return _matches_fields(record, flt)


def _matches_fields(record: MemoryRecord, flt: RecordFilter) -> bool:
    checks = (
        (flt.layers, record.layer.value),
        (flt.scenes, record.scene),
        (flt.sources, record.source),
        (flt.owners, record.owner.value),
        (flt.memory_ids, record.id),
    )
    if any(allowed and value not in allowed for allowed, value in checks):
        return False
    scoped = ((flt.agent_id, record.scope.agent_id), (flt.session_id, record.scope.session_id))
    if any(want is not None and want != have for want, have in scoped):
        return False
    if flt.project is not None and flt.project != record.scope.project:
        return False
    if flt.valid_after is not None and record.valid_from < flt.valid_after:
        return False
    return not (flt.valid_before is not None and record.valid_from >= flt.valid_before)
