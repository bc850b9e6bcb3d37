"""Coding memory: the diff chain. Each file/symbol's revisions, recorded from edit tool calls with no model.

One revision per (file, symbol) per episode, in scene ``coding``: the memory's text says what changed, in
which session and why ("Removed function parse_config from app/config.py in session s-42 (task: drop the
legacy loader)."), so a question like "why was parse_config removed?" finds it. Metadata carries the file,
symbol, change kind, a diff summary, a bounded patch, the revision number, the previous revision's id and
the session fact's slot. Revisions are ADDs: each is a lasting fact about the code's history.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Final

from memscribe.core.records import Episode, MemoryDraft, MemoryRecord, Operation, OpKind, Owner
from memscribe.scenes.environment import strip_env_values
from memscribe.scenes.symbols import Change
from memscribe.scenes.task import TaskDigest
from memscribe.write.ports import CandidateSource

__all__ = ["REVISION", "chain_slot", "revision_chain", "revision_ops", "revision_text"]

REVISION: Final = "revision"
_MAX_REVISIONS: Final = 40  # per episode: a mass rewrite is summarised by its first files, not stored whole


def chain_slot(file: str, symbol: str | None) -> str:
    """The chain key, as a slot: ``app/config.py/parse_config``, or ``app/config.py/file`` for the file."""
    return f"{file}/{symbol or 'file'}"


def revision_text(change: Change, digest: TaskDigest) -> str:
    """The searchable sentence of one revision."""
    if change.symbol is None:
        verb = {"added": "Created", "modified": "Edited", "removed": "Deleted"}[change.kind]
        head = f"{verb} file {change.file}"
        if change.kind == "modified":
            head += f" ({change.added_lines} lines added, {change.removed_lines} removed)"
    else:
        verb = {"added": "Added", "modified": "Modified", "removed": "Removed"}[change.kind]
        preposition = {"added": "to", "modified": "in", "removed": "from"}[change.kind]
        head = f"{verb} {change.symbol_kind} {change.symbol} {preposition} {change.file}"
    return f"{head} in session {digest.session} (task: {digest.task})."


def _revision_of(record: MemoryRecord) -> int:
    value = record.metadata.get("revision")
    return value if isinstance(value, int) else 0


def revision_chain(records: Iterable[MemoryRecord], file: str, symbol: str | None = None) -> list[MemoryRecord]:
    """The recorded revisions of one file (or one of its symbols), oldest first."""
    chosen = [
        r
        for r in records
        if r.metadata.get("kind") == REVISION
        and r.metadata.get("file") == file
        and (symbol is None or r.metadata.get("symbol") == symbol)
    ]
    return sorted(chosen, key=lambda r: (r.valid_from, _revision_of(r)))


def revision_ops(
    episode: Episode, changes: Iterable[Change], digest: TaskDigest, candidates: CandidateSource
) -> list[Operation]:
    """One ADD per changed (file, symbol), chained to the symbol's previous revision when one is recorded."""
    ops = []
    for change in list(changes)[:_MAX_REVISIONS]:
        slot = chain_slot(change.file, change.symbol)
        prior = [r for r in candidates.by_slot(slot) if r.metadata.get("kind") == REVISION]
        latest = max(prior, key=_revision_of, default=None)
        if change.symbol is None and change.kind == "added" and latest is not None and latest.value != "removed":
            change = _rewritten(change)
        draft = _draft(change, digest, slot, latest)
        reason = f"diff chain: {change.kind} {change.symbol or change.file} (revision {draft.metadata['revision']})"
        ops.append(Operation(OpKind.ADD, reason, draft=draft, candidates=tuple(r.id for r in prior[:8])))
    return ops


def _rewritten(change: Change) -> Change:
    return replace(change, kind="modified")  # a "create" of a file the chain already holds is a rewrite


def _draft(change: Change, digest: TaskDigest, slot: str, latest: MemoryRecord | None) -> MemoryDraft:
    metadata: dict[str, Any] = {
        "kind": REVISION,
        "file": change.file,
        "symbol": change.symbol,
        "symbol_kind": change.symbol_kind,
        "change": change.kind,
        "diff_summary": strip_env_values(change.summary),
        "patch": strip_env_values(change.patch),
        "tool": change.tool,
        "revision": _revision_of(latest) + 1 if latest is not None else 1,
        "previous_revision": latest.id if latest is not None else None,
        "session": digest.session,
        "session_slot": f"session:{digest.session}/task",
        "task": digest.task,
    }
    tags = (REVISION, change.kind, change.symbol_kind)
    return MemoryDraft(
        text=revision_text(change, digest),
        subject=change.file,
        slot=slot,
        value=change.kind,
        owner=Owner.USER,
        scene="coding",
        tags=tags,
        message_indices=(change.message_index,),
        confidence=1.0,
        metadata=metadata,
    )
