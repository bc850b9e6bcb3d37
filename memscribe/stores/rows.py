"""Column order shared by the record-store adapters: a memory version row decoded once, each adapter passing
only how its database hands back a timestamp."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from memscribe.core.records import Layer, MemoryRecord, Owner, Scope, Status

__all__ = ["memory_from_row"]


def memory_from_row(row: Sequence[Any], when: Callable[[Any], datetime | None]) -> MemoryRecord:
    """A MemoryRecord from a row in the adapters' shared column order; ``when`` decodes a stored timestamp."""
    (vid, mid, version, tenant, user, agent, session, project, text, subject, slot, value, owner, layer,
     scene, tags, episode, indices, confidence, writer, model, source, vfrom, vto, rec, ret, status,
     sup, supby, meta) = row  # fmt: skip
    valid_from, recorded_at = when(vfrom), when(rec)
    assert valid_from is not None and recorded_at is not None  # NOT NULL columns
    return MemoryRecord(
        id=mid,
        version_id=vid,
        version=version,
        scope=Scope(user_id=user, tenant=tenant, agent_id=agent, session_id=session, project=project),
        text=text,
        subject=subject,
        slot=slot,
        value=value,
        owner=Owner(owner),
        layer=Layer(layer),
        scene=scene,
        tags=tuple(json.loads(tags)),
        episode_id=episode,
        message_indices=tuple(json.loads(indices)),
        confidence=confidence,
        writer=writer,
        embedding_model=model,
        source=source,
        valid_from=valid_from,
        valid_to=when(vto),
        recorded_at=recorded_at,
        retired_at=when(ret),
        status=Status(status),
        supersedes=sup,
        superseded_by=supby,
        metadata=json.loads(meta),
    )
