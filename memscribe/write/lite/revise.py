"""Revisions of what is known: corrections and forget requests.

A correction ("sorry, I meant 2017, not 2018") rewrites the memory it targets as a new version (UPDATE):
the old value was never true, so nothing is superseded. A forget request DELETEs the memories it names, or,
when it names only part of one, keeps the rest as the next version (UPDATE).
Plans carried out are closed in :mod:`plans`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from memscribe.core.records import MemoryDraft, MemoryRecord, Operation, OpKind, Owner
from memscribe.read.topics import topics_of
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.ledger import Ledger, Pending, draft_from_record
from memscribe.write.lite.lexicon import RELATION_MODS, RELATION_WORD
from memscribe.write.lite.matching import topic_matches
from memscribe.write.lite.reconcile import Reconciler, same_value
from memscribe.write.lite.requests import POINTERS, Correction, day_in_month, forget_attributes, value_shape
from memscribe.write.lite.segment import split_sentences
from memscribe.write.lite.slots import Fact

__all__ = ["Reviser"]

# Topics narrow enough that a forget request naming one covers every memory on it.
_NARROW_TOPICS = frozenset({"phone", "address", "money", "health", "birthday"})

_ORDINAL = r"\d+(?:st|nd|rd|th)?"


def _tail(correction: Correction) -> str:
    """A pattern for the words after the old value that the new one says again in another form: "thursday the
    16th, not tuesday" corrects "tuesday the 14th" whole (each number stands for any number)."""
    extra = correction.new.split()[len((correction.old or "").split()) :]
    numbered = [re.fullmatch(_ORDINAL, w, re.IGNORECASE) is not None for w in extra]
    if not any(numbered):
        return ""
    shaped = [_ORDINAL if n else re.escape(w) for w, n in zip(extra, numbered, strict=True)]
    return r"(?:\s+" + r"\s+".join(shaped) + ")?"


def _replace_last(text: str, old: str, new: str) -> str:
    matches = list(re.finditer(rf"(?<!\w){re.escape(old)}(?!\w)", text, re.IGNORECASE))
    if not matches:
        return text
    last = matches[-1]
    return text[: last.start()] + new + text[last.end() :]


