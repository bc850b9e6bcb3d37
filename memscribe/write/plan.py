"""The model proposes, the engine disposes: check a writer's operations against the invariants every
writer is held to, and turn the accepted ones into the rows of one transaction.

Invariants: a target must exist in the episode's partition; SUPERSEDE and UPDATE keep subject and owner;
an older statement never supersedes a newer one; validity intervals are well-formed. A violating
operation is rejected and journaled with its reason; it never reaches the memory rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from memscribe.core.ids import new_id
from memscribe.core.records import (
    Episode,
    JournalEntry,
    MemoryDraft,
    MemoryRecord,
    Operation,
    OpKind,
    Status,
)

__all__ = ["OUTCOMES", "Plan", "explain_messages", "plan_changes"]

# What happened to a message, by the operation that used it (strongest first when several did).
OUTCOMES = {
    OpKind.SUPERSEDE: "superseded",
    OpKind.UPDATE: "updated",
    OpKind.DELETE: "deleted",
    OpKind.ADD: "stored",
    OpKind.NOOP: "merged",
}


@dataclass
class Plan:
    """Accepted rows, journal lines and the caller-facing results of one episode's operations."""

    insert: list[MemoryRecord] = field(default_factory=list)
    reuse_vector: dict[str, str] = field(default_factory=dict)
    retire: list[tuple[str, datetime]] = field(default_factory=list)
    journal: list[JournalEntry] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[tuple[Operation, str]] = field(default_factory=list)

    @property
    def texts_to_embed(self) -> list[str]:
        return [r.text for r in self.insert if r.version_id not in self.reuse_vector]


def plan_changes(
    episode: Episode,
    operations: list[Operation],
    targets: dict[str, MemoryRecord],
    *,
    writer: str,
    model_id: str,
    now: datetime,
    writer_rejections: Sequence[tuple[Operation, str]] = (),
) -> Plan:
    """``targets`` holds the current version of every memory the operations name (when it exists);
    ``writer_rejections`` are proposals the writer refused itself, journaled as rejected."""
    plan = Plan()
    # A store's history never runs backwards: a clock set back (a corrected system clock, an import replayed
    # under its own clock) still records each change after the versions it retires.
    now = max([now, *(t.recorded_at for t in targets.values())])
    for op, why in writer_rejections:
        reason = f"rejected by writer: {why} ({op.reason})"
        _journal(plan, episode, op, writer, now, accepted=False, reason=reason)
        plan.rejected.append((op, reason))
    current = dict(targets)
    for op in operations:
        error = _violation(op, current, episode)
        if error:
            reason = f"rejected: {error} ({op.reason})"
            _journal(plan, episode, op, writer, now, accepted=False, reason=reason)
            plan.rejected.append((op, reason))
            continue
        _apply(plan, episode, op, current, writer, model_id, now)
    return plan


def _violation(op: Operation, current: dict[str, MemoryRecord], episode: Episode) -> str | None:
    if op.kind in (OpKind.ADD, OpKind.UPDATE, OpKind.SUPERSEDE):
        if op.draft is None or not op.draft.text.strip():
            return f"{op.kind} needs a memory text"
        vf, vt = op.draft.valid_from or episode.timestamp, op.draft.valid_to
        if vt is not None and vt < vf:
            return "valid_to is before valid_from"
    target = current.get(op.target or "")
    if op.kind == OpKind.ADD:
        older = op.draft is not None and (op.draft.valid_from or episode.timestamp) < (
            target.valid_from if target is not None else episode.timestamp
        )
        if op.target and target is not None and not older:
            return "a history entry must be older than the memory that superseded it"
        return None
    if target is None:
        return f"target {op.target!r} is not a current memory of this user"
    if op.kind in (OpKind.UPDATE, OpKind.SUPERSEDE):
        assert op.draft is not None
        if op.draft.subject.casefold() != target.subject.casefold():
            return f"subject {op.draft.subject!r} differs from the target's {target.subject!r}"
        if op.draft.owner != target.owner:
            return f"owner {op.draft.owner} differs from the target's {target.owner}"
    if op.kind == OpKind.SUPERSEDE:
        assert op.draft is not None
        if (op.draft.valid_from or episode.timestamp) < target.valid_from:
            return "an older statement cannot supersede a newer one"
    return None


