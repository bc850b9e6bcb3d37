"""What the other memories of a statement still say of a value that changed.

A statement with several slot facts ("My husband Mark is an auditor at PwC": his partner, his employer, his job
title) is kept once per fact, in the same words, so that changing one fact leaves the others current. When one
of those values changes or ends, the others still name it: "Where does he work?" finds "… an auditor at PwC"
after he quit PwC. Their next version leaves out the phrase that names the old value ("at PwC", "at Spotify in
the stockholm office") when it closes a clause, or the relation to a partner who no longer is one ("my
girlfriend Priya lives in Pune" → "Priya lives in Pune"); the words as said stay in the metadata. A value named
elsewhere in the clause ("lives in Boston and works at MIT") is left as said: cutting it would garble the
sentence.
"""

from __future__ import annotations

import re
from datetime import datetime

from memscribe.core.records import MemoryRecord, Operation, OpKind
from memscribe.write.lite.ledger import Ledger, draft_from_record
from memscribe.write.lite.lexicon import PARTNER_WORDS
from memscribe.write.lite.matching import content_tokens

__all__ = ["unsay_changed", "without_value"]

_PARTNER = "|".join(sorted(PARTNER_WORDS, key=len, reverse=True))
# Where at the value, closing the clause with it: "at Spotify in the stockholm office", "at Monzo in London".
_PLAIN_WORD = r"(?!(?:and|but|so|or|who|which|where|while|i|we|he|she|they)\b)[\w'-]+"
_WHERE_AT = rf"(?:\s+(?:in|on)\s+(?:the\s+)?{_PLAIN_WORD}(?:\s+{_PLAIN_WORD}){{0,2}})?"


def without_value(text: str, value: str, attribute: str = "") -> str | None:
    """``text`` without the phrase that names ``value`` after a preposition and ends a clause ("at PwC,"), or,
    for a partner, the relation before the name ("my girlfriend Priya" → "Priya"); None when there is no such
    phrase or too little would remain."""
    if not value.strip():
        return None
    named = re.escape(value.strip())
    if attribute == "partner":
        phrase = re.compile(rf"\b(?:my|our)\s+(?:{_PARTNER})\s+(?={named}\b)", re.IGNORECASE)
    else:
        phrase = re.compile(
            r"\s*\b(?:at|with|for|from|in)\s+(?:the\s+)?" + named + r"(?:'s)?" + _WHERE_AT
            + r"(?=\s*(?:[,.;:!?)]|\s[—–-]\s|$))",
            re.IGNORECASE,
        )
    rest = phrase.sub("", text, count=1)
    if rest == text or not content_tokens(rest):
        return None
    return rest[:1].upper() + rest[1:] if text[:1].isupper() else rest


def unsay_changed(ledger: Ledger, closed: MemoryRecord, at: datetime, speaker: str) -> None:
    """Leave the old value of ``closed`` (a slot fact just superseded) out of the current memories kept from the
    same statement for its other facts."""
    if not closed.value:
        return
    taken = ledger.taken()
    for record in ledger.stored_similar(closed.text, None):
        if record.id == closed.id or record.id in taken or record.text not in closed.text:  # its words, or a part
            continue
        if record.episode_id != closed.episode_id or (record.value or "").casefold() == closed.value.casefold():
            continue
        rest = without_value(record.text, closed.value, (closed.slot or "").partition("/")[2])
        if rest is None:
            continue
        said = record.metadata.get("said", record.text)
        revised = draft_from_record(record, text=rest, metadata={**dict(record.metadata), "said": said})
        reason = f"said with {closed.slot} '{closed.value}', which changed: the old value left out"
        ledger.propose(Operation(OpKind.UPDATE, reason, revised, record.id, (closed.id, record.id)), at, speaker)
