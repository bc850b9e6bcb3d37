"""Typed cases for the writer benchmark: a case is one user's history, cut into chunks (one ``add()`` each),
with probes asked after given chunks. Every data set is loaded into these, so the runner, the protocols and
the evaluators never know which data set a case came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["Case", "Chunk", "Dataset", "Probe"]


@dataclass(frozen=True)
class Probe:
    """A question asked after chunk ``after``.

    ``expect_any``: the current value, any one of which the top memory must hold (empty for a forget probe);
    ``stale``: values the top memory must not hold (for a forget probe: none of the top five);
    ``answer``: the gold answer the judge compares against; ``evidence``: gold turn ids (``Chunk.turn_ids``).
    """

    probe_id: str
    after: int
    query: str
    expect_any: tuple[str, ...]
    stale: tuple[str, ...] = ()
    answer: str | None = None
    evidence: frozenset[str] = frozenset()
    family: str = ""
    normalized: bool = False  # match answers as normalised tokens (LoCoMo, LongMemEval), not raw substrings

    @property
    def forget(self) -> bool:
        return not self.expect_any


@dataclass(frozen=True)
class Chunk:
    """One session added with one ``add()`` call; ``turn_ids`` name its messages, in order.

    ``expected_ops``: the operations a correct writer performs for it, where the data set knows them.
    """

    when: datetime
    messages: tuple[dict[str, str], ...]
    turn_ids: tuple[str, ...]
    expected_ops: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Case:
    """One user's history. ``facts``: how many facts hold at the end, where the data set knows it."""

    case_id: str
    user: str
    family: str
    chunks: tuple[Chunk, ...]
    probes: tuple[Probe, ...]
    facts: int | None = None
    language: str = "en"

    def probes_after(self, index: int) -> list[Probe]:
        return [p for p in self.probes if p.after == index]


@dataclass(frozen=True)
class Dataset:
    """A named list of cases and where they were read from (``source``: a path or a generator spec)."""

    name: str
    source: str
    cases: tuple[Case, ...] = field(default_factory=tuple)

    @property
    def probes(self) -> int:
        return sum(len(c.probes) for c in self.cases)
