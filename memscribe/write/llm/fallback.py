"""What keeps a weak model from losing what the person said: the lite rules, per chunk, as a safety net.

When a chunk's model answer cannot be used even after the repair, or every operation it proposed was
refused, the chunk's memorable statements are written by the lite rules instead, so they stay
retrievable. The rules run once per episode, only when first needed, and only the operations that come
from the chunk's own messages are taken. Nothing here calls a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from memscribe.core.clock import Clock, SystemClock
from memscribe.core.records import Episode, Operation
from memscribe.write.ports import CandidateSource, WriteContext

__all__ = ["LiteFallback"]


@dataclass
class LiteFallback:
    """The lite writer's operations for one episode, handed out chunk by chunk, each at most once."""

    episode: Episode
    candidates: CandidateSource
    clock: Clock = field(default_factory=SystemClock)
    chunks: int = 1
    enabled: bool = True
    _ops: list[Operation] | None = None
    _taken: set[int] = field(default_factory=set)

    def for_chunk(self, indices: list[int], why: str) -> list[Operation]:
        """Lite's operations drawn from these messages (operations without a source message only when the
        episode is one chunk), each with ``why`` in its reason; none when disabled."""
        if not self.enabled:
            return []
        if self._ops is None:
            from memscribe.write.lite import LiteWriter

            self._ops = LiteWriter().propose(self.episode, self.candidates, WriteContext(), self.clock)
        wanted = set(indices)
        out: list[Operation] = []
        for number, op in enumerate(self._ops):
            if number in self._taken:
                continue
            own = op.draft is not None and bool(wanted.intersection(op.draft.message_indices))
            if own or (op.draft is None and self.chunks == 1):
                self._taken.add(number)
                out.append(replace(op, reason=f"{op.reason} (lite rules: {why})"))
        return out
