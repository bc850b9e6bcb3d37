"""Plans carried out: a later statement that reports doing what was planned closes the plan (SUPERSEDE).

Two readings count as carrying out a plan. The statement's verb is the plan's verb (or a synonym: "planning
to adopt a dog", then "we adopted a dog") and it shares the plan's object, if the plan names one. Or the
statement reports an accomplishment — finished, completed, wrapped up, done with, got back from, made it to,
"my first …" — and names at least half of the plan's object words ("renovate the kitchen", then "I finally
wrapped up the kitchen renovation"). The outcome is kept as a dated event with no slot, so it never reads as
an open intention.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from memscribe.core.records import MemoryDraft, MemoryRecord, Operation, OpKind
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.ledger import Ledger, Pending
from memscribe.write.lite.lexicon import VERB_GROUPS
from memscribe.write.lite.matching import content_tokens, stem
from memscribe.write.lite.tense import lemmas

__all__ = ["PlanCompletions", "accomplishment"]

_ACCOMPLISHED = lazy(
    r"\b(?:finished|completed|wrapped up|done with|through with|got back from|came back from|returned from"
    r"|back from|made it to|made it up|achieved|accomplished|pulled off|managed to|succeeded in|passed|graduated"
    r"|my first|our first|crossed off|ticked off|checked off)\b",
    re.IGNORECASE,
)
# Words of a statement that say it was done, not what was done: they never count as the plan's object.
_DONE_WORDS = frozenset(stem(w) for w in ("finally", "first", "finished", "completed", "wrapped", "done", "trip"))


def accomplishment(statement: str) -> bool:
    """Whether ``statement`` reports something done ("I finally finished my Japanese course")."""
    return _ACCOMPLISHED.search(statement) is not None


def _verb_family(verb: str) -> frozenset[str]:
    forms = set(lemmas(verb))
    for group in VERB_GROUPS:
        if forms & group:
            forms |= group
    return frozenset(forms)


def _object_words(text: str) -> frozenset[str]:
    """Content stems with a light derivation fold, so "renovation" meets "renovate"."""
    return frozenset(re.sub(r"(?:ation|ion|ment)$", "", t) for t in content_tokens(text) - _DONE_WORDS)


def fulfils(plan: str | None, verb: str | None, statement: str) -> bool:
    """Whether ``statement`` (main verb ``verb``) carries out the plan whose value is ``plan``."""
    words = (plan or "").split()
    if not words:
        return False
    wanted, said = _object_words(" ".join(words[1:])), _object_words(statement)
    if verb is not None and _verb_family(words[0]) & _verb_family(verb):
        return not wanted or bool(wanted & said)
    return accomplishment(statement) and bool(wanted) and 2 * len(wanted & said) >= len(wanted)


class PlanCompletions:
    """Closes the plans a statement carries out, through the shared ledger."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def complete(
        self,
        subject: str,
        verb: str | None,
        statement: str,
        produced: list[Pending],
        event: MemoryDraft,
        at: datetime,
        speaker: str,
    ) -> None:
        """Close the open plan of ``subject`` that ``statement`` carries out, if any."""
        slot = f"{subject}/plan"
        for entry in self.ledger.pending_slot(slot, event.owner):
            if entry not in produced and entry.draft is not None and fulfils(entry.draft.value, verb, statement):
                entry.alive = False  # planned and done within one episode: only the outcome is kept
        for record in self.ledger.stored_slot(slot, event.owner):
            if fulfils(record.value, verb, statement) and at >= record.valid_from:
                self._close(record, produced, event, at, speaker)
                return

    def _close(
        self, plan: MemoryRecord, produced: list[Pending], event: MemoryDraft, at: datetime, speaker: str
    ) -> None:
        reason = f"plan '{plan.value}' carried out"
        fresh = [e for e in produced if e.alive and e.op.kind is OpKind.ADD and e.op.target is None and e.draft]
        if fresh and fresh[0].draft is not None:
            entry, draft = fresh[0], fresh[0].draft
            start = max(draft.valid_from or at, plan.valid_from)
            self.ledger.revise(
                entry,
                kind=OpKind.SUPERSEDE,
                target=plan.id,
                draft=replace(draft, valid_from=start),
                reason=f"{reason}; {entry.op.reason}",
                candidates=(plan.id,),
            )
            return
        start = max(event.valid_from or at, plan.valid_from)
        closing = replace(event, slot=None, value=None, valid_from=start, tags=(*event.tags, "plan-done"))
        self.ledger.propose(Operation(OpKind.SUPERSEDE, reason, closing, plan.id, (plan.id,)), at, speaker)
