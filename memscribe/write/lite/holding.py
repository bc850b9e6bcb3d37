"""Temporary clauses of a unit keep their own memory.

A short message is kept whole as one memory, but its clauses may hold in different ways: "our flat in Leeds is
being redone so we're staying at my parents' in York for 3 weeks" says where the user lives and where they stay
for a while. Kept as one text, the stay's place answers "where do I live?", and tagging the whole text temporary
hides the home. So a unit whose statements say something both for good and for a while is split in two; fragments
stay with the lasting statements.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from memscribe.core.records import Owner
from memscribe.read.topics import topics_of
from memscribe.write.lite.cues import changes, temporary
from memscribe.write.lite.ledger import Ledger
from memscribe.write.lite.matching import content_tokens

__all__ = ["during_stay", "split_by_holding"]

T = TypeVar("T")


def split_by_holding(kept: Sequence[T], *, text: Callable[[T], str], substantial: Callable[[T], bool]) -> list[list[T]]:
    """``kept`` as groups that each keep one memory: the lasting statements, then the temporary ones."""
    lasting: list[T] = []
    passing: list[T] = []
    for item in kept:
        (passing if substantial(item) and temporary(text(item)) else lasting).append(item)
    if not passing or not any(substantial(item) for item in lasting):
        return [list(kept)] if kept else []
    return [lasting, passing]


# A stay with no end said is taken to last this long: long enough for the follow-ups of a trip or a posting.
_STAY = timedelta(days=60)


def during_stay(ledger: Ledger, text: str, subject: str, at: datetime) -> bool:
    """Whether ``text`` talks about the place of a stay of ``subject`` that still holds at ``at``: "porto is
    dreamy" said while "sending me to the porto office for this quarter" holds is about the stay, not home.
    A statement that says something changed ("moving to porto for real") is not."""
    if temporary(text) or changes(text):
        return False
    words = {w for w in content_tokens(text) if len(w) >= 4 and not topics_of(w) and not w.isdigit()}
    for record in ledger.stored_similar(text, Owner.USER):
        if "temporary" not in record.tags or record.subject.casefold() != subject.casefold():
            continue
        ends = record.valid_to or record.valid_from + _STAY
        if record.valid_from <= at < ends and words & content_tokens(record.text):
            return True
    return False
