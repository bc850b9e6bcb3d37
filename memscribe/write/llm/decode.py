"""Model answers → operations, with every rule the engine enforces checked here too, and reasons kept.

Two kinds of rejection:

* **engine-visible**: the operation breaks an invariant :func:`memscribe.write.plan.plan_changes` also
  checks (subject or owner changed, an older statement superseding a newer one, a closed or missing
  target, an empty text, ``valid_to`` before ``valid_from``). It is recorded *and* forwarded unchanged, so
  the plan journals it as rejected with its reason.
* **writer-only**: only the writer can tell (an alias the call never showed, a date that does not parse, a
  change to a draft of this same episode that breaks an invariant). Nothing is emitted for it; it is kept
  in :attr:`ProposedOps.rejections` with a best-effort :class:`Operation` for journaling.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from memscribe.core.clock import ensure_utc
from memscribe.core.records import Episode, Layer, MemoryDraft, MemoryRecord, Operation, OpKind, Owner, Usage
from memscribe.core.redact import redact
from memscribe.write.lite.segment import canonical_name
from memscribe.write.llm.aliases import AliasBook

__all__ = ["Decoder", "ProposedOps", "Rejection", "check_invariants", "parse_when"]

_NEEDS_TEXT = frozenset({OpKind.ADD, OpKind.UPDATE, OpKind.SUPERSEDE})
_CLOSES = frozenset({OpKind.SUPERSEDE, OpKind.DELETE})
_REWRITES = frozenset({OpKind.UPDATE, OpKind.SUPERSEDE})


@dataclass(frozen=True)
class Rejection:
    """An operation the model proposed that was refused, with why.

    ``journaled`` is True when the operation was forwarded and the engine's plan journals the rejection;
    False for writer-only rejections, whose ``operation`` is what a journaling hook would record.
    """

    kind: str
    why: str
    model_reason: str
    alias: int | None
    journaled: bool
    chunk: int
    operation: Operation


class ProposedOps(list[Operation]):
    """A writer's operations (a plain list to the engine), plus the rejections and cost behind them."""

    def __init__(self) -> None:
        super().__init__()
        self.rejections: list[Rejection] = []
        self.usage: Usage = Usage()
        self.chunks: int = 0


def parse_when(raw: object, anchor: datetime) -> datetime | None:
    """An ISO date or datetime from the model. A bare date on the anchor's day means the anchor itself, so a
    change stated today is not dated to midnight (that would make it older than a memory from this morning).
    Raises ValueError for anything else."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if not isinstance(raw, str):
        raise ValueError(f"date {raw!r} is not a string")
    text = raw.strip().replace("Z", "+00:00")
    if len(text) == 10:
        day = datetime.fromisoformat(text).date()
        anchor = ensure_utc(anchor)
        return anchor if day == anchor.date() else datetime(day.year, day.month, day.day, tzinfo=UTC)
    return ensure_utc(datetime.fromisoformat(text))


def check_invariants(
    kind: OpKind, draft: MemoryDraft | None, target: MemoryRecord | None, episode_time: datetime
) -> str | None:
    """The engine's invariants, for an operation on a stored target (None for a plain ADD)."""
    if kind in _NEEDS_TEXT:
        if draft is None or not draft.text.strip():
            return f"{kind} needs a memory text"
        start = draft.valid_from or episode_time
        if draft.valid_to is not None and draft.valid_to < start:
            return "valid_to is before valid_from"
    if kind is OpKind.ADD:
        if target is not None and draft is not None and (draft.valid_from or episode_time) >= target.valid_from:
            return "a history entry must be older than the memory that superseded it"
        return None
    if target is None:
        return f"{kind} needs a target memory"
    if kind in (OpKind.UPDATE, OpKind.SUPERSEDE):
        assert draft is not None
        if draft.subject.casefold() != target.subject.casefold():
            return f"subject {draft.subject!r} differs from the target's {target.subject!r}"
        if draft.owner != target.owner:
            return f"owner {draft.owner} differs from the target's {target.owner}"
    if kind is OpKind.SUPERSEDE and draft is not None and (draft.valid_from or episode_time) < target.valid_from:
        return "an older statement cannot supersede a newer one"
    return None


