"""The writer port: episode + candidates + context + clock → operations.

A writer only *proposes*; :mod:`memscribe.write.plan` enforces the invariants every writer is held to and
the store applies the accepted operations in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, MemoryRecord, Operation

__all__ = [
    "CandidateSource",
    "ExactCandidates",
    "SceneScopedCandidates",
    "WriteContext",
    "Writer",
    "writer_likely_texts",
    "writer_rejections",
    "writer_skips",
    "writer_warm_up",
]


class CandidateSource(Protocol):
    """Current memories of the episode's partition that a writer may judge new statements against."""

    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        """Current memories closest to ``text`` (vector + keyword fused)."""
        ...

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        """Current memories holding ``slot`` ("subject/attribute")."""
        ...

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        """Current memories about ``subject``."""
        ...


@runtime_checkable
class ExactCandidates(Protocol):
    """What a candidate source may offer beside :class:`CandidateSource`: an exact-text lookup, cheaper
    than a hybrid search, for writers that only need to know whether a text is already stored."""

    def identical(self, text: str, limit: int = 5) -> list[MemoryRecord]:
        """Current memories whose text equals ``text`` up to case and spacing."""
        ...


@runtime_checkable
class SceneScopedCandidates(Protocol):
    """What a candidate source may offer beside :class:`CandidateSource`: the same source with its searches
    limited to memories of some scenes by the store itself, rather than filtered after a deeper search."""

    def of_scenes(self, scenes: Sequence[str]) -> CandidateSource:
        """This source, searching only memories of ``scenes``."""
        ...


@dataclass(frozen=True)
class WriteContext:
    """What a writer may know beyond the episode: earlier messages of the session and free-form hints."""

    recent_messages: Sequence[str] = ()
    hints: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class Writer(Protocol):
    """Proposes operations for one episode. Pure with respect to the store: reads through ``candidates``."""

    name: str
    version: str

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]: ...


def writer_rejections(ops: Sequence[Operation]) -> list[tuple[Operation, str]]:
    """Proposals a writer refused itself (an unknown alias, an unparseable date), to be journaled.

    A writer reports them on the list it returns, as ``ops.rejections``: items with ``operation`` and
    ``why`` (and ``journaled`` true when the operation is also in the list, so the plan journals it)."""
    return [
        (r.operation, r.why)
        for r in getattr(ops, "rejections", ())
        if not getattr(r, "journaled", False) and getattr(r, "operation", None) is not None
    ]


def writer_skips(ops: Sequence[Operation]) -> list[tuple[int, str]]:
    """Messages a writer read and chose not to remember, with its reason ("filler", "a question", ...).

    A writer reports them on the list it returns, as ``ops.skipped``: ``(message_index, why)`` pairs. They
    reach the caller in the add result's ``messages``; a writer that reports none gets a neutral reason."""
    out = []
    for item in getattr(ops, "skipped", ()):
        index, why = item
        if isinstance(index, int) and isinstance(why, str):
            out.append((index, why))
    return out


def writer_warm_up(writer: object) -> None:
    """Let the writer do its one-time work now (compile its rules, load its tables), not on the first episode.
    A writer that has none has no ``warm_up``."""
    own = getattr(writer, "warm_up", None)
    if callable(own):
        own()


def writer_likely_texts(writer: object, episode: Episode) -> list[str]:
    """The texts of ``episode`` the writer will probably ask vectors for, embedded together in one call.

    A writer may say so itself with ``likely_texts(episode)``; otherwise it is every user and assistant
    message. Tool results never are: no writer stores one verbatim, and only memories are searched."""
    own = getattr(writer, "likely_texts", None)
    if callable(own):
        return [t for t in own(episode) if isinstance(t, str)]
    return [m.content.strip() for m in episode.messages if m.role in ("user", "assistant") and m.content.strip()]