class Reviser:
    """Applies corrections and forget requests through the shared ledger."""

    def __init__(self, ledger: Ledger, reconciler: Reconciler) -> None:
        self.ledger = ledger
        self.reconciler = reconciler

    def forget(self, topic: str, speaker: str, topic_facts: list[Fact], at: datetime) -> None:
        """DELETE every stored memory of ``speaker`` the topic names; drop pending ones of this episode."""
        if topic.lower() in POINTERS:
            for entry in reversed(self.ledger.pending()):
                if entry.speaker == speaker:
                    entry.alive = False
                    return
            return
        slots = {f"{speaker}/{a}" for a in forget_attributes(topic)} | {f.slot for f in topic_facts}
        values = {f.slot: f.value for f in topic_facts}
        targets: dict[str, MemoryRecord] = {}
        for slot in sorted(slots):
            for record in self.ledger.stored_slot(slot, Owner.USER):
                if slot not in values or same_value(record.value, values[slot]):
                    targets.setdefault(record.id, record)
        allowed = (speaker, f"{speaker}'s")
        kinds = topics_of(topic) & _NARROW_TOPICS  # "my phone number" also names a number said in passing

        names = {m.group(0).lower() for m in re.finditer(r"(?<!^)\b[A-Z][a-z]{2,}\b", topic)}
        about_topics = topics_of(topic)

        def named(text: str) -> bool:
            """The topic's words, a narrow topic it names, or a person it names on its topic ("which school
            Theo goes to" covers "Theo started 1st grade at Maplewood", not "Theo wants to be a triceratops")."""
            if topic_matches(topic, text) or kinds & topics_of(text):
                return True
            lowered = set(re.findall(r"[\w'-]+", text.lower()))
            return bool(names & lowered) and bool(about_topics & topics_of(text))

        def words_named(text: str) -> bool:
            return topic_matches(topic, text) or bool(kinds & topics_of(text))

        pool = self.ledger.stored_similar(topic, None, limit=16) + self.ledger.stored_subject(speaker)
        # "forget everything about my brother": the person the speaker named as their brother ("my brother Tom")
        # is who the request is about, every memory of theirs.
        people = _named_as(topic, pool)
        whole = _WHOLE_PERSON.compiled.fullmatch(topic.strip()) is not None
        for person in sorted(people):
            pool += self.ledger.stored_subject(person)
        for record in pool:
            about = record.subject.lower()
            theirs = about.startswith(allowed) or about in topic.lower() or about in people
            if (whole and about in people) or (theirs and named(record.text)):
                targets.setdefault(record.id, record)
        for entry in self.ledger.pending():
            draft = entry.draft
            if entry.speaker == speaker and draft and (draft.slot in slots or named(draft.text)):
                entry.alive = False
        examined = tuple(targets)
        by_slot = {r.id for slot in slots for r in self.ledger.stored_slot(slot, Owner.USER)}
        for record in targets.values():
            reason = f"asked to forget '{topic}'"
            erased = record.id in by_slot or (whole and record.subject.lower() in people)  # all of the person
            rest = None if erased else _unnamed_rest(record, named, words_named)
            if rest is None:
                self.ledger.propose(_delete(record.id, reason, examined), at, speaker)
            else:
                note = f"{reason}: the rest of the memory, which the request does not name, is kept"
                self.ledger.propose(_update(record.id, rest, note, examined), at, speaker)

    def correct(
        self,
        correction: Correction,
        speaker: str,
        facts: list[tuple[Fact, MemoryDraft]],
        at: datetime,
        index: int,
    ) -> bool:
        """Apply a correction said in message ``index``; False when nothing it could correct was found."""
        if facts:
            for fact, draft in facts:
                self._correct_slot(fact, draft, correction, at, speaker)
            return True
        return self._correct_value(correction, speaker, at, index)

    def _correct_slot(self, fact: Fact, draft: MemoryDraft, correction: Correction, at: datetime, speaker: str) -> None:
        note = f"corrected: '{correction.old or 'previous value'}' → '{fact.value}'"
        pending = self.ledger.pending_slot(fact.slot, draft.owner)
        if pending:
            entry = pending[-1]
            kept = replace(draft, valid_from=entry.draft.valid_from if entry.draft else draft.valid_from)
            if entry.op.kind is OpKind.ADD and entry.op.target is not None and entry.draft is not None:
                # history of an out-of-order import stays history: its end is the stored value's start
                kept = replace(kept, valid_to=entry.draft.valid_to, tags=tuple(dict.fromkeys((*kept.tags, "history"))))
            self.ledger.revise(entry, draft=kept, reason=f"{entry.op.reason}; {note}")
            return
        records = self.ledger.stored_slot(fact.slot, draft.owner)
        if records:
            target = records[0]
            fixed = _corrected(replace(draft, valid_from=target.valid_from), at)
            self.ledger.propose(_update(target.id, fixed, note, tuple(r.id for r in records)), at, speaker)
            return
        self.reconciler.fact(fact, draft, at, speaker)

    def _find_value(
        self, correction: Correction, speaker: str
    ) -> tuple[Pending | MemoryRecord, str, str] | None:
        """The most recent memory of the speaker holding the corrected value, that value and what replaces it."""
        shape = value_shape(correction.new) if correction.old is None else None
        if correction.old is None and shape is None:
            return None

        def holds(text: str) -> tuple[str, str] | None:
            if (dated := day_in_month(correction, text)) is not None:
                return dated  # "the 8th, not the 3rd" of "on 3 March": "8 March"
            if correction.old is not None:
                found = re.search(rf"(?<!\w){re.escape(correction.old)}{_tail(correction)}(?!\w)", text, re.I)
                return (found.group(0), correction.new) if found else None
            tokens = [t for t in shape.findall(text) if t != correction.new] if shape else []
            return (tokens[-1], correction.new) if tokens else None

        for entry in reversed(self.ledger.pending()):
            if entry.speaker == speaker and entry.draft and (pair := holds(entry.draft.text)):
                return entry, *pair
        records = self.ledger.stored_subject(speaker) + self.ledger.stored_similar(
            correction.old or correction.new, Owner.USER
        )
        for record in records:
            if record.subject.lower() == speaker and (pair := holds(record.text)):
                return record, *pair
        return None

    def _correct_value(self, correction: Correction, speaker: str, at: datetime, index: int) -> bool:
        found = self._find_value(correction, speaker)
        if found is None:
            return False
        holder, old, meant = found
        note = f"corrected by the speaker: '{old}' → '{meant}'"
        # A stored memory's new version cites the correcting message as its provenance.
        draft = holder.draft if isinstance(holder, Pending) else draft_from_record(holder, message_indices=(index,))
        if draft is None:
            return False
        value = _replace_last(draft.value, old, meant).lower() if draft.value else None
        fixed = replace(draft, text=_replace_last(draft.text, old, meant), value=value)
        start = fixed.valid_from
        if start is not None and old.isdigit() and meant.isdigit() and start.year == int(old):
            fixed = replace(fixed, valid_from=start.replace(year=int(meant)))  # the year was the date
        if isinstance(holder, Pending):
            self.ledger.revise(holder, draft=fixed, reason=f"{holder.op.reason}; {note}")
        else:
            self.ledger.propose(_update(holder.id, _corrected(fixed, at), note, (holder.id,)), at, speaker)
        return True


