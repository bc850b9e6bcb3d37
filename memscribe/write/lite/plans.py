"""Plans carried out: a later statement that reports doing what was planned marks the plan done.

Two readings count as carrying out a plan. The statement's verb is the plan's verb (or a synonym: "planning
to adopt a dog", then "we adopted a dog") and it shares the plan's object, if the plan names one. Or the
statement reports an accomplishment — finished, completed, wrapped up, done with, got back from, made it to,
"my first …" — and names at least half of the plan's object words ("renovate the kitchen", then "I finally
wrapped up the kitchen renovation"). The plan stays current, tagged ``plan-done`` with the day it was carried
out (an UPDATE journaled with the reason): what someone planned and when is still asked after ("when was she
planning to go camping?"). The outcome is its own statement, a dated event with no slot.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from memscribe.core.records import Layer, MemoryDraft, MemoryRecord, Operation, OpKind
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.ledger import Ledger, Pending, draft_from_record
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
        """Mark ``plan`` carried out; it stays current, as what was planned and when."""
        reason = f"plan '{plan.value}' carried out"
        done_on = (event.valid_from or at).date().isoformat()
        metadata = {k: v for k, v in plan.metadata.items() if k != "valid_until"}
        # No longer an open intention (no plan slot, no deadline), but what was planned and when still holds.
        done = draft_from_record(
            plan, slot=None, layer=Layer.FACT, valid_to=None, tags=(*plan.tags, "plan-done"),
            metadata={**metadata, "carried_out_on": done_on},
        )  # fmt: skip
        self.ledger.propose(Operation(OpKind.UPDATE, f"{reason}: kept as what was planned", done, plan.id,
                                      (plan.id,)), at, speaker)  # fmt: skip
        if not any(e.alive and e.draft is not None for e in produced):
            # The outcome said nothing new beside the plan: it is still kept, as a dated event.
            start = max(event.valid_from or at, plan.valid_from)
            outcome = replace(event, slot=None, value=None, valid_from=start, tags=(*event.tags, "plan-done"))
            self.ledger.propose(Operation(OpKind.ADD, reason, outcome, None, (plan.id,)), at, speaker)
