"""Export and import as JSONL: one line per episode, memory version and journal entry.

Import is idempotent: episodes, memories and journal lines already present are skipped. Vectors are not
exported; they are recomputed with the importing store's embedder, so a store can change models. Imported
text passes the same secret redaction as ``add``. An export from another tenant gets fresh ids (consistently
remapped), so it can be imported into a tenant of the same store file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from typing import Any

from memscribe.core.ids import content_hash
from memscribe.core.limits import check_metadata
from memscribe.core.messages import build_episode, message_to_dict, parse_messages, parse_time
from memscribe.core.records import Episode, JournalEntry, Layer, MemoryRecord, OpKind, Owner, Scope, Status, Usage
from memscribe.core.redact import redact, redact_id
from memscribe.engine.candidates import EmbeddingCache
from memscribe.engine.core import Core
from memscribe.engine.writing import redact_message, redact_value
from memscribe.errors import InvalidInput, MemscribeError
from memscribe.stores.ports import Changeset, Partition, RecordFilter

__all__ = ["export_lines", "import_lines"]

FORMAT = "memscribe.v1"


def export_lines(core: Core, user_id: object) -> Iterator[str]:
    partition = core.partition(user_id)
    yield json.dumps({"kind": "header", "format": FORMAT, "tenant": partition[0], "user_id": partition[1]})
    for episode in core.store.episodes(partition):
        yield json.dumps({
            "kind": "episode", "id": episode.id, "scope": asdict(episode.scope),
            "messages": [message_to_dict(m) for m in episode.messages], "timestamp": episode.timestamp.isoformat(),
            "source": episode.source, "idempotency_key": episode.idempotency_key, "metadata": episode.metadata,
        }, ensure_ascii=False, default=str)  # fmt: skip
    offset = 0
    while True:
        batch = core.store.query(partition, RecordFilter(include_history=True), limit=1000, offset=offset)
        for r in batch:
            row = asdict(r)
            row.update(kind="memory", owner=r.owner.value, layer=r.layer.value, status=r.status.value)
            yield json.dumps(row, ensure_ascii=False, default=str)
        if len(batch) < 1000:
            break
        offset += 1000
    for j in core.store.journal(partition):
        row = asdict(j)
        row.update(kind="journal", op=j.kind.value)
        yield json.dumps(row, ensure_ascii=False, default=str)


class _Ids:
    """Old id → new id, used when the export came from another tenant (ids are unique store-wide). The new id
    is derived from the target tenant and the old id, so importing the same file twice stays idempotent."""

    def __init__(self, tenant: str) -> None:
        self.active = False
        self.tenant = tenant
        self._map: dict[str, str] = {}

    def __call__(self, old: str | None) -> str | None:
        if not self.active or old is None:
            return old
        return self.required(old)

    def required(self, old: str) -> str:
        if not self.active:
            return old
        if old not in self._map:
            self._map[old] = content_hash(["import", self.tenant, old])[:32]
        return self._map[old]

    def set(self, old: str, new: str) -> None:
        self._map[old] = new


def import_lines(core: Core, lines: Iterable[str], *, progress: Callable[[int], None] | None = None) -> dict[str, int]:
    """Import a JSONL export, all or nothing: every line is read and checked before anything is written, and
    a memory id that belongs to another user is refused. Rows already present are skipped."""
    counts = {"episodes": 0, "memories": 0, "journal": 0, "skipped": 0}
    ids = _Ids(core.tenant)
    episodes: list[Episode] = []
    pending: dict[Partition, tuple[list[MemoryRecord], list[JournalEntry]]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            kind = row.get("kind")
        except (json.JSONDecodeError, AttributeError) as exc:
            raise InvalidInput(f"line {number}: not a JSON object") from exc
        try:
            if kind == "episode":
                episodes.append(_episode(core, row, ids))
            elif kind == "memory":
                record = _memory(core, row, ids)
                pending.setdefault(record.scope.partition, ([], []))[0].append(record)
            elif kind == "journal":
                entry = _journal(core, row, ids)
                pending.setdefault(entry.scope.partition, ([], []))[1].append(entry)
            elif kind == "header":
                ids.active = row.get("tenant", core.tenant) != core.tenant
            else:
                raise InvalidInput(f"unknown kind {kind!r}")
        except MemscribeError as exc:
            raise InvalidInput(f"line {number}: {exc}") from exc
        except (KeyError, TypeError, ValueError, OverflowError, AttributeError) as exc:  # UnicodeError is a ValueError
            raise InvalidInput(f"line {number}: {type(exc).__name__}: {exc}") from exc
        if progress:
            progress(1)
    _check_ids(core, pending)
    _flush(core, pending, counts)
    for episode in episodes:
        _put_episode(core, episode, counts)
    return counts


def _check_ids(core: Core, pending: dict[Partition, tuple[list[MemoryRecord], list[JournalEntry]]]) -> None:
    """Refuse the import before writing when one of its memory ids is another user's."""
    for partition, (records, _) in pending.items():
        for memory_id in dict.fromkeys(r.id for r in records):
            owner = core.store.owner_of(core.tenant, memory_id)
            if owner is not None and owner != partition[1]:
                raise InvalidInput(f"memory id {memory_id!r} cannot be imported for this user")