def _corrected(draft: MemoryDraft, at: datetime) -> MemoryDraft:
    """``draft`` as a stored memory's corrected version: it keeps the start of what it says and notes when it
    was corrected, which is when it was last said (the read path's recency)."""
    return replace(draft, metadata={**draft.metadata, "corrected_at": at.isoformat()})


# A blank run is tried from its first character only ((?<!\s)): a long run of blanks costs linear time.
_CLAUSE = re.compile(r",\s*(?:but|and|so|because)\s+|;\s*|(?<!\s)\s+but\s+", re.IGNORECASE)
_CONTENT = re.compile(r"[^\W\d_]{3,}")


def _unnamed_rest(
    record: MemoryRecord, named: Callable[[str], bool], words_named: Callable[[str], bool]
) -> MemoryDraft | None:
    """What of ``record`` a forget request does not name, as the next version, or None when it names all of
    it: "forget my meds and the panic stuff" leaves "I'm an architect, work is fine" of "I'm an architect, work
    is fine, but the panic attacks are back. my GP put me on sertraline 50mg". The rest is kept in the words it
    was said in, sentence by sentence and, in a sentence the request names, clause by clause; a slot fact the
    request does not name by its words ("my husband Marcel" in the party plans to forget, ``words_named``) is kept
    in the words that name it."""
    kept: list[str] = []
    for sentence in split_sentences(record.text):
        if not named(sentence):
            kept.append(sentence)
            continue
        clauses = [c.strip(" ,;") for c in _CLAUSE.split(sentence)]
        kept += [f"{c.rstrip('.!?')}." for c in clauses if c and not named(c)]
    value = record.value
    if value is not None and value.lower() not in " ".join(kept).lower():
        mention = re.search(rf"\b(?:my|our)\s+(?:[\w'-]+\s+){{0,2}}?{re.escape(value)}\b", record.text, re.I)
        if mention is not None and not words_named(mention.group(0)):
            kept.insert(0, f"{mention.group(0)}." if kept else mention.group(0))
    rest = " ".join(kept)
    if not kept or (len(_CONTENT.findall(rest)) < 3 and (value is None or value.lower() not in rest.lower())):
        return None
    # Nothing of the words forgotten stays with the new version: not the words as said, not their topics.
    metadata = {k: v for k, v in record.metadata.items() if k not in ("said", "topics")}
    fact = {} if value is None or value.lower() in rest.lower() else {"slot": None, "value": None}
    return draft_from_record(record, text=rest, metadata=metadata, **fact)


# A request about a whole person: "my brother", "everything about my brother", "my ex-husband Mark".
_WHOLE_PERSON = lazy(
    r"(?:(?:everything|all|anything)\s+(?:about|of|regarding)\s+)?\b(?:my|our)\s+" + RELATION_MODS
    + r"(?P<rel>" + RELATION_WORD + r")(?:\s+(?P<name>(?-i:[A-Z])[a-z'-]+|[a-z'-]+$))?",
    re.IGNORECASE,
)


def _named_as(topic: str, records: list[MemoryRecord]) -> set[str]:
    """The people ``records`` name as the relative ``topic`` names ("my brother" after "my brother Tom": tom)."""
    match = _WHOLE_PERSON.search(topic)
    if match is None:
        return set()
    if match.group("name"):
        return {match.group("name").lower()}
    naming = re.compile(
        r"\b(?:my|our)\s+" + RELATION_MODS + "(?:" + re.escape(match.group("rel")) + r")\s+([A-Z][a-z'-]+)",
        re.IGNORECASE,
    )
    return {m.group(1).lower() for r in records for m in naming.finditer(r.text)
            if r.subject.lower() == m.group(1).lower()}  # fmt: skip


def _delete(target: str, reason: str, candidates: tuple[str, ...]) -> Operation:
    return Operation(OpKind.DELETE, reason, None, target, candidates)


def _update(target: str, draft: MemoryDraft, reason: str, candidates: tuple[str, ...]) -> Operation:
    return Operation(OpKind.UPDATE, reason, draft, target, candidates)
