"""Candidate pre-retrieval and the integer aliases the model sees instead of memory ids.

Models copy small integers faithfully and invent UUIDs, so each call numbers what it shows 1, 2, 3, …
and the writer maps the numbers back. Besides stored memories, a call may show drafts proposed by an
earlier chunk of the same episode: the engine cannot see those yet, so the writer resolves operations on
them itself (:mod:`memscribe.write.llm.decode`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memscribe.core.records import MemoryDraft, MemoryRecord, Status
from memscribe.write.llm.chunks import Chunk
from memscribe.write.llm.render import Shown
from memscribe.write.ports import CandidateSource

__all__ = ["AliasBook", "gather_candidates"]


def gather_candidates(source: CandidateSource, chunk: Chunk, *, limit: int, per_query: int) -> list[MemoryRecord]:
    """Current memories to show for a chunk: slot matches first, then the best hits of every statement.

    Similar-text hits are taken round-robin (every statement's best, then every second best, …) so a long
    chunk cannot fill the list with one statement's neighbours.
    """
    chosen: dict[str, MemoryRecord] = {}

    def take(records: Sequence[MemoryRecord]) -> None:
        for record in records:
            if len(chosen) >= limit:
                return
            if record.is_current and record.status is Status.ACTIVE:
                chosen.setdefault(record.id, record)

    for slot in chunk.slots:
        take(source.by_slot(slot))
    ranked = [source.similar(query, limit=per_query) for query in dict.fromkeys(chunk.queries)]
    ranked += [source.by_subject(subject, limit=per_query * 2) for subject in chunk.subjects]
    for depth in range(max((len(r) for r in ranked), default=0)):
        take([r[depth] for r in ranked if depth < len(r)])
    return list(chosen.values())


@dataclass
class AliasBook:
    """What each alias of the current call names: a stored record, or the position of a pending operation."""

    records: dict[int, MemoryRecord] = field(default_factory=dict)
    pending: dict[int, int] = field(default_factory=dict)

    def present(
        self, records: Sequence[MemoryRecord], drafts: Sequence[tuple[int, MemoryDraft]]
    ) -> list[tuple[int, Shown]]:
        """Number ``records`` then ``drafts`` (position, draft) from 1 for a new call; returns what to show."""
        self.records, self.pending = {}, {}
        shown: list[tuple[int, Shown]] = []
        for record in records:
            alias = len(shown) + 1
            self.records[alias] = record
            shown.append((alias, record))
        for position, draft in drafts:
            alias = len(shown) + 1
            self.pending[alias] = position
            shown.append((alias, draft))
        return shown

    def record(self, alias: int) -> MemoryRecord | None:
        return self.records.get(alias)

    def position(self, alias: int) -> int | None:
        return self.pending.get(alias)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.records.values())
