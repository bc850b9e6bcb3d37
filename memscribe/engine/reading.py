"""The read side of the SDK: search, get, list, history and why, in mem0-compatible shapes."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from memscribe.core.limits import check_text
from memscribe.core.messages import message_to_dict, parse_time
from memscribe.core.records import JournalEntry, MemoryRecord
from memscribe.core.text import keyword_terms
from memscribe.engine.core import Core
from memscribe.errors import InvalidInput, NotFound, StoreReadOnly
from memscribe.read.search import gather_hits, inflected
from memscribe.stores.ports import Partition, RecordFilter

__all__ = [
    "build_filter",
    "get",
    "history",
    "list_memories",
    "mem0_scope",
    "record_dict",
    "relevance",
    "search",
    "term_coverage",
    "why",
]

MAX_LIMIT = 1_000
_TIMELESS_WORDS = frozenset({"now", "currently", "nowadays", "presently"})
_FILTER_KEYS = {
    "layers", "scenes", "sources", "owners", "agent_id", "session_id", "project", "after", "before", "statuses",
}  # fmt: skip


def record_dict(r: MemoryRecord, **extra: Any) -> dict[str, Any]:
    """One memory version in the shape mem0 users expect, plus memscribe's version and provenance fields."""
    return {
        "id": r.id,
        "memory": r.text,
        "user_id": r.scope.user_id,
        "agent_id": r.scope.agent_id,
        "session_id": r.scope.session_id,
        "project": r.scope.project,
        "subject": r.subject,
        "slot": r.slot,
        "value": r.value,
        "owner": r.owner.value,
        "layer": r.layer.value,
        "scene": r.scene,
        "tags": list(r.tags),
        "status": r.status.value,
        "version": r.version,
        "version_id": r.version_id,
        "valid_from": r.valid_from.isoformat(),
        "valid_to": r.valid_to.isoformat() if r.valid_to else None,
        "created_at": r.recorded_at.isoformat(),
        "updated_at": r.recorded_at.isoformat(),
        "retired_at": r.retired_at.isoformat() if r.retired_at else None,
        "supersedes": r.supersedes,
        "superseded_by": r.superseded_by,
        "provenance": r.provenance,
        "source": r.source,
        "writer": r.writer,
        "confidence": r.confidence,
        "metadata": r.metadata,
        **extra,
    }


# mem0 names for scope keys inside ``filters``: user_id leaves the filters, run_id is memscribe's session_id.
_MEM0_ALIASES = {"run_id": "session_id", "app_id": "project"}


def mem0_scope(user_id: object, filters: Mapping[str, Any] | None) -> tuple[object, dict[str, Any] | None]:
    """Accept mem0 2.x's ``filters={"user_id": ..., "agent_id": ..., "run_id": ...}`` (also under one
    ``"AND"`` list): the user id leaves the filters (it picks the partition), run_id becomes session_id and
    app_id becomes project. A user id given both ways must agree."""
    if not filters:
        return user_id, None
    flat: dict[str, Any] = {}
    parts = filters["AND"] if set(filters) == {"AND"} and isinstance(filters["AND"], list) else [filters]
    for part in parts:
        if not isinstance(part, Mapping):
            raise InvalidInput("filters.AND must be a list of objects")
        for key, value in part.items():
            if key in ("OR", "NOT", "AND"):
                raise InvalidInput(f"filters.{key} is not supported; memscribe filters are one AND of fields")
            name = _MEM0_ALIASES.get(key, key)
            if value is None:
                continue
            if name in flat and flat[name] != value:  # a later part must not silently override an earlier one
                raise InvalidInput(f"filters give {key} twice with different values: pass it once")
            flat[name] = value
    inner = flat.pop("user_id", None)
    if inner is not None and user_id is not None and inner != user_id:
        raise InvalidInput(f"user_id {user_id!r} and filters.user_id {inner!r} disagree")
    return (user_id if user_id is not None else inner), (flat or None)


