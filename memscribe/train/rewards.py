"""What a chunk's write earned: the reward terms, their weights, and how they combine.

All terms are computed LLM-free from the store after the write (see :mod:`memscribe.train.environment`):

* ``probe_accuracy``: share of the chunk's probes whose top search result names a current value and no stale one
  (the update benchmark's ``accuracy@1``);
* ``format_valid``: 0 when the model's text did not parse against the pro schema, else the share of its
  operations the decoder and the engine accepted;
* ``over_storage``: active memories per fact known so far, above 1 (0 when the store holds one per fact);
* ``stale``: share of probes whose top result names a stale value (alone or beside the current one);
* ``wrong_supersede``: current values that a memory held before the write and no active memory holds after
  (a SUPERSEDE, UPDATE or DELETE that lost a fact still true), per probe;
* ``attributed``: later failures charged to this write: over the next ``horizon`` chunks, replayed with the
  reference writer from the store this write left, the mean drop in probe accuracy against the reference
  trajectory (only drops count; a later chunk that does better is not credited here).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["ChunkReward", "RewardWeights"]


@dataclass(frozen=True)
class RewardWeights:
    """Weights of the reward terms; ``probe_accuracy`` has weight 1."""

    format_valid: float = 0.2
    over_storage: float = 0.5
    stale: float = 0.5
    wrong_supersede: float = 0.5
    attributed: float = 0.5


@dataclass(frozen=True)
class ChunkReward:
    """The reward terms of one write, and their weighted total."""

    probe_accuracy: float
    format_valid: float
    over_storage: float
    stale: float
    wrong_supersede: float
    attributed: float
    probes: int
    memories: int

    def total(self, weights: RewardWeights | None = None) -> float:
        w = weights or RewardWeights()
        return (
            self.probe_accuracy
            + w.format_valid * self.format_valid
            - w.over_storage * self.over_storage
            - w.stale * self.stale
            - w.wrong_supersede * self.wrong_supersede
            - w.attributed * self.attributed
        )

    def as_dict(self, weights: RewardWeights | None = None) -> dict[str, float | int]:
        return {**asdict(self), "total": round(self.total(weights), 6)}
