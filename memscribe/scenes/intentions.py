"""L7 intentions: plans with a deadline, and their expiry into L2 history.

An intention's deadline is ``valid_to`` or ``metadata["valid_until"]`` (an ISO date or time); a draft carrying
either gets both, so current reads stop showing a plan once its date has passed (the store hides versions
whose ``valid_to`` is over) even before consolidation turns it into history.

Expiry today is a SUPERSEDE: the intention's version is closed at its deadline and an L2 fact "Past plan
(until …): …" takes over from that instant, linked by ``supersedes`` and by ``metadata["expired_intention"]``.
A dedicated EXPIRE operation (closing with status ``expired`` instead of ``superseded``) is described in the
scenes package's integration notes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, date, datetime, time
from typing import Final

from memscribe.core.records import Layer, MemoryDraft, MemoryRecord, Operation, OpKind, Status

__all__ = ["EXPIRED_TAG", "deadline_of", "expire_intentions", "normalize_intention", "parse_deadline"]

EXPIRED_TAG: Final = "expired-plan"


def parse_deadline(value: object) -> datetime | None:
    """A ``valid_until`` value as an aware datetime: a date means its midnight (UTC), a naive time UTC."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time.min, tzinfo=UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def deadline_of(item: MemoryRecord | MemoryDraft) -> datetime | None:
    """When an intention stops being a plan: the earlier of ``valid_to`` and ``metadata["valid_until"]``."""
    found = [d for d in (item.valid_to, parse_deadline(item.metadata.get("valid_until"))) if d is not None]
    return min(found) if found else None


def normalize_intention(draft: MemoryDraft) -> MemoryDraft:
    """An INTENTION draft with its deadline in both ``valid_to`` and ``metadata["valid_until"]``."""
    if draft.layer is not Layer.INTENTION:
        return draft
    deadline = deadline_of(draft)
    if deadline is None:
        return draft
    if draft.valid_from is not None and deadline < draft.valid_from:
        return draft  # malformed; leave it for the plan's interval check to reject with its reason
    metadata = {**draft.metadata, "valid_until": draft.metadata.get("valid_until") or deadline.isoformat()}
    return replace(draft, valid_to=deadline, metadata=metadata)


def expire_intentions(records: Iterable[MemoryRecord], now: datetime) -> list[Operation]:
    """SUPERSEDE each current intention whose deadline has passed with its L2 history fact."""
    ops = []
    for record in records:
        if record.layer is not Layer.INTENTION or not record.is_current or record.status is not Status.ACTIVE:
            continue
        deadline = deadline_of(record)
        if deadline is None or deadline > now:
            continue
        since = max(deadline, record.valid_from)
        metadata = {
            **record.metadata,
            "expired_intention": record.id,
            "valid_until": deadline.isoformat(),
            "slot": record.slot,
            "source_episode": record.episode_id,
            "source_messages": list(record.message_indices),
        }
        draft = MemoryDraft(
            text=f"Past plan (until {deadline:%d %B %Y}): {record.text}",
            subject=record.subject,
            value=record.value,
            owner=record.owner,
            layer=Layer.FACT,
            scene=record.scene,
            tags=tuple(dict.fromkeys((*record.tags, EXPIRED_TAG))),
            confidence=record.confidence,
            valid_from=since,
            metadata=metadata,
        )
        reason = f"intention expired: valid until {deadline.isoformat()}, now {now.isoformat()}; kept as history"
        ops.append(Operation(OpKind.SUPERSEDE, reason, draft=draft, target=record.id))
    return ops