def term_coverage(query: str, text: str) -> float:
    """The share of the query's content words (or their regular inflections) found in ``text``."""
    terms = [t for t in keyword_terms(query) if t not in _TIMELESS_WORDS]
    if not terms:
        return 0.0
    words = set(keyword_terms(text, limit=10_000))
    found = sum(1 for t in terms if t in words or words.intersection(inflected([t])))
    return found / len(terms)


def relevance(vector_score: float | None, coverage: float) -> float:
    """A relevance score in [0, 1] for a hit, comparable across queries and store sizes (unlike the fusion
    rank or BM25): the query–memory cosine similarity, clipped at 0, raised halfway towards 1 by the share
    of the query's words the memory holds. A memory matched by words alone scores at most 0.5."""
    cosine = min(max(vector_score or 0.0, 0.0), 1.0)
    return round(cosine + (1.0 - cosine) * 0.5 * min(max(coverage, 0.0), 1.0), 4)


def _check_limit(limit: object) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")
    return limit


def build_filter(
    core: Core, filters: Mapping[str, Any] | None, *, as_of: object = None, include_history: bool = False
) -> RecordFilter:
    if filters is not None and not isinstance(filters, Mapping):
        raise InvalidInput(f"filters must be a mapping, got {type(filters).__name__}")
    filters = dict(filters or {})
    unknown = set(filters) - _FILTER_KEYS
    if unknown:
        raise InvalidInput(f"unknown filter keys {sorted(unknown)}; known: {sorted(_FILTER_KEYS)}")

    def names(key: str) -> tuple[str, ...]:
        value = filters.get(key) or ()
        value = (value,) if isinstance(value, str) else value
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise InvalidInput(f"filter {key!r} takes a string or a list of strings")
        return tuple(value)

    for key in ("agent_id", "session_id", "project"):
        if filters.get(key) is not None and not isinstance(filters[key], str):
            raise InvalidInput(f"filter {key!r} takes a string")
    return RecordFilter(
        as_of=parse_time(as_of, "as_of"),
        include_history=bool(include_history),
        statuses=names("statuses") or ("active",),
        layers=names("layers"),
        scenes=names("scenes"),
        sources=names("sources"),
        owners=names("owners"),
        agent_id=filters.get("agent_id"),
        session_id=filters.get("session_id"),
        project=filters.get("project"),
        valid_after=parse_time(filters.get("after"), "after"),
        valid_before=parse_time(filters.get("before"), "before"),
        now=core.clock.now(),
    )


def index_before_reading(core: Core, partition: Partition) -> None:
    """Read-your-writes by vector: embed the partition's deferred vectors (``engine.indexing``) before a search.
    A store opened read-only cannot take them: its pending memories are then found by keyword alone."""
    from memscribe.engine.indexing import index_pending

    with contextlib.suppress(StoreReadOnly):
        index_pending(core, partition)


def search(
    core: Core,
    query: object,
    *,
    user_id: object,
    limit: object = 10,
    as_of: object = None,
    include_history: bool = False,
    filters: Mapping[str, Any] | None = None,
    threshold: float | None = None,
) -> dict[str, Any]:
    """Hits best first. ``score`` is the calibrated relevance in [0, 1] (see :func:`relevance`); hits under
    ``threshold`` are dropped. ``rank_score`` is the fusion value the order comes from."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string")
    if len(query) > 10_000:
        raise InvalidInput("query must be at most 10000 characters")
    check_text(query, "query")
    if threshold is not None and (not isinstance(threshold, int | float) or not 0.0 <= threshold <= 1.0):
        raise InvalidInput(f"threshold must be a number from 0 to 1, got {threshold!r}")
    partition = core.partition(user_id)
    # History is shown beside each hit, not searched: hits stay current (or valid at as_of).
    flt = build_filter(core, filters, as_of=as_of)
    index_before_reading(core, partition)
    hits = gather_hits(core.store, core.embedder, partition, query, flt, _check_limit(limit), question=True)
    results = []
    for hit in hits:
        score = relevance(hit.vector_score, term_coverage(query, hit.record.text))
        if threshold is not None and score < threshold:
            continue
        extra: dict[str, Any] = {
            "score": score,
            "rank_score": round(hit.score, 6),
            "scores": {"vector": hit.vector_score, "keyword": hit.keyword_score},
        }
        if include_history:
            extra["history"] = [record_dict(v) for v in chain(core, hit.record)]
        results.append(record_dict(hit.record, **extra))
    return {"results": results}


def chain(core: Core, record: MemoryRecord) -> list[MemoryRecord]:
    """The record's versions plus the memories it superseded, oldest first."""
    partition = record.scope.partition
    seen: set[str] = set()
    out: list[MemoryRecord] = []
    current: MemoryRecord | None = record
    while current is not None and current.id not in seen:
        seen.add(current.id)
        out = core.store.versions(partition, current.id) + out
        prev = current.supersedes
        older = core.store.versions(partition, prev) if prev else []
        current = older[-1] if older else None
    return out