def flatten(items: Sequence[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """Each operation followed by the related operations it implies."""
    for item in items:
        yield item
        yield from (r for r in item.get("related") or () if isinstance(r, Mapping))


@dataclass
class Decoder:
    """Decodes one episode's answers chunk by chunk into ``out``; tracks drafts later chunks may change."""

    episode: Episode
    out: ProposedOps
    slots: list[Operation | None] = field(default_factory=list)  # None: undone by a later chunk
    closed: set[str] = field(default_factory=set)  # stored ids a SUPERSEDE or DELETE already retired
    notes: int = 0  # entries of out.rejections that report an empty answer rather than a refusal

    def pending_drafts(self, limit: int) -> list[tuple[int, MemoryDraft]]:
        """Drafts earlier chunks proposed, newest last, for later chunks to see."""
        found = [(i, op.draft) for i, op in enumerate(self.slots) if op is not None and op.draft is not None]
        return found[-limit:] if limit else []

    def decode(
        self,
        items: Sequence[Mapping[str, Any]],
        book: AliasBook,
        indices: list[int],
        chunk: int,
        *,
        deletes_asked: bool = True,
    ) -> list[int]:
        """Decode one call's operations; returns the positions it added (for spreading the call's cost).

        ``deletes_asked`` False when the rules found no forget request or correction in the messages: a
        DELETE of a stored memory is then refused, since nothing the person said asks for it (a DELETE in a
        decision's ``related`` list is a propagated change and stays allowed)."""
        added: list[int] = []
        for item in flatten(items):
            # Only a decision's own DELETE needs asking for; a related one propagates a change (a move
            # closes the old commute), so it stays allowed.
            top = any(item is i for i in items)
            if top and not deletes_asked and str(item["op"]) == OpKind.DELETE.value and item.get("target") is not None:
                why = "no forget request or correction in these messages"
                self._refuse(OpKind.DELETE, why, str(item.get("reason") or "no reason given"), None, chunk)
                continue
            position = self._one(item, book, indices, chunk)
            if position is not None:
                added.append(position)
        return added

    def adopt(self, ops: Sequence[Operation]) -> list[int]:
        """Take operations decided elsewhere (the lite fallback), skipping any on a target already closed."""
        added: list[int] = []
        for op in ops:
            if op.target is not None and op.target in self.closed:
                continue
            if op.target is not None and op.kind in _CLOSES:
                self.closed.add(op.target)
            self.slots.append(op)
            added.append(len(self.slots) - 1)
        return added

    def note(self, chunk: int, kind: OpKind, why: str, *, refusal: bool = True) -> None:
        """Record why a chunk produced nothing usable, so the add result and the journal say so.
        ``refusal`` False for an answer that was fine but empty: it is reported, not counted as refused."""
        self.out.rejections.append(Rejection(kind.value, why, why, None, False, chunk, Operation(kind, why)))
        self.notes += 0 if refusal else 1

    def finish(self) -> ProposedOps:
        self.out.extend(op for op in self.slots if op is not None)
        return self.out

    def _one(self, item: Mapping[str, Any], book: AliasBook, indices: list[int], chunk: int) -> int | None:
        kind = OpKind(str(item["op"]))
        reason = str(item.get("reason") or "").strip() or "no reason given"
        raw_alias = item.get("target")
        alias = int(raw_alias) if isinstance(raw_alias, int | float) and not isinstance(raw_alias, bool) else None
        record = book.record(alias) if alias is not None else None
        position = book.position(alias) if alias is not None else None
        if raw_alias is not None and record is None and position is None:
            self._refuse(kind, f"unknown memory number {raw_alias!r}", reason, alias, chunk)
            return None
        try:
            draft = self._draft(item, kind, record, indices) if kind in _NEEDS_TEXT else None
        except ValueError as error:
            self._refuse(kind, f"unparseable date: {error}", reason, alias, chunk)
            return None
        if position is not None and alias is not None:
            return self._on_pending(kind, draft, position, reason, alias, chunk)
        if record is not None and draft is not None and kind in _REWRITES and _same_value(draft, record):
            # A weak model's favourite destructive edit: rewriting a memory that already says this.
            kind, draft, reason = OpKind.NOOP, None, f"{reason} (already stored: same value)"
        op = Operation(kind, reason, draft, record.id if record else None, book.ids)
        why = check_invariants(kind, draft, record, self.episode.timestamp)
        if why is None and record is not None and kind is not OpKind.ADD and record.id in self.closed:
            why = f"target {record.id!r} was already closed by an earlier operation"
        if why is not None:
            self.out.rejections.append(Rejection(kind.value, why, reason, alias, True, chunk, op))
        elif record is not None and kind in _CLOSES:
            self.closed.add(record.id)
        self.slots.append(op)
        return len(self.slots) - 1

    def _refuse(self, kind: OpKind, why: str, reason: str, alias: int | None, chunk: int) -> None:
        op = Operation(kind, reason)
        self.out.rejections.append(Rejection(kind.value, why, reason, alias, False, chunk, op))

    def _on_pending(
        self, kind: OpKind, draft: MemoryDraft | None, position: int, reason: str, alias: int, chunk: int
    ) -> int | None:
        """Apply a change to a draft of this episode, which the engine has not seen, here."""
        earlier = self.slots[position]
        assert earlier is not None and earlier.draft is not None
        old = earlier.draft
        if kind is OpKind.NOOP:
            return None
        if kind is OpKind.DELETE:
            self.slots[position] = None
            return None
        assert draft is not None
        why = _pending_violation(kind, draft, old, self.episode.timestamp)
        if why is not None:
            self._refuse(kind, why, reason, alias, chunk)
            return None
        if kind is OpKind.UPDATE:
            merged = replace(draft, valid_from=draft.valid_from or old.valid_from)
            self.slots[position] = replace(earlier, draft=merged, reason=f"{earlier.reason}; {reason}")
            return None
        start = draft.valid_from or self.episode.timestamp
        self.slots[position] = replace(earlier, draft=replace(old, valid_to=start))
        self.slots.append(Operation(OpKind.ADD, reason, draft, None, earlier.candidates))
        return len(self.slots) - 1

    def _draft(
        self, item: Mapping[str, Any], kind: OpKind, target: MemoryRecord | None, indices: list[int]
    ) -> MemoryDraft:
        msgs = tuple(i for i in item.get("msgs") or () if i in indices) or tuple(indices)
        source = self.episode.messages[msgs[0]]
        anchor = source.timestamp or self.episode.timestamp
        inherit = target is not None and kind is not OpKind.ADD
        owner_raw = item.get("owner") or (target.owner.value if inherit and target else None)
        owner = Owner(owner_raw) if owner_raw else (Owner.AGENT if source.role == "assistant" else Owner.USER)
        subject = str(item.get("subject") or "").strip().lower()
        if not subject:
            subject = target.subject if inherit and target else _speaker_key(source.role, source.name)
        slot = str(item.get("slot") or "").strip().lower() or None
        # A refinement keeps the refined fact's start (the plan fills it in); anything else starts when said.
        default_start = None if kind is OpKind.UPDATE else ensure_utc(anchor)
        return MemoryDraft(
            text=redact(str(item.get("text") or "").strip())[0],
            subject=subject,
            slot=slot,
            value=redact(str(item["value"]))[0] if item.get("value") else None,
            owner=owner,
            layer=Layer.INTENTION if slot and slot.endswith("/plan") else Layer.FACT,
            message_indices=msgs,
            valid_from=parse_when(item.get("valid_from"), anchor) or default_start,
            valid_to=parse_when(item.get("valid_to"), anchor),
        )


def _same_value(draft: MemoryDraft, target: MemoryRecord) -> bool:
    """Whether a rewrite would say nothing new: the same text, or a value the target already holds."""
    if draft.text.strip().casefold() == target.text.strip().casefold():
        return True
    value = (draft.value or "").strip().casefold()
    if not value:
        return False
    held = (target.value or "").strip().casefold()
    return value == held or (len(value) >= 3 and value in target.text.casefold() and draft.slot == target.slot)


def _speaker_key(role: str, name: str | None) -> str:
    if role == "assistant":
        return "assistant"
    return canonical_name(name) if name else "user"


def _pending_violation(kind: OpKind, draft: MemoryDraft, old: MemoryDraft, episode_time: datetime) -> str | None:
    if not draft.text.strip():
        return f"{kind} needs a memory text"
    if kind is OpKind.ADD:
        return "a history entry must target a stored memory, not one proposed in this episode"
    if draft.subject.casefold() != old.subject.casefold():
        return f"subject {draft.subject!r} differs from the target's {old.subject!r}"
    if draft.owner != old.owner:
        return f"owner {draft.owner} differs from the target's {old.owner}"
    if kind is OpKind.SUPERSEDE and (draft.valid_from or episode_time) < (old.valid_from or episode_time):
        return "an older statement cannot supersede a newer one"
    return None
