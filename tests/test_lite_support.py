"""Fakes for the lite writer tests: a list-backed CandidateSource and a tiny applier.

The applier follows the engine's documented semantics closely enough to chain episodes in a test; it is
not the engine. Imported by the other ``test_lite_*`` modules.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memscribe.core.clock import FrozenClock
from memscribe.core.records import (
    Episode,
    Layer,
    MemoryDraft,
    MemoryRecord,
    Message,
    Operation,
    OpKind,
    Owner,
    Scope,
    Status,
)
from memscribe.write.lite import LiteWriter
from memscribe.write.lite.matching import content_tokens
from memscribe.write.ports import WriteContext

SCOPE = Scope(user_id="u1")
_ids = itertools.count(1)


def at(year: int, month: int, day: int, hour: int = 12) -> datetime:
    return datetime(year, month, day, hour, tzinfo=UTC)


def record(text: str, *, subject: str = "user", slot: str | None = None, value: str | None = None,
           owner: Owner = Owner.USER, valid_from: datetime | None = None, layer: Layer = Layer.FACT,
           rid: str | None = None) -> MemoryRecord:  # fmt: skip
    """A current stored memory built directly, as the engine would have stored it."""
    when = valid_from or at(2023, 1, 1)
    number = next(_ids)
    return MemoryRecord(
        id=rid or f"m{number}", version_id=f"v{number}", version=1, scope=SCOPE, text=text, subject=subject,
        slot=slot, value=value, owner=owner, layer=layer, scene="chat", tags=(), episode_id="e0",
        message_indices=(0,), confidence=0.9, writer="lite", embedding_model=None, source="api",
        valid_from=when, valid_to=None, recorded_at=when, retired_at=None, status=Status.ACTIVE,
    )  # fmt: skip


class ListCandidates:
    """A CandidateSource over a list of records; ``similar`` ranks by shared content words."""

    def __init__(self, records: list[MemoryRecord] | None = None) -> None:
        self.records = list(records or [])

    def _current(self) -> list[MemoryRecord]:
        return [r for r in self.records if r.retired_at is None and r.status is Status.ACTIVE]

    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        query = content_tokens(text)
        scored = [(len(query & content_tokens(r.text)), r) for r in self._current()]
        ranked = sorted((pair for pair in scored if pair[0] > 0), key=lambda pair: -pair[0])
        return [r for _, r in ranked[:limit]]

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        return [r for r in self._current() if (r.slot or "").lower() == slot.lower()]

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return [r for r in self._current() if r.subject.lower() == subject.lower()][:limit]

    def apply(self, ops: list[Operation], when: datetime) -> None:
        """Apply operations roughly as the engine does (enough to chain episodes in tests)."""
        for op in ops:
            if op.kind is OpKind.ADD and op.draft is not None:
                self.records.append(_from_draft(op.draft, when))
            elif op.kind is OpKind.SUPERSEDE and op.draft is not None and op.target:
                new = _from_draft(op.draft, when)
                self._retire(op.target, Status.SUPERSEDED, new.valid_from)
                self.records.append(new)
            elif op.kind is OpKind.UPDATE and op.draft is not None and op.target:
                old = self._find(op.target)
                self.records.remove(old)
                self.records.append(replace(_from_draft(op.draft, when), id=old.id, version=old.version + 1))
            elif op.kind is OpKind.DELETE and op.target:
                self._retire(op.target, Status.DELETED, when)

    def _find(self, rid: str) -> MemoryRecord:
        return next(r for r in self.records if r.id == rid and r.retired_at is None)

    def _retire(self, rid: str, status: Status, when: datetime) -> None:
        old = self._find(rid)
        self.records[self.records.index(old)] = replace(old, status=status, retired_at=when, valid_to=when)

    def current_values(self, slot: str) -> list[str | None]:
        return [r.value for r in self.by_slot(slot)]


def _from_draft(draft: MemoryDraft, when: datetime) -> MemoryRecord:
    made = record(draft.text, subject=draft.subject, slot=draft.slot, value=draft.value, owner=draft.owner,
                  valid_from=draft.valid_from or when, layer=draft.layer)  # fmt: skip
    return replace(made, valid_to=draft.valid_to, tags=draft.tags)


def episode(*turns: tuple[str, str] | tuple[str, str, str], when: datetime | None = None) -> Episode:
    """An episode from (role, content) or (role, name, content) turns."""
    messages = tuple(Message(role=t[0], content=t[-1], name=t[1] if len(t) == 3 else None) for t in turns)
    return Episode(id="e1", scope=SCOPE, messages=messages, timestamp=when or at(2023, 6, 3), source="api",
                   idempotency_key="k1")  # fmt: skip


def propose(store: ListCandidates, *turns: tuple[str, str] | tuple[str, str, str],
            when: datetime | None = None) -> list[Operation]:  # fmt: skip
    """Run the writer once over the turns against ``store``."""
    ep = episode(*turns, when=when)
    return LiteWriter().propose(ep, store, WriteContext(), FrozenClock(ep.timestamp))


def say(store: ListCandidates, text: str, when: datetime) -> list[Operation]:
    """One user turn, proposed and applied: the way to build up a store over several sessions."""
    ops = propose(store, ("user", text), when=when)
    store.apply(ops, when)
    return ops


def kinds(ops: list[Operation]) -> list[OpKind]:
    return [op.kind for op in ops]


def test_fake_candidates_rank_by_shared_words() -> None:
    store = ListCandidates([record("User lives in Seattle"), record("User likes jazz music")])
    assert [r.text for r in store.similar("Seattle is rainy")] == ["User lives in Seattle"]


def test_fake_apply_supersede_retires_the_target() -> None:
    store = ListCandidates(
        [record("User lives in Seattle", slot="user/residence", value="seattle", rid="r1")]
    )
    draft = MemoryDraft(
        "User lives in Sydney", slot="user/residence", value="sydney", valid_from=at(2023, 6, 3)
    )
    store.apply([Operation(OpKind.SUPERSEDE, "moved", draft, "r1")], at(2023, 6, 3))
    assert store.current_values("user/residence") == ["sydney"]


def told_in_turn(path: Path, *texts: str) -> tuple[list[str], dict[str, Any]]:
    """Each of ``texts`` added to a fresh lite store at ``path`` a month apart, as one user: the current
    memories' texts after the last, and the last add's result."""
    from memscribe import Memory

    result: dict[str, Any] = {}
    with Memory(path / "store.db", writer="lite", embedder="hash") as memory:
        for month, text in enumerate(texts, 1):
            result = memory.add(text, user_id="u", timestamp=f"2024-{month:02d}-10T10:00:00Z")
        current = [row["memory"] for row in memory.list(user_id="u")["results"]]
    return current, result