def get(core: Core, memory_id: object, user_id: object = None) -> dict[str, Any]:
    partition = core.locate(memory_id, user_id)
    record = core.store.get(partition, str(memory_id))
    if record is None:
        raise NotFound(f"no memory {memory_id!r}")
    return record_dict(record)


def list_memories(
    core: Core,
    *,
    user_id: object,
    limit: object = 100,
    offset: object = 0,
    as_of: object = None,
    include_history: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidInput("offset must be a non-negative integer")
    flt = build_filter(core, filters, as_of=as_of, include_history=include_history)
    records = core.store.query(core.partition(user_id), flt, limit=_check_limit(limit), offset=offset)
    return {"results": [record_dict(r) for r in records]}


def history(core: Core, memory_id: object, user_id: object = None) -> list[dict[str, Any]]:
    """Every version oldest first, each also in mem0's history shape: ``memory_id``, ``event`` (ADD,
    UPDATE, DELETE), ``old_memory``, ``new_memory``, ``is_deleted``."""
    partition = core.locate(memory_id, user_id)
    versions = core.store.versions(partition, str(memory_id))
    if not versions:
        raise NotFound(f"no memory {memory_id!r}")
    out, previous = [], None
    for version in chain(core, versions[-1]):
        deleted = version.status.value == "deleted"
        event = "DELETE" if deleted else ("ADD" if previous is None else "UPDATE")
        out.append(record_dict(
            version, memory_id=version.id, event=event, old_memory=previous,
            new_memory=None if deleted else version.text, is_deleted=deleted,
        ))  # fmt: skip
        previous = version.text
    return out


def why(core: Core, memory_id: object, user_id: object = None) -> dict[str, Any]:
    """The operations and episodes behind a memory and its predecessors."""
    partition = core.locate(memory_id, user_id)
    versions = core.store.versions(partition, str(memory_id))
    if not versions:
        raise NotFound(f"no memory {memory_id!r}")
    records = chain(core, versions[-1])
    ops: list[JournalEntry] = []
    for mid in dict.fromkeys(r.id for r in records):
        ops += core.store.journal(partition, memory_id=mid)
    episodes = []
    for eid in dict.fromkeys(r.episode_id for r in records if r.episode_id):
        episode = core.store.get_episode(partition, eid)
        if episode is not None:
            episodes.append({
                "id": episode.id, "timestamp": episode.timestamp.isoformat(), "source": episode.source,
                "messages": [message_to_dict(m) for m in episode.messages],
            })  # fmt: skip
    return {
        "memory": record_dict(versions[-1]),
        "versions": [record_dict(r) for r in records],
        "operations": [journal_dict(j) for j in sorted(ops, key=lambda j: j.created_at)],
        "episodes": episodes,
    }


def journal_dict(j: JournalEntry) -> dict[str, Any]:
    return {
        "id": j.id, "kind": j.kind.value, "memory_id": j.memory_id, "version_id": j.version_id,
        "episode_id": j.episode_id, "reason": j.reason, "candidates": list(j.candidates), "writer": j.writer,
        "accepted": j.accepted, "created_at": j.created_at.isoformat(), "model": j.usage.model,
        "prompt_version": j.usage.prompt_version, "tokens_in": j.usage.tokens_in,
        "tokens_out": j.usage.tokens_out, "latency_ms": j.usage.latency_ms,
    }  # fmt: skip
