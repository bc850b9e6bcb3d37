"""The operations proposed so far for one episode, and the store as they would leave it.

Statements are reconciled one by one; a later statement must see what earlier ones in the same episode
proposed ("I live in Seattle. Oh wait, I moved to Sydney."). The ledger answers slot and similarity
queries over stored candidates *and* pending drafts, and hides stored memories an earlier operation
already superseded, updated or deleted, so no memory is targeted twice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from memscribe.core.records import MemoryDraft, MemoryRecord, Operation, OpKind, Owner, Status
from memscribe.write.ports import CandidateSource

__all__ = ["Ledger", "Pending", "draft_from_record"]

_CONSUMING = frozenset({OpKind.UPDATE, OpKind.SUPERSEDE, OpKind.DELETE})
# The rules ask for a statement's similar memories 8 and 12 deep; both are cut from one search this deep, so
# a statement is searched (fused, reranked) once per episode rather than once per depth.
_SIMILAR_DEPTH = 12


def draft_from_record(record: MemoryRecord, **changes: object) -> MemoryDraft:
    """A draft that reproduces ``record`` (for an UPDATE), with ``changes`` applied. It keeps the record's
    episode, so its message indices still name the words they were said in, unless ``changes`` gives others."""
    draft = MemoryDraft(
        text=record.text,
        subject=record.subject,
        slot=record.slot,
        value=record.value,
        owner=record.owner,
        layer=record.layer,
        scene=record.scene,
        tags=record.tags,
        message_indices=record.message_indices,
        confidence=record.confidence,
        valid_from=record.valid_from,
        valid_to=record.valid_to,
        metadata=dict(record.metadata),
        episode_id=record.episode_id,
    )
    if "message_indices" in changes:
        changes = {"episode_id": None, **changes}
    return replace(draft, **changes)  # type: ignore[arg-type]


@dataclass
class Pending:
    """One proposed operation; ``alive`` turns False when a later statement of the episode undoes it."""

    op: Operation
    at: datetime
    speaker: str
    alive: bool = True

    @property
    def draft(self) -> MemoryDraft | None:
        return self.op.draft


class Ledger:
    """Proposed operations plus cached, filtered access to the candidate memories."""

    def __init__(self, candidates: CandidateSource) -> None:
        self._candidates = candidates
        self._entries: list[Pending] = []
        self._slots: dict[str, list[MemoryRecord]] = {}
        self._subjects: dict[str, list[MemoryRecord]] = {}

    def propose(self, op: Operation, at: datetime, speaker: str) -> Pending:
        entry = Pending(op, at, speaker)
        self._entries.append(entry)
        return entry

    def revise(self, entry: Pending, **changes: object) -> None:
        """Change a pending operation in place (a correction or a later statement refines it)."""
        entry.op = replace(entry.op, **changes)  # type: ignore[arg-type]

    def operations(self) -> list[Operation]:
        """The surviving operations, in the order they were proposed."""
        return [entry.op for entry in self._entries if entry.alive]

    def pending(self) -> list[Pending]:
        """Alive entries that create or change a memory (they carry a draft)."""
        return [e for e in self._entries if e.alive and e.op.draft is not None]

    def pending_slot(self, slot: str, owner: Owner) -> list[Pending]:
        key = slot.lower()
        return [
            e
            for e in self.pending()
            if e.draft and (e.draft.slot or "").lower() == key and e.draft.owner == owner
        ]

    def taken(self) -> set[str]:
        """Stored memories an alive operation already changes; they are no longer current."""
        return {e.op.target for e in self._entries if e.alive and e.op.kind in _CONSUMING and e.op.target}

    def confirmed(self) -> set[str]:
        return {e.op.target for e in self._entries if e.alive and e.op.kind is OpKind.NOOP and e.op.target}

    def _current(self, records: list[MemoryRecord], owner: Owner | None) -> list[MemoryRecord]:
        taken = self.taken()
        return [
            r
            for r in records
            if r.id not in taken
            and r.retired_at is None
            and r.status is Status.ACTIVE
            and (owner is None or r.owner == owner)
        ]

    def stored_slot(self, slot: str, owner: Owner) -> list[MemoryRecord]:
        """Current stored memories of ``slot`` (same subject, same owner), newest first."""
        key = slot.lower()
        if key not in self._slots:
            subject = key.split("/", 1)[0]
            found = self._candidates.by_slot(slot)
            self._slots[key] = [
                r for r in found if (r.slot or "").lower() == key and r.subject.lower() == subject
            ]
        records = self._current(self._slots[key], owner)
        return sorted(records, key=lambda r: r.valid_from, reverse=True)

    def stored_similar(self, text: str, owner: Owner | None, limit: int = 8) -> list[MemoryRecord]:
        found = self._candidates.similar(text, max(limit, _SIMILAR_DEPTH))
        return self._current(found[:limit], owner)

    def stored_subject(self, subject: str) -> list[MemoryRecord]:
        """Current stored memories about ``subject``, newest first."""
        key = subject.lower()
        if key not in self._subjects:
            found = self._candidates.by_subject(subject)
            self._subjects[key] = [r for r in found if r.subject.lower() == key]
        return sorted(self._current(self._subjects[key], None), key=lambda r: r.valid_from, reverse=True)