def _apply(
    plan: Plan,
    episode: Episode,
    op: Operation,
    current: dict[str, MemoryRecord],
    writer: str,
    model_id: str,
    now: datetime,
) -> None:
    target = current.get(op.target or "")
    if op.kind == OpKind.NOOP:
        assert target is not None
        _journal(plan, episode, op, writer, now, memory=target)
        plan.results.append(_result(target, "NOOP", op, episode))
        return
    if op.kind == OpKind.ADD:
        assert op.draft is not None
        record = _new(episode, op.draft, writer, model_id, now, memory_id=new_id(), version=1)
        if target is not None:  # history: an older statement already superseded by ``target``
            record = replace(
                record,
                status=Status.SUPERSEDED,
                superseded_by=target.id,
                valid_to=record.valid_to or target.valid_from,
            )
        _insert(plan, record)
        _journal(plan, episode, op, writer, now, memory=record)
        plan.results.append(_result(record, "ADD", op, episode))
        return
    assert target is not None
    _retire(plan, target, now)
    if op.kind == OpKind.UPDATE:
        assert op.draft is not None
        draft = op.draft if op.draft.valid_from else replace(op.draft, valid_from=target.valid_from)
        record = _new(episode, draft, writer, model_id, now, memory_id=target.id, version=target.version + 1)
        record = replace(record, supersedes=target.supersedes)
        _insert(plan, record, reuse=target if record.text == target.text else None)
        current[target.id] = record
        plan.results.append({**_result(record, "UPDATE", op, episode), "previous_memory": target.text})
        _journal(plan, episode, op, writer, now, memory=record)
        return
    if op.kind == OpKind.DELETE:
        gone = _successor(target, now, status=Status.DELETED)
        _insert(plan, gone, reuse=target)
        current.pop(target.id, None)
        plan.results.append(_result(gone, "DELETE", op, episode))
        _journal(plan, episode, op, writer, now, memory=gone)
        return
    assert op.draft is not None  # SUPERSEDE
    record = _new(episode, op.draft, writer, model_id, now, memory_id=new_id(), version=1)
    record = replace(record, supersedes=target.id)
    closed = _successor(target, now, status=Status.SUPERSEDED, valid_to=record.valid_from, by=record.id)
    _insert(plan, closed, reuse=target)
    _insert(plan, record)
    current.pop(target.id, None)
    current[record.id] = record
    plan.results.append(
        {**_result(record, "SUPERSEDE", op, episode), "previous_memory": target.text, "supersedes": target.id}
    )
    _journal(plan, episode, op, writer, now, memory=record)


def _new(
    episode: Episode,
    d: MemoryDraft,
    writer: str,
    model_id: str,
    now: datetime,
    *,
    memory_id: str,
    version: int,
) -> MemoryRecord:
    return MemoryRecord(
        id=memory_id,
        version_id=new_id(),
        version=version,
        scope=episode.scope,
        text=d.text.strip(),
        subject=d.subject,
        slot=d.slot,
        value=d.value,
        owner=d.owner,
        layer=d.layer,
        scene=d.scene,
        tags=tuple(dict.fromkeys(d.tags)),  # a tag once, however often the writer gave it
        episode_id=d.episode_id or episode.id,
        message_indices=d.message_indices,
        confidence=d.confidence,
        writer=writer,
        embedding_model=model_id,
        source=episode.source,
        valid_from=d.valid_from or episode.timestamp,
        valid_to=d.valid_to,
        recorded_at=now,
        retired_at=None,
        status=Status.ACTIVE,
        metadata=dict(d.metadata),
    )


def _successor(
    target: MemoryRecord,
    now: datetime,
    *,
    status: Status,
    valid_to: datetime | None = None,
    by: str | None = None,
) -> MemoryRecord:
    """The next version of ``target``: the same statement, closed or retracted."""
    end = valid_to if valid_to is not None else target.valid_to
    if end is not None and end < target.valid_from:
        end = target.valid_from
    return replace(
        target,
        version_id=new_id(),
        version=target.version + 1,
        recorded_at=now,
        retired_at=None,
        status=status,
        valid_to=end,
        superseded_by=by or target.superseded_by,
    )


def _retire(plan: Plan, target: MemoryRecord, now: datetime) -> None:
    """Close ``target``'s current version; one written earlier in this plan is closed before it lands."""
    for i, pending in enumerate(plan.insert):
        if pending.version_id == target.version_id:
            plan.insert[i] = replace(pending, retired_at=now)
            return
    plan.retire.append((target.version_id, now))


