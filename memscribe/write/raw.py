"""The ``raw`` writer: every message becomes a memory with full provenance (mem0's ``infer=False``).

An identical current memory (same text, same speaker) is confirmed with NOOP instead of stored twice,
so re-adding the same conversation is idempotent.
"""

from __future__ import annotations

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, MemoryDraft, Operation, OpKind, Owner
from memscribe.core.text import normalize
from memscribe.write.ports import CandidateSource, ExactCandidates, WriteContext

__all__ = ["RawWriter"]


class RawWriter:
    """Stores each non-empty user or assistant message verbatim."""

    name = "raw"
    version = "1"

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        ops: list[Operation] = []
        seen: set[str] = set()
        for index, message in enumerate(episode.messages):
            text = message.content.strip()
            if not text or message.role not in ("user", "assistant"):
                continue
            subject = (message.name or message.role).casefold()
            key = normalize(text)
            if isinstance(candidates, ExactCandidates):  # no hybrid search just to find a repeat
                same = candidates.identical(text, limit=5)
            else:
                same = [m for m in candidates.similar(text, limit=5) if normalize(m.text) == key]
            if same or key in seen:
                target = same[0].id if same else None
                if target:
                    ops.append(Operation(OpKind.NOOP, "identical memory already stored", target=target))
                continue
            seen.add(key)
            owner = Owner.AGENT if message.role == "assistant" else Owner.USER
            draft = MemoryDraft(
                text=text,
                subject=subject,
                owner=owner,
                message_indices=(index,),
                valid_from=message.timestamp or episode.timestamp,
                metadata={"speaker": message.name} if message.name else {},
            )
            ops.append(Operation(OpKind.ADD, "raw message", draft=draft, candidates=tuple(m.id for m in same)))
        return ops
