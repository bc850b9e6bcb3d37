"""Rows ↔ records for PostgresStore. Times are ``timestamptz`` (microseconds, UTC); lists and metadata are JSON
text, as the SQLite store keeps them, so a migration between the two copies values unchanged."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from memscribe.core.messages import message_to_dict, parse_messages
from memscribe.core.records import Episode, JournalEntry, MemoryRecord, OpKind, Scope, Usage
from memscribe.stores.rows import memory_from_row

__all__ = [
    "EPISODE_COLUMNS",
    "JOURNAL_COLUMNS",
    "MEMORY_COLUMNS",
    "episode_params",
    "episode_row",
    "journal_params",
    "journal_row",
    "memory_params",
    "memory_row",
    "placeholders",
    "utc",
]

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


def placeholders(columns: str) -> str:
    """``%s, %s, ...``, one per column of ``columns``."""
    return ", ".join(["%s"] * len(columns.split(",")))


def utc(when: datetime | None) -> datetime | None:
    return when.astimezone(UTC) if when is not None else None


def _time(when: datetime) -> datetime:
    return when.astimezone(UTC)


def memory_params(r: MemoryRecord) -> tuple[Any, ...]:
    s = r.scope
    return (
        r.version_id, r.id, r.version, s.tenant, s.user_id, s.agent_id, s.session_id, s.project,
        r.text, r.subject, r.slot, r.value, r.owner.value, r.layer.value, r.scene, json.dumps(list(r.tags)),
        r.episode_id, json.dumps(list(r.message_indices)), r.confidence, r.writer, r.embedding_model,
        r.source, utc(r.valid_from), utc(r.valid_to), utc(r.recorded_at), utc(r.retired_at), r.status.value,
        r.supersedes, r.superseded_by, json.dumps(r.metadata, default=str),
    )  # fmt: skip


def memory_row(row: tuple[Any, ...]) -> MemoryRecord:
    return memory_from_row(row, utc)


def episode_params(e: Episode) -> tuple[Any, ...]:
    s = e.scope
    messages = json.dumps([message_to_dict(m) for m in e.messages], ensure_ascii=False)
    return (
        e.id, s.tenant, s.user_id, s.agent_id, s.session_id, s.project, e.idempotency_key, e.source,
        utc(e.timestamp), messages, json.dumps(e.metadata, default=str),
    )  # fmt: skip


def episode_row(row: tuple[Any, ...]) -> Episode:
    eid, tenant, user, agent, session, project, key, source, ts, messages, meta = row
    return Episode(
        id=eid,
        scope=Scope(user_id=user, tenant=tenant, agent_id=agent, session_id=session, project=project),
        messages=parse_messages(json.loads(messages)),
        timestamp=_time(ts),
        source=source,
        idempotency_key=key,
        metadata=json.loads(meta),
    )


def journal_params(j: JournalEntry) -> tuple[Any, ...]:
    s, u = j.scope, j.usage
    return (
        j.id, j.episode_id, s.tenant, s.user_id, s.agent_id, s.session_id, s.project, j.kind.value,
        j.memory_id, j.version_id, j.reason, json.dumps(list(j.candidates)), j.writer, bool(j.accepted),
        u.model, u.prompt_version, u.calls, u.tokens_in, u.tokens_out, u.latency_ms, utc(j.created_at),
    )  # fmt: skip


def journal_row(row: tuple[Any, ...]) -> JournalEntry:
    (jid, episode, tenant, user, agent, session, project, kind, mid, vid, reason, candidates, writer,
     accepted, model, prompt, calls, tin, tout, latency, created) = row  # fmt: skip
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
        created_at=_time(created),
        usage=Usage(model, prompt, calls, tin, tout, latency),
    )
