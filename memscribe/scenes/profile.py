"""L0 profile: structured attributes (subject → attribute → values) derived from current slot memories.

The profile is a *view*: each value names the memory and version behind it, so its history is that memory's
version chain, and ``as_of`` gives the profile at any past instant for free. :func:`profile_ops` also keeps
one searchable L0 snapshot memory per subject ("Profile of priya: residence: Sydney; employer: Canva."),
refreshed by consolidation with an UPDATE whenever the derived attributes change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from memscribe.core.records import Layer, MemoryDraft, MemoryRecord, Operation, OpKind, Owner, Status
from memscribe.stores.ports import Partition, RecordFilter, Store

__all__ = ["PROFILE", "Profile", "ProfileValue", "derive_profile", "profile", "profile_ops"]

PROFILE: Final = "profile"
_SKIP_ATTRIBUTES: Final = frozenset({"plan", PROFILE})  # plans are L7; snapshots are not evidence of themselves
_MAX_RECORDS: Final = 20_000


@dataclass(frozen=True)
class ProfileValue:
    """One attribute value and the memory version it comes from."""

    value: str
    text: str
    memory_id: str
    version: int
    valid_from: datetime
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "memory": self.text,
            "memory_id": self.memory_id,
            "version": self.version,
            "valid_from": self.valid_from.isoformat(),
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class Profile:
    """Subjects → attributes → values, newest first. ``get`` reads the newest value of one attribute."""

    subjects: dict[str, dict[str, tuple[ProfileValue, ...]]] = field(default_factory=dict)

    def get(self, subject: str, attribute: str) -> str | None:
        values = self.subjects.get(subject.casefold(), {}).get(attribute)
        return values[0].value if values else None

    def as_dict(self) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """JSON-ready: ``{"priya": {"residence": [{"value": "Sydney", "memory_id": …}, …]}}``."""
        return {
            subject: {attr: [v.as_dict() for v in values] for attr, values in attrs.items()}
            for subject, attrs in self.subjects.items()
        }


def _usable(record: MemoryRecord, current_only: bool) -> tuple[str, str] | None:
    """(subject, attribute) when ``record`` is a user-owned chat slot fact with a value."""
    if record.layer is not Layer.FACT or record.scene != "chat" or record.owner is not Owner.USER:
        return None
    if not record.slot or not record.value or "/" not in record.slot:
        return None
    if current_only and (not record.is_current or record.status is not Status.ACTIVE):
        return None
    subject, _, attribute = record.slot.rpartition("/")
    if attribute in _SKIP_ATTRIBUTES or not subject:
        return None
    return subject.casefold(), attribute


def derive_profile(records: Iterable[MemoryRecord], *, current_only: bool = True) -> Profile:
    """The profile the slot memories among ``records`` describe. Pure.

    With ``current_only`` (the default) only current, active versions count; pass False for records already
    chosen by an ``as_of`` read, whose versions may since have been superseded.
    """
    subjects: dict[str, dict[str, list[ProfileValue]]] = {}
    for record in records:
        key = _usable(record, current_only)
        if key is None:
            continue
        assert record.value is not None
        value = ProfileValue(record.value, record.text, record.id, record.version, record.valid_from, record.confidence)
        subjects.setdefault(key[0], {}).setdefault(key[1], []).append(value)
    return Profile(
        {
            subject: {
                attr: tuple(sorted(_dedupe(values), key=lambda v: v.valid_from, reverse=True))
                for attr, values in sorted(attrs.items())
            }
            for subject, attrs in sorted(subjects.items())
        }
    )


def _dedupe(values: list[ProfileValue]) -> list[ProfileValue]:
    """One entry per value: the newest memory stating it."""
    best: dict[str, ProfileValue] = {}
    for value in values:
        key = value.value.casefold()
        if key not in best or value.valid_from > best[key].valid_from:
            best[key] = value
    return list(best.values())


def profile(
    store: Store, partition: Partition, *, as_of: datetime | None = None, now: datetime | None = None
) -> Profile:
    """The profile of one partition, now (hiding values whose ``valid_to`` passed before ``now``) or ``as_of``."""
    flt = RecordFilter(as_of=as_of, layers=(Layer.FACT.value,), scenes=("chat",), now=now if as_of is None else None)
    records = store.query(partition, flt, limit=_MAX_RECORDS)
    return derive_profile(records, current_only=as_of is None)


def _snapshot_text(subject: str, attrs: dict[str, tuple[ProfileValue, ...]]) -> str:
    parts = [f"{attr}: {', '.join(v.value for v in values)}" for attr, values in attrs.items()]
    return f"Profile of {subject}: {'; '.join(parts)}."


def profile_ops(records: Iterable[MemoryRecord], *, min_attributes: int = 2) -> list[Operation]:
    """ADD or UPDATE one L0 snapshot per subject with at least ``min_attributes`` attributes; skip unchanged."""
    records = list(records)
    derived = derive_profile(records)
    existing = {
        r.subject.casefold(): r
        for r in records
        if r.layer is Layer.PROFILE and r.is_current and r.status is Status.ACTIVE and r.metadata.get("kind") == PROFILE
    }
    ops = []
    for subject, attrs in derived.subjects.items():
        if len(attrs) < min_attributes:
            continue
        attributes = {attr: [v.value for v in values] for attr, values in attrs.items()}
        old = existing.get(subject)
        if old is not None and old.metadata.get("attributes") == attributes:
            continue
        evidence = [v.memory_id for values in attrs.values() for v in values]
        draft = MemoryDraft(
            text=_snapshot_text(subject, attrs),
            subject=old.subject if old else subject,
            slot=f"{subject}/{PROFILE}",
            owner=Owner.USER,
            layer=Layer.PROFILE,
            scene="chat",
            tags=(PROFILE,),
            confidence=1.0,
            metadata={"kind": PROFILE, "attributes": attributes, "evidence": evidence},
        )
        if old is None:
            ops.append(
                Operation(
                    OpKind.ADD,
                    f"profile of {subject} derived from {len(evidence)} slot memories",
                    draft=draft,
                    candidates=tuple(evidence),
                )
            )
        else:
            ops.append(
                Operation(
                    OpKind.UPDATE,
                    f"profile of {subject} refreshed: attributes changed",
                    draft=draft,
                    target=old.id,
                    candidates=tuple(evidence),
                )
            )
    return ops
