"""The pro writer on a lossless base: the lite rules' operations, and only the model operations that check out.

The rules keep every memorable statement in the speaker's words (the lossless base). A model operation is
taken on top of that only when it can be checked against what was said and what is stored:

* an ADD adds an extracted fact when its value is found in the messages, no base memory already holds it, and
  no stored single-valued fact of the same subject on the same thing holds another value (that is a change);
* a SUPERSEDE or UPDATE changes a stored memory only when that memory holds a single-valued fact (a slot
  whose attribute holds one value at a time: not hobbies, pets, languages...),
  the operation names the same slot (or none), its new value is found in the messages, differs from the
  stored one, the statement and the memory name a common topic, and the rules left that memory alone.
  Where a base memory holds the new value, that memory (the speaker's words) is what replaces the old one;
* a DELETE is taken only when the person asked to forget or corrected something, the rules did not already
  close that memory, and the messages share a word with it.

Everything else is refused with its reason, and the base stays as the rules wrote it: a doubtful model
operation can neither drop nor retire what the person said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from memscribe.core.records import Episode, MemoryDraft, MemoryRecord, Operation, OpKind
from memscribe.read.topics import topics_of
from memscribe.write.llm.decode import Rejection, check_invariants

__all__ = ["MANY_VALUED", "Grounding", "changeable", "covers", "grounded_in", "replaceable", "same_topic"]

_WORD = re.compile(r"\w{4,}", re.UNICODE)
_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text.casefold()).strip()


def grounded_in(value: str | None, text: str) -> bool:
    """Whether ``value`` (a model's new value) is found in ``text`` (what was said), case and spacing aside."""
    held = _norm(value or "").strip(" .,;:!?\"'")
    return len(held) >= 2 and held in _norm(text)


def same_topic(statement: str, memory: str) -> bool:
    """Whether a statement and a stored memory name a common topic (home, work, pets...): a new value
    replaces an old one only about the same thing."""
    return bool(topics_of(statement) & topics_of(memory))


def changeable(records: Sequence[MemoryRecord], deletes_asked: bool) -> list[MemoryRecord]:
    """The stored memories a checked model operation could act on: slotted ones (only those can be replaced
    or corrected), and every one when the person asked to forget or corrected something."""
    return list(records) if deletes_asked else [r for r in records if replaceable(r.slot)]


def covers(base: Sequence[Operation], episode: Episode, indices: Sequence[int]) -> bool:
    """Whether the base keeps something from every non-empty message of the person: then a model ADD could
    only repeat a value the speaker's words already hold, so with no memory to change, a call adds nothing."""
    kept = {i for op in base if op.draft is not None for i in op.draft.message_indices}
    said = [i for i in indices if episode.messages[i].role == "user" and episode.messages[i].content.strip()]
    return all(i in kept for i in said)


def _many_valued() -> frozenset[str]:
    from memscribe.write.lite.rules import MENTION_RULES, PRE_RULES, STATE_RULES

    return frozenset(r.attribute for r in (*PRE_RULES, *STATE_RULES, *MENTION_RULES) if not r.single)


MANY_VALUED = _many_valued()
"""Attributes that hold several values at once (hobbies, pets, languages...), per the lite rules' slots: a
new value adds to them and never replaces an old one."""


def replaceable(slot: str | None) -> bool:
    """Whether a stored memory's slot holds one value that a new value could replace."""
    return bool(slot) and _attribute(slot) not in MANY_VALUED


def _attribute(slot: str | None) -> str:
    return (slot or "").rpartition("/")[2].strip().casefold()


@dataclass
class Grounding:
    """One chunk's merge: ``base`` (the rules' operations) plus the model operations that pass the checks."""

    base: list[Operation]
    said: str  # the chunk's messages, as written
    records: dict[str, MemoryRecord]  # the stored memories the call showed, by id
    episode_time: datetime
    deletes_asked: bool
    chunk: int
    rejections: list[Rejection] = field(default_factory=list)
    agreed: int = 0  # model operations the base already carries out (not refusals)

    def merge(self, proposed: Sequence[Operation], refused: Sequence[Rejection]) -> list[Operation]:
        """The base with the model's checked operations applied; refusals (the decoder's and these checks')
        end up in :attr:`rejections`, none of them forwarded to the engine."""
        out = list(self.base)
        already = {id(r.operation) for r in refused}
        self.rejections.extend(replace(r, journaled=False) for r in refused)
        touched: set[str] = {op.target for op in out if op.target}
        for op in proposed:
            if id(op) in already or op.kind is OpKind.NOOP:
                continue
            why = self._apply(op, out, touched)
            if why is not None:
                self._refuse(op, why)
        return out

    def _apply(self, op: Operation, out: list[Operation], touched: set[str]) -> str | None:
        if op.kind is OpKind.ADD:
            return self._add(op, out)
        record = self.records.get(op.target or "")
        if record is None:
            return "it names no stored memory shown to the model"
        if record.id in touched:
            if any(o.target == record.id and o.kind is op.kind for o in out):
                self.agreed += 1
                return None
            return "the rules already decided about this memory"
        if op.kind is OpKind.DELETE:
            return self._delete(op, record, out, touched)
        return self._change(op, record, out, touched)

    def _add(self, op: Operation, out: list[Operation]) -> str | None:
        draft = op.draft
        if draft is None or op.target is not None:
            return "history entries are the rules' to write"
        if any(o.draft is not None and _norm(o.draft.text) == _norm(draft.text) for o in out):
            self.agreed += 1  # the rules keep the same words
            return None
        if not grounded_in(draft.value, self.said):
            return "its value is not in the messages"
        if any(o.draft is not None and grounded_in(draft.value, o.draft.text) for o in out):
            self.agreed += 1  # a memory in the speaker's words already holds this value
            return None
        if self._clash(draft) is not None:
            return "a stored memory holds another value of this single-valued fact (a change is a SUPERSEDE)"
        out.append(replace(op, reason=f"{op.reason} (model, value checked against the messages)"))
        return None

    def _clash(self, draft: MemoryDraft) -> MemoryRecord | None:
        """A stored single-valued fact of the same subject and owner, about the same thing, holding another
        value: adding beside it would leave two current values (a question's "Austin" beside the home city)."""
        for record in self.records.values():
            if not replaceable(record.slot) or record.owner != draft.owner:
                continue
            if record.subject.casefold() != draft.subject.casefold() or grounded_in(draft.value, record.text):
                continue
            if _attribute(draft.slot) == _attribute(record.slot) or same_topic(draft.text, record.text):
                return record
        return None

    def _delete(self, op: Operation, record: MemoryRecord, out: list[Operation], touched: set[str]) -> str | None:
        if not self.deletes_asked:
            return "no forget request or correction in these messages"
        if not set(_WORD.findall(record.text.casefold())) & set(_WORD.findall(self.said.casefold())):
            return "the messages do not mention this memory"
        out.append(op)
        touched.add(record.id)
        return None

    def _change(self, op: Operation, record: MemoryRecord, out: list[Operation], touched: set[str]) -> str | None:
        draft = op.draft
        assert draft is not None
        if not replaceable(record.slot):
            return "the target holds no single-valued fact that a new value could replace"
        if draft.slot and _attribute(draft.slot) != _attribute(record.slot):
            return f"slot {draft.slot!r} is not the target's {record.slot!r}"
        if not grounded_in(draft.value, self.said):
            return "its new value is not in the messages"
        if grounded_in(draft.value, record.text) or grounded_in(record.value, draft.value or ""):
            return "the target already holds this value"
        value = draft.value
        index = next((i for i, o in enumerate(out) if o.kind is OpKind.ADD and o.target is None and o.draft is not None
                      and o.draft.subject.casefold() == record.subject.casefold() and o.draft.owner == record.owner
                      and grounded_in(value, o.draft.text)), None)  # fmt: skip
        if index is not None:
            base = out[index]
            assert base.draft is not None
            start = None if op.kind is OpKind.UPDATE else base.draft.valid_from
            new = replace(base.draft, slot=record.slot, value=value, valid_from=start)
            because = f"{base.reason}; model: {op.kind.value.lower()} of the stored fact ({op.reason})"
            changed = replace(base, kind=op.kind, target=record.id, draft=new, reason=because)
        else:
            changed = replace(op, draft=replace(draft, slot=record.slot))
        assert changed.draft is not None
        if not same_topic(changed.draft.text if index is not None else self.said, record.text):
            return "the statement and the target are not about the same topic"
        why = check_invariants(changed.kind, changed.draft, record, self.episode_time)
        if why is not None:
            return why
        if index is not None:
            out[index] = changed
        else:
            out.append(changed)
        touched.add(record.id)
        return None

    def _refuse(self, op: Operation, why: str) -> None:
        text = f"kept the rules' memories: {why}"
        self.rejections.append(Rejection(op.kind.value, text, op.reason, None, False, self.chunk, op))
