"""Current values win beyond the slot list: a newer statement that changes a single-valued topic closes the
older statements of the same subject on that topic.

Slot facts ("lives in Seattle" → "moved to Sydney") are reconciled by value in :mod:`reconcile`. Most changes
people write fit no slot rule: "my new manager at Stripe", "pescatarian is fine now", "they made me charge
nurse". Here a statement that carries a change cue (:mod:`cues`) and names a single-valued topic
(:mod:`memscribe.read.topics`) closes each older current statement that the candidate search returned, that is
about the same subject and on the same topic: its version gets ``valid_to`` (an UPDATE journaled with the
reason), so it leaves current search but stays in history. Statements that are hypothetical, temporary,
questions or someone else's never close anything, and an older statement (a late import) never closes a newer
one. On multi-valued topics (pets, children, hobbies) only an ending closes, and only statements that share a
name or content word with it ("Clover was put to sleep" closes "we adopted Clover"). A statement of an ending
("lost my job at the depot") holds no current value, so a later change on its topic leaves it true; only taking
the thing up again ("smoking again", "back to the office") closes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial

from memscribe.core.records import MemoryDraft, MemoryRecord, Operation, OpKind, Owner
from memscribe.read.topics import MULTI_TOPICS, topics_of
from memscribe.write.lite.cues import change_cues, changes, ends, hypothetical, temporary
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.ledger import Ledger, Pending, draft_from_record
from memscribe.write.lite.levels import ladder_steps, stepped_past
from memscribe.write.lite.lexicon import NUMBER_WORDS, words
from memscribe.write.lite.linked import changed_topics, stated_topics
from memscribe.write.lite.matching import content_tokens, stem
from memscribe.write.lite.phrases import believed_values
from memscribe.write.lite.residue import ended_values, still_holds
from memscribe.write.lite.schedule import moved_days, without_old_day
from memscribe.write.lite.siblings import unsay_changed

__all__ = ["TopicReplacer", "statement_tags"]

_SWITCH = re.compile(
    r"\b(?:switched|switching|instead|now|replaced|moved to|started|joined|took up|new|for a|to a)\b|换成|改成|现在",
    re.IGNORECASE,
)
# What takes up again what had ended: only this closes a statement of the ending ("smoking again").
_RESUMED = re.compile(r"\b(?:again|back to|went back|got back|returned to|relapsed|restarted|resumed)\b", re.IGNORECASE)
_NEVER_REPLACES = frozenset({"hypothetical", "temporary", "recommendation"})
# A plan or an offer turned down: what it named is not going to happen.
_DECLINED = lazy(
    r"\b(?:turned (?:it |that |them |this )?down|turned (?:the|that|this) (?:\w+ ){1,3}down|turning (?:it )?down"
    r"|decided against|decided not to|passed on|said no to|declined|not (?:taking|accepting) (?:it|the \w+)"
    r"|not moving (?:to \w+ )?after all|(?:changed|change) my mind|staying put|not going to happen)\b",
    re.IGNORECASE,
)
_CANDIDATES = 12


def statement_tags(text: str) -> tuple[str, ...]:
    """Tags that say how a statement holds: ``hypothetical``, ``temporary``, ``ended``."""
    tags = []
    if hypothetical(text):
        tags.append("hypothetical")
    if temporary(text):
        tags.append("temporary")
    if ends(text) and not _SWITCH.search(text):  # "gave up on portuguese and switched to italian" goes on
        tags.append("ended")
    return tuple(tags)


# "7 hours", "80 kg", "20mg": a number with its unit. Days, weeks, months and years mostly say how long ago or
# for how long, not what is measured.
_MEASURE = re.compile(
    r"(?<![\d:.,])(\d+(?:[.,]\d+)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten))\s?([a-z]{1,12})\b",
    re.IGNORECASE,
)
_DURATIONS = frozenset({
    "day", "days", "week", "weeks", "month", "months", "year", "years", "yr", "yrs", "am", "pm", "th", "st", "nd",
    "rd", "times", "x", "of", "and", "or", "to", "in", "on", "at", "a",
})  # fmt: skip
# A date is no measure: "on 3 July 2023" and "on 15 July 2023" are two days, not two readings of "July".
_DAY = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:January|February|March|April|May|June|July|August|September|October"
    r"|November|December)(?:,? (?:19|20)\d{2})?\b|\b(?:January|February|March|April|May|June|July|August"
    r"|September|October|November|December) \d{1,2}(?:st|nd|rd|th)?(?:,? (?:19|20)\d{2})?\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b(?:in|of|since|by|from|until) (?:19|20)\d{2}\b",
    re.IGNORECASE,
)


# The same in Chinese, where the unit follows the number without a space: "73公斤", "月租4500元".
_CJK_MEASURE = re.compile(r"(\d+(?:\.\d+)?)\s?(公斤|千克|斤|元|块|万|公里|小时|分钟|岁|平米|杯|支|根)")


def _measures(text: str) -> dict[str, str]:
    """Unit → number for each measure in ``text`` ("5 hours a night" → {"hour": "5"}, "two kids" → {"kid": "2"},
    "73公斤" → {"公斤": "73"}); dates are left out."""
    undated = _DAY.sub(" ", text)
    found = {m.group(2).lower().rstrip("s"): str(NUMBER_WORDS.get(m.group(1).lower(), m.group(1)))
             for m in _MEASURE.finditer(undated) if m.group(2).lower() not in _DURATIONS}  # fmt: skip
    return found | {m.group(2): m.group(1) for m in _CJK_MEASURE.finditer(undated)}


def _remeasured(new: dict[str, str], old_text: str) -> bool:
    """Whether ``old_text`` measures a unit of ``new`` with another number: "5 hours" then "7 hours"."""
    old = _measures(old_text)
    return any(unit in old and old[unit] != number for unit, number in new.items())


# Words that say when or how a change came, never what it changed to ("first week in the new house").
_NO_VALUE = frozenset(stem(w) for w in words("""new newly first week weeks day days month months year years weekend
    today tonight officially finally already still really now just so very all done moved move switched started"""))


# The words of a refusal, and of time and change, name nothing that was declined ("turned the phoenix thing down").
_NOT_DECLINED = _NO_VALUE | frozenset(stem(w) for w in words("""turned turning down decided against passed said
    declined taking accepting moving after all changed change mind staying put going happen thing offer job role"""))

_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")  # a capitalised name inside a sentence


def _refers_back(said: str) -> bool:
    """Whether the only change ``said`` tells is a thing called new ("the new house", "my new job"): it may be the
    very change an older statement told. "we moved" says the old value went, whatever follows."""
    cues = [m.group(0).lower() for m in change_cues(said)]
    return bool(cues) and all(cue in ("new", "newly", "finally", "officially") for cue in cues)


def _says_more(said: str, older: str, topics: set[str]) -> bool:
    """Whether the sentences of ``said`` on ``topics`` hold a word that ``older`` does not, beyond the words of
    time and change: a statement that only refers back to the value ("the new house") replaces nothing."""
    on_topic = [c for c in re.split(r"(?<=[.!?])\s+|\s+and\s+|,\s*", said) if topics_of(c) & topics] or [said]
    names = " ".join(m.group(0) for m in _NAME.finditer(said))  # "the move is DONE. Prenzlauer Berg is so quiet"
    new = content_tokens(" ".join([*on_topic, names])) - content_tokens(older) - _NO_VALUE
    return bool(new)



def _steps_past(steps: dict[str, frozenset[str]], clause: str) -> bool:
    return bool(stepped_past(steps, clause))


def _on_topics(topics: set[str] | None) -> Callable[[str], bool] | None:
    """Which clauses of an older statement a change on ``topics`` is about (None: all of them)."""
    if not topics:
        return None
    return lambda clause: bool(topics_of(clause) & topics)


def _topics(metadata: object) -> set[str]:
    found = metadata.get("topics") if isinstance(metadata, dict) else None
    return {t for t in found if isinstance(t, str)} if isinstance(found, list) else set()


class TopicReplacer:
    """Closes older statements that a newer statement on the same single-valued topic replaces."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def replace(self, entry: Pending, at: datetime, speaker: str) -> None:
        """Close what ``entry`` (a statement just proposed) replaces; or, when it is older than a statement on
        its topic already stored (an old chat imported late), keep it as history."""
        draft = entry.draft
        if draft is None or draft.owner is not Owner.USER:
            return
        said = draft.metadata.get("said")
        said = said if isinstance(said, str) else draft.text  # cues are read in the words as said
        if "hypothetical" not in draft.tags and "recommendation" not in draft.tags:
            # A day moved is said outright, even beside a visit or a trip in the same message.
            self._reschedule(entry, draft, said, at, speaker)
        if _NEVER_REPLACES & set(draft.tags):
            return
        self._declined(entry, draft, said, at, speaker)
        # What a statement replaces is read in its words as said: "sold my car, I take the bus now" is kept as "I
        # take the bus now", and still replaces what was said of the car.
        topics = _topics(draft.metadata) | (set(topics_of(said)) if said != draft.text else set())
        if self._older_than_known(entry, draft, at, topics - MULTI_TOPICS):
            return
        self._step_up(entry, draft, said, at, speaker)
        self._end_values(entry, draft, said, at, speaker)
        self._believed(entry, draft, said, at, speaker)
        ending = ends(said)  # "handed in my notice. going freelance" ends a job even as it goes on
        single = changed_topics(said, topics - MULTI_TOPICS) if ending or changes(said) else set()
        multi = topics & MULTI_TOPICS if "ended" in draft.tags else set()
        if not (single or multi or _measures(said)) or not (ending or changes(said)):
            return
        start = draft.valid_from or at
        words = content_tokens(said)
        resumed = _RESUMED.search(said) is not None
        seen: set[str] = set()
        for record in self._candidates(draft):
            if record.id in seen or not self._comparable(record, draft, start):
                continue
            seen.add(record.id)
            if "ended" in record.tags and not resumed:
                shared: set[str] = set()  # what ended stays ended: "lost my job at the depot" is still so
            else:
                shared = _topics(record.metadata) & single & stated_topics(record.text)
                if shared and _refers_back(said) and not _says_more(said, record.text, shared):
                    shared = set()  # "first week in the new house" after "we own a house in oakland": no new value
            if not shared and _topics(record.metadata) & multi and words & content_tokens(record.text):
                shared = _topics(record.metadata) & multi
            if not shared and (measures := _measures(said)) and _remeasured(measures, record.text):
                # Same unit, another number, and the same topic or another word in common: a new measure.
                common = (words & content_tokens(record.text)) - {stem(u) for u in measures}
                shared = _topics(record.metadata) & topics or ({"measure"} if common else set())
            if shared:
                # A new reading ("7 hours a night" after "5 hours") closes the whole statement it was read in.
                on_it = None if "measure" in shared or not shared <= set(stated_topics(record.text)) else shared
                self._close(entry, record, start, at, speaker, sorted(shared), _on_topics(on_it))

    def _step_up(self, entry: Pending, draft: MemoryDraft, said: str, at: datetime, speaker: str) -> None:
        """A newer step on a ladder ("3rd year starts today" after "2nd year nursing student") closes the older
        statements of the subject that name a step it leaves behind."""
        candidates = self._candidates(draft)
        if not ladder_steps(said, context=" ".join(r.text for r in candidates)):
            return  # no step, whatever an older statement names
        start = draft.valid_from or at
        for record in candidates:
            steps = ladder_steps(said, context=record.text)  # the older statement may name the ladder ("jlpt n4")
            if steps and self._comparable(record, draft, start) and (ladders := stepped_past(steps, record.text)):
                self._close(entry, record, start, at, speaker, ladders, partial(_steps_past, steps))

    def _reschedule(self, entry: Pending, draft: MemoryDraft, said: str, at: datetime, speaker: str) -> None:
        """An activity moved to another weekday ("pottery moved to wednesdays") leaves the older statements of the
        subject that put it on its old day: the clause goes from their next version, or they close."""
        moved = moved_days(said)
        if not moved:
            return
        start = draft.valid_from or at
        for record in self._candidates(draft):
            if not self._comparable(record, draft, start):
                continue
            for activity, day in moved:
                rest = without_old_day(record.text, activity, day)
                if rest == "":
                    self._close(entry, record, start, at, speaker, [f"the day of {activity}"])
                elif rest is not None:
                    said_first = record.metadata.get("said", record.text)
                    metadata = {**dict(record.metadata), "said": said_first, "topics": sorted(topics_of(rest))}
                    revised = draft_from_record(record, text=rest, metadata=metadata)
                    reason = f"'{activity}' moved to {day}: its old day left out of the older statement"
                    self.ledger.propose(Operation(OpKind.UPDATE, reason, revised, record.id, (record.id,)), at, speaker)
                if rest is not None:
                    break

    def _end_values(self, entry: Pending, draft: MemoryDraft, said: str, at: datetime, speaker: str) -> None:
        """What a statement says ended ("last day at target was friday", "sold the civic") closes the subject's
        older plain statements that name it, whatever their topic: "store manager at Target" no longer holds."""
        values = ended_values(said)
        if not values:
            return
        start = draft.valid_from or at
        # Found by the words as said: the memory's own text may have left the ended value out.
        for record in self.ledger.stored_similar(said, Owner.USER, limit=_CANDIDATES):
            if not self._comparable(record, draft, start):
                continue
            # A slot fact closes when its value is what ended ("ditched the civic" after "I drive a Honda Civic").
            if named := values & content_tokens(record.value if record.slot is not None else record.text):
                ended = [f"the end of '{w}'" for w in sorted(named)]
                self._close(entry, record, start, at, speaker, ended, lambda c: bool(values & content_tokens(c)))

    def _declined(self, entry: Pending, draft: MemoryDraft, said: str, at: datetime, speaker: str) -> None:
        """A plan or an offer turned down ("turned the phoenix thing down", "decided against berlin") closes the
        subject's older hypothetical statements that name what was declined: it is not going to happen."""
        if _DECLINED.search(said) is None:
            return
        start = draft.valid_from or at
        told = content_tokens(said) - _NOT_DECLINED
        for record in self.ledger.stored_similar(said, Owner.USER, limit=_CANDIDATES):
            if "hypothetical" not in record.tags or not self._comparable(record, draft, start):
                continue
            if named := told & content_tokens(record.text):
                what = ", ".join(f"'{w}'" for w in sorted(named))
                self._close(entry, record, start, at, speaker, [], reason=f"turned down by a later statement: {what}")

    def _believed(self, entry: Pending, draft: MemoryDraft, said: str, at: datetime, speaker: str) -> None:
        """What a statement says was only believed ("been telling everyone she's a beagle but …") closes the
        subject's older plain statements that name it: they said what turned out not to be so."""
        start = draft.valid_from or at
        older = [r for r in self.ledger.stored_similar(said, Owner.USER, limit=_CANDIDATES)
                 if r.slot is None and self._comparable(r, draft, start)]  # fmt: skip
        values = believed_values(said, [r.text for r in older])
        for record in older:
            if named := values & content_tokens(record.text):
                wrong = [f"the correction of '{w}'" for w in sorted(named)]
                self._close(entry, record, start, at, speaker, wrong, lambda c: bool(values & content_tokens(c)))

    def _candidates(self, draft: MemoryDraft) -> list[MemoryRecord]:
        return self.ledger.stored_similar(draft.text, Owner.USER, limit=_CANDIDATES)

    def _comparable(self, record: MemoryRecord, draft: MemoryDraft, start: datetime) -> bool:
        return (
            record.subject.casefold() == draft.subject.casefold()
            and record.owner is Owner.USER
            and record.valid_from <= start
            and record.text != draft.text
            and record.id not in self.ledger.taken()
        )

    def _older_than_known(self, entry: Pending, draft: MemoryDraft, at: datetime, single: set[str]) -> bool:
        if not single or entry.op.kind is not OpKind.ADD or entry.op.target is not None:
            return False
        newer = [
            r
            for r in self._candidates(draft)
            if r.subject.casefold() == draft.subject.casefold()
            and r.owner is Owner.USER
            and at < r.valid_from
            and _topics(r.metadata) & single
            and "hypothetical" not in r.tags
        ]
        if not newer:
            return False
        first = min(newer, key=lambda r: r.valid_from)
        start = min(draft.valid_from or at, first.valid_from)
        reason = f"{entry.op.reason}; older than a stored statement on {', '.join(sorted(single))}: kept as history"
        history = replace(draft, valid_from=start, valid_to=first.valid_from, tags=(*draft.tags, "history"))
        self.ledger.revise(entry, draft=history, target=first.id, reason=reason, candidates=(first.id,))
        return True

    def _close(
        self,
        entry: Pending,
        record: MemoryRecord,
        start: datetime,
        at: datetime,
        speaker: str,
        topics: list[str],
        changed: Callable[[str], bool] | None = None,
        *,
        reason: str | None = None,
    ) -> None:
        """Close ``record``, replaced on ``topics`` by ``entry``. When the clauses ``changed`` names, and those on
        a topic of ``entry``, leave clauses that still say something of their own, its next version keeps those
        instead (slot facts are closed whole: their value is what changed)."""
        reason = reason or f"replaced by a later statement on {', '.join(topics)} of {record.subject}"
        rest = None
        if changed is not None and record.slot is None and entry.draft is not None:
            theirs = _topics(entry.draft.metadata)  # a clause on a topic of the replacement goes with it
            rest = still_holds(record.text, lambda c: changed(c) or bool(topics_of(c) & theirs))
        if rest is not None:
            said_first = record.metadata.get("said", record.text)
            metadata = {**dict(record.metadata), "said": said_first, "topics": sorted(topics_of(rest))}
            kept = draft_from_record(record, text=rest, metadata=metadata)
            reason = f"{reason}: the clauses it replaces left out, the rest still holds"
            self.ledger.propose(Operation(OpKind.UPDATE, reason, kept, record.id, (record.id,)), at, speaker)
            return
        if record.slot is not None:  # a slot fact closes whole: its old value goes from what was said with it
            unsay_changed(self.ledger, record, at, speaker)
        draft = entry.draft
        if entry.op.kind is OpKind.ADD and entry.op.target is None and draft is not None:
            # The new statement supersedes the first statement it replaces: one version chain, journaled.
            kept = replace(draft, valid_from=max(draft.valid_from or at, record.valid_from))
            self.ledger.revise(
                entry, kind=OpKind.SUPERSEDE, target=record.id, draft=kept, reason=f"{reason}; {entry.op.reason}",
                candidates=(record.id,),
            )  # fmt: skip
            return
        end = max(start, record.valid_from)
        closed = draft_from_record(record, valid_to=end, tags=(*record.tags, "replaced"))
        closed = replace(closed, metadata={**dict(record.metadata), "replaced_on": end.date().isoformat()})
        self.ledger.propose(Operation(OpKind.UPDATE, reason, closed, record.id, (record.id,)), at, speaker)