def _insert(plan: Plan, record: MemoryRecord, reuse: MemoryRecord | None = None) -> None:
    plan.insert.append(record)
    if reuse is not None:
        plan.reuse_vector[record.version_id] = reuse.version_id


def _journal(
    plan: Plan,
    episode: Episode,
    op: Operation,
    writer: str,
    now: datetime,
    *,
    memory: MemoryRecord | None = None,
    accepted: bool = True,
    reason: str | None = None,
) -> None:
    plan.journal.append(
        JournalEntry(
            id=new_id(),
            episode_id=episode.id,
            scope=episode.scope,
            kind=op.kind,
            memory_id=memory.id if memory else op.target,
            version_id=memory.version_id if memory else None,
            reason=reason or op.reason,
            candidates=op.candidates,
            writer=writer,
            accepted=accepted,
            created_at=now,
            usage=op.usage,
        )
    )


def _result(record: MemoryRecord, event: str, op: Operation, episode: Episode) -> dict[str, Any]:
    """An add result row. ``messages`` names this episode's messages only: a new version of a memory said in
    another episode (a clause left after a replacement) cites that episode's messages, not these."""
    indices = list(op.draft.messages_of(episode.id)) if op.draft is not None else []
    return {"id": record.id, "memory": record.text, "event": event, "reason": op.reason, "messages": indices}


_SMALL_TALK = frozenset({
    "hi", "hey", "hello", "thanks", "thank", "thx", "ok", "okay", "cool", "great", "nice", "awesome", "lol",
    "haha", "bye", "goodbye", "sure", "yes", "no", "yeah", "yep",
})  # fmt: skip


def _skip_reason(text: str, role: str, writer: str) -> str:
    """A writer-neutral account of why a message left no memory, for writers that give none."""
    bare = text.strip()
    if not bare:
        return "empty"
    if role in ("system", "tool"):
        return f"a {role} message"
    if bare.endswith("?"):
        return "a question"
    words = bare.lower().split()
    if len(words) <= 6 and words[0].strip(",.!") in _SMALL_TALK:
        return "filler: a greeting, thanks or acknowledgement"
    if len(words) < 3:
        return "filler: too short to hold a fact"
    return f"the {writer} writer found nothing worth remembering in it"


def explain_messages(
    episode: Episode, plan: Plan, *, writer: str, skipped: Sequence[tuple[int, str]] = ()
) -> list[dict[str, Any]]:
    """What happened to each message of the episode and why: stored, merged (already known), updated,
    superseded, deleted, rejected (with the engine's or the writer's reason) or skipped (with the writer's
    reason from ``skipped``, else a neutral one). Operations that name no message (a NOOP, a DELETE) are
    credited to the one user message no other operation names, when there is exactly one."""
    rank = list(OUTCOMES.values())
    found: dict[int, list[tuple[str, str, str | None]]] = {}
    loose: list[tuple[str, str, str | None]] = []
    for result in plan.results:
        entry = (OUTCOMES[OpKind(result["event"])], result["reason"], result["id"])
        for index in result["messages"] or [-1]:
            (found.setdefault(index, []) if index >= 0 else loose).append(entry)
    for op, reason in plan.rejected:
        for index in (list(op.draft.messages_of(episode.id)) if op.draft else []) or [-1]:
            (found.setdefault(index, []) if index >= 0 else loose).append(("rejected", reason, None))
    open_users = [i for i, m in enumerate(episode.messages) if i not in found and m.role == "user"]
    if loose and (len(open_users) == 1 or len(episode.messages) == 1):
        found.setdefault(open_users[0] if open_users else 0, []).extend(loose)
    writer_says = dict(skipped)
    out = []
    for index, message in enumerate(episode.messages):
        entries = found.get(index, [])
        if not entries:
            why = writer_says.get(index) or _skip_reason(message.content, message.role, writer)
            out.append({"index": index, "role": message.role, "outcome": "skipped", "reason": why, "memory_ids": []})
            continue
        best = min(entries, key=lambda e: rank.index(e[0]) if e[0] in rank else len(rank))
        out.append({
            "index": index, "role": message.role, "outcome": best[0], "reason": best[1],
            "memory_ids": list(dict.fromkeys(e[2] for e in entries if e[2])),
        })  # fmt: skip
    return out
