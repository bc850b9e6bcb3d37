"""Column order and row codecs shared by the SQL adapters (SQLite, PostgreSQL, the MySQL journal archive):
memory versions, episodes and journal entries encoded and decoded once, each adapter passing only how its
database takes (``to_db``) and hands back (``when``) a timestamp. Lists and metadata are JSON text in every
backend, so a migration between them copies values unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from memscribe.core.messages import message_to_dict, parse_messages
from memscribe.core.records import Episode, JournalEntry, Layer, MemoryRecord, OpKind, Owner, Scope, Status, Usage

__all__ = [
    "EPISODE_COLUMNS",
    "JOURNAL_COLUMNS",
    "MEMORY_COLUMNS",
    "episode_from_row",
    "episode_params",
    "journal_from_row",
    "journal_params",
    "memory_from_row",
    "memory_params",
]

Encode = Callable[[Any], Any]  # a datetime (or None) -> what the database stores

MEMORY_COLUMNS = (
    "version_id, id, version, tenant, user_id, agent_id, session_id, project, text, subject, slot, value, "
    "owner, layer, scene, tags, episode_id, message_indices, confidence, writer, embedding_model, source, "
    "valid_from, valid_to, recorded_at, retired_at, status, supersedes, superseded_by, metadata"
)
EPISODE_COLUMNS = (
    "id, tenant, user_id, agent_id, session_id, project, idempotency_key, source, timestamp, messages, metadata"
)
JOURNAL_COLUMNS = (
    "id, episode_id, tenant, user_id, agent_id, session_id, project, kind, memory_id, version_id, reason, "
    "candidates, writer, accepted, model, prompt_version, calls, tokens_in, tokens_out, latency_ms, created_at"
)


def memory_params(r: MemoryRecord, to_db: Encode) -> tuple[Any, ...]:
    s = r.scope
    return (
        r.version_id, r.id, r.version, s.tenant, s.user_id, s.agent_id, s.session_id, s.project,
        r.text, r.subject, r.slot, r.value, r.owner.value, r.layer.value, r.scene, json.dumps(list(r.tags)),
        r.episode_id, json.dumps(list(r.message_indices)), r.confidence, r.writer, r.embedding_model,
        r.source, to_db(r.valid_from), to_db(r.valid_to), to_db(r.recorded_at), to_db(r.retired_at),
        r.status.value, r.supersedes, r.superseded_by, json.dumps(r.metadata, default=str),
    )  # fmt: skip


def episode_params(e: Episode, to_db: Encode) -> tuple[Any, ...]:
    s = e.scope
    messages = json.dumps([message_to_dict(m) for m in e.messages], ensure_ascii=False)
    return (
        e.id, s.tenant, s.user_id, s.agent_id, s.session_id, s.project, e.idempotency_key, e.source,
        to_db(e.timestamp), messages, json.dumps(e.metadata, default=str),
    )  # fmt: skip


def episode_from_row(row: Sequence[Any], when: Callable[[Any], datetime | None]) -> Episode:
    eid, tenant, user, agent, session, project, key, source, ts, messages, meta = row
    timestamp = when(ts)
    assert timestamp is not None  # a NOT NULL column
    return Episode(
        id=eid,
        scope=Scope(user_id=user, tenant=tenant, agent_id=agent, session_id=session, project=project),
        messages=parse_messages(json.loads(messages)),
        timestamp=timestamp,
        source=source,
        idempotency_key=key,
        metadata=json.loads(meta),
    )


def journal_params(j: JournalEntry, to_db: Encode) -> tuple[Any, ...]:
    s, u = j.scope, j.usage
    return (
        j.id, j.episode_id, s.tenant, s.user_id, s.agent_id, s.session_id, s.project, j.kind.value,
        j.memory_id, j.version_id, j.reason, json.dumps(list(j.candidates)), j.writer, bool(j.accepted),
        u.model, u.prompt_version, u.calls, u.tokens_in, u.tokens_out, u.latency_ms, to_db(j.created_at),
    )  # fmt: skip


def journal_from_row(row: Sequence[Any], when: Callable[[Any], datetime | None]) -> JournalEntry:
    (jid, episode, tenant, user, agent, session, project, kind, mid, vid, reason, candidates, writer,
     accepted, model, prompt, calls, tin, tout, latency, created) = row  # fmt: skip
    created_at = when(created)
    assert created_at is not None  # a NOT NULL column
    return JournalEntry(
        id=jid,
        episode_id=episode,
        scope=Scope(user_id=user, tenant=tenant, agent_id=agent, session_id=session, project=project),
        kind=OpKind(kind),
        memory_id=mid,
        version_id=vid,
        reason=reason,
        candidates=tuple(json.loads(candidates)),
        writer=writer,
        accepted=bool(accepted),
        created_at=created_at,
        usage=Usage(model, prompt, calls, tin, tout, latency),
    )


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