def _scope(core: Core, s: dict[str, Any]) -> Scope:
    return core.scope(s["user_id"], agent_id=s.get("agent_id"), session_id=s.get("session_id"),
                      project=s.get("project"))  # fmt: skip


def _episode(core: Core, row: dict[str, Any], ids: _Ids) -> Episode:
    scope = _scope(core, row["scope"])
    when = parse_time(row["timestamp"])
    if when is None:
        raise InvalidInput("an episode needs a timestamp")
    messages = tuple(redact_message(m) for m in parse_messages(row["messages"]))
    check_metadata(row.get("metadata"))
    key = row.get("idempotency_key")
    episode = build_episode(
        messages, scope, timestamp=when, source=row["source"], metadata=redact_value(row.get("metadata") or {}),
        idempotency_key=redact_id(key) if isinstance(key, str) else key,
    )  # fmt: skip
    ids.set(row["id"], episode.id)
    return episode


def _put_episode(core: Core, episode: Episode, counts: dict[str, int]) -> None:
    state = core.store.put_episode(episode, writer="import")
    if state.created:
        core.store.apply(Changeset(partition=episode.scope.partition, episode_id=state.episode_id))
        counts["episodes"] += 1
    else:
        counts["skipped"] += 1


def _memory(core: Core, row: dict[str, Any], ids: _Ids) -> MemoryRecord:
    scope = _scope(core, row["scope"])
    check_metadata(row.get("metadata"))
    value = row.get("value")

    def when(key: str) -> Any:
        return parse_time(row.get(key), key)

    return MemoryRecord(
        id=ids.required(row["id"]), version_id=ids.required(row["version_id"]), version=int(row["version"]),
        scope=scope,
        text=redact(row["text"])[0],
        subject=redact(str(row["subject"]))[0], slot=row.get("slot"),
        value=redact(str(value))[0] if value is not None else None, owner=Owner(row["owner"]),
        layer=Layer(row["layer"]), scene=row["scene"], tags=tuple(redact(str(t))[0] for t in row.get("tags") or ()),
        episode_id=ids(row.get("episode_id")), message_indices=tuple(row.get("message_indices") or ()),
        confidence=float(row.get("confidence", 1.0)), writer=row["writer"],
        embedding_model=core.embedder.model_id, source=row.get("source"), valid_from=when("valid_from"),
        valid_to=when("valid_to"), recorded_at=when("recorded_at"), retired_at=when("retired_at"),
        status=Status(row["status"]), supersedes=ids(row.get("supersedes")),
        superseded_by=ids(row.get("superseded_by")),
        metadata=redact_value(row.get("metadata") or {}),
    )  # fmt: skip


def _journal(core: Core, row: dict[str, Any], ids: _Ids) -> JournalEntry:
    s = row["scope"]
    usage = row.get("usage") or {}
    created = parse_time(row["created_at"])
    assert created is not None
    return JournalEntry(
        id=ids.required(row["id"]), episode_id=ids(row.get("episode_id")),
        scope=core.scope(s["user_id"]),
        kind=OpKind(row["op"]), memory_id=ids(row.get("memory_id")), version_id=ids(row.get("version_id")),
        reason=redact(row["reason"])[0], candidates=tuple(ids(c) or c for c in row.get("candidates") or ()),
        writer=row["writer"],
        accepted=bool(row["accepted"]), created_at=created, usage=Usage(**usage),
    )  # fmt: skip


def _flush(
    core: Core,
    pending: dict[Partition, tuple[list[MemoryRecord], list[JournalEntry]]],
    counts: dict[str, int],
) -> None:
    for partition, (records, journal) in pending.items():
        known = {r.version_id for r in core.store.by_version_ids(partition, [r.version_id for r in records])}
        existing_ids = {j.id for j in core.store.journal(partition)} if journal else set()
        fresh = [r for r in records if r.version_id not in known]
        new_journal = [j for j in journal if j.id not in existing_ids]
        counts["skipped"] += len(records) - len(fresh) + len(journal) - len(new_journal)
        if not fresh and not new_journal:
            continue
        cache = EmbeddingCache(core)
        core.store.apply(
            Changeset(partition=partition, episode_id=None, insert=tuple(fresh),
                      vectors=cache.matrix([r.text for r in fresh]), journal=tuple(new_journal))
        )  # fmt: skip
        counts["memories"] += len(fresh)
        counts["journal"] += len(new_journal)
    pending.clear()
