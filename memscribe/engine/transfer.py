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

from memscribe.core.ids import new_id
from memscribe.core.messages import build_episode, message_to_dict, parse_messages, parse_scope, parse_time
from memscribe.core.records import JournalEntry, Layer, MemoryRecord, OpKind, Owner, Status, Usage
from memscribe.core.redact import redact
from memscribe.engine.candidates import EmbeddingCache
from memscribe.engine.core import Core
from memscribe.engine.writing import redact_message
from memscribe.errors import InvalidInput
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
    """Old id → new id, used when the export came from another tenant (ids are unique store-wide)."""

    def __init__(self) -> None:
        self.active = False
        self._map: dict[str, str] = {}

    def __call__(self, old: str | None) -> str | None:
        if not self.active or old is None:
            return old
        return self.required(old)

    def required(self, old: str) -> str:
        if not self.active:
            return old
        if old not in self._map:
            self._map[old] = new_id()
        return self._map[old]

    def set(self, old: str, new: str) -> None:
        self._map[old] = new


def import_lines(
    core: Core, lines: Iterable[str], *, progress: Callable[[int], None] | None = None, batch: int = 500
) -> dict[str, int]:
    counts = {"episodes": 0, "memories": 0, "journal": 0, "skipped": 0}
    ids = _Ids()
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
                _import_episode(core, row, counts, ids)
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
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInput(f"line {number}: {exc}") from exc
        if progress:
            progress(1)
        if sum(len(m) + len(j) for m, j in pending.values()) >= batch:
            _flush(core, pending, counts)
    _flush(core, pending, counts)
    return counts


def _import_episode(core: Core, row: dict[str, Any], counts: dict[str, int], ids: _Ids) -> None:
    s = row["scope"]
    scope = parse_scope(s["user_id"], tenant=core.tenant, agent_id=s.get("agent_id"),
                        session_id=s.get("session_id"), project=s.get("project"))  # fmt: skip
    when = parse_time(row["timestamp"])
    assert when is not None
    messages = tuple(redact_message(m) for m in parse_messages(row["messages"]))
    episode = build_episode(
        messages, scope, timestamp=when, source=row["source"],
        metadata=row.get("metadata"), idempotency_key=row.get("idempotency_key"),
    )  # fmt: skip
    ids.set(row["id"], episode.id)
    state = core.store.put_episode(episode)
    if state.created:
        core.store.apply(Changeset(partition=scope.partition, episode_id=state.episode_id))
        counts["episodes"] += 1
    else:
        counts["skipped"] += 1


def _memory(core: Core, row: dict[str, Any], ids: _Ids) -> MemoryRecord:
    s = row["scope"]
    scope = parse_scope(s["user_id"], tenant=core.tenant, agent_id=s.get("agent_id"),
                        session_id=s.get("session_id"), project=s.get("project"))  # fmt: skip

    def when(key: str) -> Any:
        return parse_time(row.get(key), key)

    return MemoryRecord(
        id=ids.required(row["id"]), version_id=ids.required(row["version_id"]), version=int(row["version"]),
        scope=scope,
        text=redact(row["text"])[0],
        subject=row["subject"], slot=row.get("slot"), value=row.get("value"), owner=Owner(row["owner"]),
        layer=Layer(row["layer"]), scene=row["scene"], tags=tuple(row.get("tags") or ()),
        episode_id=ids(row.get("episode_id")), message_indices=tuple(row.get("message_indices") or ()),
        confidence=float(row.get("confidence", 1.0)), writer=row["writer"],
        embedding_model=core.embedder.model_id, source=row.get("source"), valid_from=when("valid_from"),
        valid_to=when("valid_to"), recorded_at=when("recorded_at"), retired_at=when("retired_at"),
        status=Status(row["status"]), supersedes=ids(row.get("supersedes")),
        superseded_by=ids(row.get("superseded_by")),
        metadata=row.get("metadata") or {},
    )  # fmt: skip


def _journal(core: Core, row: dict[str, Any], ids: _Ids) -> JournalEntry:
    s = row["scope"]
    usage = row.get("usage") or {}
    created = parse_time(row["created_at"])
    assert created is not None
    return JournalEntry(
        id=ids.required(row["id"]), episode_id=ids(row.get("episode_id")),
        scope=parse_scope(s["user_id"], tenant=core.tenant),
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
