"""Reconciliation rules: one new fact or statement against what is stored and what is pending.

Candidates only say *what to compare against*; these rules decide. Single-valued slot, same subject,
different value → SUPERSEDE (unless the statement is older than the stored fact: then it is history);
same value → NOOP; multi-valued → ADD unless already there (NOOP) or refined (UPDATE); plain statements
→ ADD unless a near-duplicate is stored (NOOP) or the new one refines it (UPDATE).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from memscribe.core.records import MemoryDraft, MemoryRecord, Operation, OpKind
from memscribe.core.text import normalize
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.ledger import Ledger, Pending
from memscribe.write.lite.matching import content_tokens, covers, near_duplicate
from memscribe.write.lite.siblings import unsay_changed
from memscribe.write.lite.slots import Fact, FactKind

__all__ = ["Reconciler", "same_value"]

_OPPOSITE = {"likes": "dislikes", "dislikes": "likes"}


def same_value(a: str | None, b: str | None) -> bool:
    return normalize(a or "").strip(" .") == normalize(b or "").strip(" .")


def _refines(new: str | None, old: str | None) -> bool:
    """ "dog max" refines "dog": every word of the old value is in the new one, and there is more."""
    old_words, new_words = set((old or "").split()), set((new or "").split())
    return bool(old_words) and old_words < new_words


def plans_match(a: str | None, b: str | None) -> bool:
    """Two plan values name the same plan when their content words mostly overlap."""
    x, y = content_tokens(a or ""), content_tokens(b or "")
    return bool(x and y) and len(x & y) / len(x | y) >= 0.6


_YEAR = lazy(r"\b(?:19|20)\d{2}\b")


def _dates_more(new: str, old: str) -> bool:
    """ "User has worked at Litware since 2021" over "User works at Litware": the same value, and a year."""
    return bool(set(_YEAR.findall(new)) - set(_YEAR.findall(old)))


def _overlaps(a: str | None, b: str | None) -> bool:
    return bool(content_tokens(a or "") & content_tokens(b or ""))


def _day(when: datetime) -> str:
    return when.date().isoformat()


class Reconciler:
    """Turns facts and statements into operations, recording them in a :class:`Ledger`."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def _propose(
        self,
        kind: OpKind,
        reason: str,
        at: datetime,
        speaker: str,
        *,
        draft: MemoryDraft | None = None,
        target: str | None = None,
        candidates: tuple[str, ...] = (),
    ) -> Pending:
        return self.ledger.propose(Operation(kind, reason, draft, target, candidates), at, speaker)

    def _noop(
        self, record: MemoryRecord, reason: str, at: datetime, speaker: str, ids: tuple[str, ...]
    ) -> None:
        if record.id not in self.ledger.confirmed():
            self._propose(OpKind.NOOP, reason, at, speaker, target=record.id, candidates=ids)

    def fact(self, fact: Fact, draft: MemoryDraft, at: datetime, speaker: str) -> Pending | None:
        """Plan one slot fact; returns the pending entry it created or changed, if any."""
        if fact.kind is FactKind.END:
            return self._end(fact, draft, at, speaker)
        if (reversed_pref := self._reversal(fact, draft, at, speaker)) is not None:
            return reversed_pref
        if fact.single:
            return self._single(fact, draft, at, speaker)
        return self._multi(fact, draft, at, speaker)

    def _retire_pending(self, entry: Pending, newer: MemoryDraft) -> None:
        """An earlier statement of this episode set another value: it becomes history, or goes if no older."""
        entry.alive = False
        old = entry.draft
        if (
            old is None
            or old.valid_from is None
            or newer.valid_from is None
            or old.valid_from >= newer.valid_from
        ):
            return
        history = replace(old, slot=None, value=None, valid_to=newer.valid_from, tags=(*old.tags, "history"))
        self._propose(
            OpKind.ADD,
            f"{entry.op.reason}; replaced later in the same episode, kept as history",
            entry.at,
            entry.speaker,
            draft=history,
        )

    def _single(self, fact: Fact, draft: MemoryDraft, at: datetime, speaker: str) -> Pending | None:
        for entry in reversed(self.ledger.pending_slot(fact.slot, draft.owner)):
            if entry.op.kind is OpKind.ADD and entry.op.target is not None:
                continue  # history of an out-of-order import: not the current value
            if same_value(entry.draft.value if entry.draft else None, fact.value):
                if entry.draft is not None and _dates_more(draft.text, entry.draft.text):
                    kept = replace(draft, valid_from=entry.draft.valid_from)
                    self.ledger.revise(entry, draft=kept, reason=f"{entry.op.reason}; dated")
                    return entry
                return None
            self._retire_pending(entry, draft)
        records = self.ledger.stored_slot(fact.slot, draft.owner) or self._uncategorised(fact, draft)
        ids = tuple(r.id for r in records)
        if not records:
            return self._propose(
                OpKind.ADD,
                f"new {fact.attribute} for {fact.subject}: '{fact.value}'",
                at,
                speaker,
                draft=draft,
            )
        current = records[0]
        if same_value(current.value, fact.value):
            return self._confirm(current, fact, draft, at, speaker, ids)
        if at < current.valid_from:
            history = replace(draft, valid_to=current.valid_from, tags=(*draft.tags, "history"))
            reason = (
                f"older statement ({_day(at)}) than the stored {fact.attribute} '{current.value}' "
                f"(since {_day(current.valid_from)}): kept as history, not superseding"
            )
            return self._propose(
                OpKind.ADD, reason, at, speaker, draft=history, target=current.id, candidates=ids
            )
        reason = (
            f"{fact.attribute} of {fact.subject} changed from '{current.value}' to '{fact.value}' "
            f"(single-valued slot {fact.slot})"
        )
        return self._close(current, records, reason, draft, at, speaker)

    def _confirm(
        self, current: MemoryRecord, fact: Fact, draft: MemoryDraft, at: datetime, speaker: str, ids: tuple[str, ...]
    ) -> Pending | None:
        """The stored value said again: NOOP, or UPDATE when the statement dates it ("joined back in 2019")."""
        if _dates_more(draft.text, current.text):
            reason = f"{fact.attribute} of {fact.subject} still '{fact.value}'; the statement dates it"
            dated = replace(draft, valid_from=current.valid_from)
            return self._propose(OpKind.UPDATE, reason, at, speaker, draft=dated, target=current.id, candidates=ids)
        self._noop(current, f"{fact.attribute} of {fact.subject} already '{fact.value}'", at, speaker, ids)
        return None

    def _uncategorised(self, fact: Fact, draft: MemoryDraft) -> list[MemoryRecord]:
        """ "Nothing beats risotto for me", then "my favourite food is pho": a favourite stored with no category
        is the one this category replaces, when the subject has no favourite of another category."""
        if not fact.attribute.startswith("favorite_"):
            return []
        heads = {(r.slot or "").lower() for r in self.ledger.stored_subject(fact.subject)}
        if any(h.partition("/")[2].startswith("favorite_") for h in heads):
            return []
        return self.ledger.stored_slot(f"{fact.subject}/favorite", draft.owner)

    def _multi(self, fact: Fact, draft: MemoryDraft, at: datetime, speaker: str) -> Pending | None:
        same = plans_match if fact.kind is FactKind.INTENT else same_value
        for entry in self.ledger.pending_slot(fact.slot, draft.owner):
            old_value = entry.draft.value if entry.draft else None
            if same(old_value, fact.value) or _refines(old_value, fact.value):
                return None
            if _refines(fact.value, old_value):
                self.ledger.revise(entry, draft=draft, reason=f"{entry.op.reason}; refined to '{fact.value}'")
                return entry
        records = self.ledger.stored_slot(fact.slot, draft.owner)
        ids = tuple(r.id for r in records)
        for record in records:
            if same(record.value, fact.value) or _refines(record.value, fact.value):
                self._noop(
                    record,
                    f"{fact.attribute} of {fact.subject} already include '{record.value}'",
                    at,
                    speaker,
                    ids,
                )
                return None
        for record in records:
            if _refines(fact.value, record.value):
                reason = f"refines {fact.attribute} '{record.value}' to '{fact.value}'"
                return self._propose(
                    OpKind.UPDATE, reason, at, speaker, draft=draft, target=record.id, candidates=ids
                )
        noun = "plan" if fact.kind is FactKind.INTENT else f"{fact.attribute} value"
        return self._propose(
            OpKind.ADD,
            f"new {noun} for {fact.subject}: '{fact.value}' (multi-valued)",
            at,
            speaker,
            draft=draft,
            candidates=ids,
        )

    def _reversal(self, fact: Fact, draft: MemoryDraft, at: datetime, speaker: str) -> Pending | None:
        """ "I love coffee now" after "I hate coffee": the opposite preference is superseded."""
        opposite = _OPPOSITE.get(fact.attribute)
        if opposite is None:
            return None
        slot = f"{fact.subject}/{opposite}"
        for entry in self.ledger.pending_slot(slot, draft.owner):
            if entry.draft is not None and same_value(entry.draft.value, fact.value):
                entry.alive = False
        records = self.ledger.stored_slot(slot, draft.owner)
        for record in records:
            if same_value(record.value, fact.value) and at >= record.valid_from:
                reason = f"preference reversed: '{fact.value}' moved from {opposite} to {fact.attribute}"
                return self._close(record, records, reason, draft, at, speaker)
        return None

    def _end(self, fact: Fact, draft: MemoryDraft, at: datetime, speaker: str) -> Pending | None:
        """ "I quit my job at Google": close the matching value with the statement as an event memory."""
        event = replace(draft, slot=None, value=None, tags=(*draft.tags, "ended"))
        matches = plans_match if fact.attribute == "plan" else _overlaps
        for entry in self.ledger.pending_slot(fact.slot, draft.owner):
            if entry.draft is not None and (
                (fact.value is None and fact.single) or matches(entry.draft.value, fact.value)
            ):
                entry.alive = False
        records = self.ledger.stored_slot(fact.slot, draft.owner)
        for record in records:
            if (fact.value is None and fact.single) or matches(record.value, fact.value):
                if at < record.valid_from:
                    break
                reason = f"{fact.attribute} '{record.value}' of {fact.subject} ended"
                return self._close(record, records, reason, event, at, speaker)
        return self.plain(event, at, speaker)

    def _close(
        self,
        record: MemoryRecord,
        records: list[MemoryRecord],
        reason: str,
        draft: MemoryDraft,
        at: datetime,
        speaker: str,
    ) -> Pending | None:
        """SUPERSEDE ``record`` with ``draft``, never dated before the memory it closes; the memories kept from
        the same statement for its other facts leave the old value out (:mod:`siblings`)."""
        start = max(draft.valid_from or at, record.valid_from)
        entry = self._propose(
            OpKind.SUPERSEDE,
            reason,
            at,
            speaker,
            draft=replace(draft, valid_from=start),
            target=record.id,
            candidates=tuple(r.id for r in records),
        )
        unsay_changed(self.ledger, record, at, speaker)
        return entry

    def plain(self, draft: MemoryDraft, at: datetime, speaker: str) -> Pending | None:
        """A statement with no slot: ADD unless a near-duplicate exists (NOOP) or it refines one (UPDATE)."""
        for entry in self.ledger.pending():
            # a history version (an old chat imported late) does not make what still holds redundant
            held = entry.draft
            if held is not None and "history" not in held.tags and near_duplicate(draft.text, held.text):
                return None
        similar = self.ledger.stored_similar(draft.text, draft.owner)
        ids = tuple(r.id for r in similar)
        for record in similar:
            if near_duplicate(draft.text, record.text):
                self._noop(record, "near-duplicate of a stored memory", at, speaker, ids)
                return None
        for record in similar:
            same_subject = record.subject.lower() == draft.subject.lower()
            if (
                record.slot is None
                and same_subject
                and covers(draft.text, record.text)
                and at >= record.valid_from
            ):
                return self._propose(
                    OpKind.UPDATE,
                    "adds detail to a stored memory",
                    at,
                    speaker,
                    draft=draft,
                    target=record.id,
                    candidates=ids,
                )
        return self._propose(OpKind.ADD, "new memorable statement", at, speaker, draft=draft, candidates=ids)
