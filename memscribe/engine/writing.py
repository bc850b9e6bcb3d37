"""The write path as steps the sync and async shells share: prepare → store → propose → commit."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from memscribe.core.limits import check_metadata, check_text
from memscribe.core.messages import build_episode, parse_messages, parse_time
from memscribe.core.records import (
    Episode,
    JournalEntry,
    MemoryDraft,
    MemoryRecord,
    Message,
    Operation,
    OpKind,
    ToolCall,
)
from memscribe.core.redact import redact, redact_id
from memscribe.engine.caches import forget_cached
from memscribe.engine.candidates import EmbeddingCache, StoreCandidates
from memscribe.engine.core import Core
from memscribe.errors import InvalidInput, MemscribeError, NotFound, WriteConflict, WriterError
from memscribe.stores.ports import Changeset
from memscribe.write.plan import explain_messages, plan_changes
from memscribe.write.ports import WriteContext, Writer, writer_likely_texts, writer_rejections, writer_skips

__all__ = [
    "Proposal",
    "as_writer_error",
    "commit_ops",
    "forget_ids",
    "manual_episode",
    "prepare_episode",
    "process_episode",
    "propose_ops",
    "propose_prepare",
    "record_failure",
    "redact_message",
    "redact_value",
    "replan_on_conflict",
    "replay",
    "results_from_journal",
    "retract_all",
]

Proposal = tuple[list[Operation], EmbeddingCache, datetime]


def prepare_episode(
    core: Core,
    messages: object,
    *,
    user_id: object,
    agent_id: object = None,
    session_id: object = None,
    project: object = None,
    timestamp: object = None,
    source: object = None,
    metadata: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> Episode:
    """Validate and redact the input into an episode. Raises InvalidInput/ScopeError; touches nothing."""
    scope = core.scope(user_id, agent_id=agent_id, session_id=session_id, project=project)
    parsed = tuple(redact_message(m) for m in parse_messages(messages))
    when = parse_time(timestamp) or core.clock.now()
    if source is None:
        source = "api"
    if not isinstance(source, str) or not source or len(source) > 64:
        raise InvalidInput("source must be a short non-empty string")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise InvalidInput("metadata must be a mapping")
    check_metadata(metadata)
    clean_meta = redact_value(dict(metadata or {}))
    key = redact_id(idempotency_key) if isinstance(idempotency_key, str) else idempotency_key
    try:
        return build_episode(parsed, scope, timestamp=when, source=source, metadata=clean_meta, idempotency_key=key)
    except UnicodeEncodeError as exc:  # a lone surrogate in a name, a tool call or the source
        raise InvalidInput(f"the input is not valid Unicode (a lone surrogate: {exc.reason})") from None


def redact_message(m: Message) -> Message:
    """The message with secrets replaced in its content and tool-call arguments."""
    check_text(m.content, "message content")
    calls = tuple(ToolCall(redact(c.name)[0], redact_value(c.arguments), c.id) for c in m.tool_calls)
    name = redact(m.name)[0] if isinstance(m.name, str) else m.name
    return replace(m, content=redact(m.content)[0], name=name, tool_calls=calls)


def redact_value(value: Any) -> Any:
    """Every string in a JSON-like value redacted, mapping keys included."""
    if isinstance(value, str):
        return redact(value)[0]
    if isinstance(value, Mapping):
        return {redact(str(k))[0]: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value


def propose_prepare(core: Core, episode: Episode) -> tuple[EmbeddingCache, datetime, StoreCandidates]:
    """What a writer needs: the episode's texts embedded once (in one batch, when the writer first asks for
    one of them), and candidates read through the store."""
    now = core.clock.now()
    cache = EmbeddingCache(core, likely=writer_likely_texts(core.writer, episode))
    return cache, now, StoreCandidates(core, episode.scope.partition, cache, now, episode.scope.project)


def record_failure(core: Core, episode: Episode, exc: BaseException) -> None:
    """Keep the episode, failed with its error, for a later retry: an acknowledged add is never dropped."""
    from memscribe.engine.pending import retry_at

    state = core.store.episode_state(episode.scope.partition, episode.id)
    attempts = (state.attempts if state else 0) + 1
    core.store.fail_episode(episode.id, f"{type(exc).__name__}: {exc}", retry_at=retry_at(core.clock.now(), attempts))


def as_writer_error(core: Core, episode: Episode, exc: BaseException) -> MemscribeError:
    if isinstance(exc, MemscribeError):
        return exc
    return WriterError(f"writer {core.writer.name!r} failed on episode {episode.id}; it stays pending: {exc}")


def propose_ops(core: Core, episode: Episode) -> Proposal:
    """Run the writer. A writer failure marks the episode failed (kept for retry) and raises."""
    try:
        cache, now, candidates = propose_prepare(core, episode)
        ops = core.writer.propose(episode, candidates, WriteContext(), core.clock)
    except Exception as exc:
        record_failure(core, episode, exc)
        error = as_writer_error(core, episode, exc)
        if error is exc:
            raise
        raise error from exc
    return ops, cache, now


def commit_ops(
    core: Core,
    episode: Episode,
    proposal: Proposal,
    *,
    require_pending: bool = True,
    writer: str | None = None,
) -> dict[str, Any]:
    """Check the proposal, embed what is new and apply every row in one transaction."""
    ops, cache, now = proposal
    partition = episode.scope.partition
    targets = {}
    for op in ops:
        if op.target and op.target not in targets:
            found = core.store.get(partition, op.target)
            if found is not None and found.scope.project == episode.scope.project:  # never across projects
                targets[op.target] = found
    writer_name = writer or core.writer.name
    plan = plan_changes(
        episode,
        ops,
        targets,
        writer=writer_name,
        model_id=core.embedder.model_id,
        now=now,
        writer_rejections=writer_rejections(ops),
    )
    deferred = _deferred(core, cache, plan.insert, plan.reuse_vector)
    now_embedded = [r.text for r in plan.insert if r.version_id not in plan.reuse_vector.keys() | deferred]
    changes = Changeset(
        partition=partition,
        episode_id=episode.id,
        insert=tuple(plan.insert),
        vectors=cache.matrix(now_embedded),
        reuse_vector=plan.reuse_vector,
        retire=tuple(plan.retire),
        journal=tuple(plan.journal),
        require_pending=require_pending,
        deferred=tuple(deferred),
    )
    if not core.store.apply(changes):
        return results_from_journal(core, episode)
    if deferred and core.on_deferred is not None:
        core.on_deferred()
    messages = explain_messages(episode, plan, writer=writer_name, skipped=writer_skips(ops))
    out: dict[str, Any] = {"results": plan.results, "messages": messages, "episode_id": episode.id, "status": "done"}
    # What was refused, and why, comes back too: an add with no results must still say what happened.
    rejected = [{"event": e.kind.value, "reason": e.reason} for e in plan.journal if not e.accepted]
    if rejected:
        out["rejected"] = rejected
    return out


def _deferred(core: Core, cache: EmbeddingCache, insert: list[MemoryRecord], reuse: dict[str, str]) -> set[str]:
    """The new versions whose vectors are left to the indexer (``engine.indexing``): those whose text the
    writer did not embed already, when the store can take memories before their vectors (``defers``)."""
    from memscribe.engine.indexing import defers

    later = {r.version_id for r in insert if r.version_id not in reuse and not cache.holds(r.text)}
    return later if later and defers(core) else set()


def replan_on_conflict(core: Core, attempt: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``attempt`` (plan + commit) again when a concurrent write changed one of its targets."""
    for tries in range(core.max_retries + 1):
        try:
            return attempt()
        except WriteConflict:
            if tries == core.max_retries:
                raise
    raise AssertionError("unreachable")


def process_episode(core: Core, episode: Episode, *, require_pending: bool = True) -> dict[str, Any]:
    """Propose and commit, planning again when a concurrent write changed a target in between."""
    return replan_on_conflict(
        core, lambda: commit_ops(core, episode, propose_ops(core, episode), require_pending=require_pending)
    )


def results_from_journal(core: Core, episode: Episode) -> dict[str, Any]:
    """The results of an episode applied earlier (idempotent re-add)."""
    partition = episode.scope.partition
    results: list[dict[str, Any]] = []
    for entry in core.store.journal(partition, episode_id=episode.id):
        if not entry.accepted or entry.memory_id is None:
            continue
        versions = core.store.versions(partition, entry.memory_id)
        text = next((v.text for v in versions if v.version_id == entry.version_id), None)
        if text is None and versions:
            text = versions[-1].text
        results.append({"id": entry.memory_id, "memory": text or "", "event": entry.kind.value,
                        "reason": entry.reason, "messages": []})  # fmt: skip
    messages = [
        {"index": i, "role": m.role, "outcome": "skipped", "memory_ids": [],
         "reason": "this episode was already written (same content or idempotency key); nothing changed"}
        for i, m in enumerate(episode.messages)
    ]  # fmt: skip
    return {"results": results, "messages": messages, "episode_id": episode.id, "status": "done", "duplicate": True}


def manual_episode(core: Core, memory_id: str, user_id: object, text: str, operation: str) -> Episode:
    """An episode recording a caller's direct edit, so every change has provenance."""
    partition = core.locate(memory_id, user_id)
    target = core.store.get(partition, memory_id)
    if target is None:
        raise NotFound(f"no current memory {memory_id!r}")
    return prepare_episode(
        core,
        [{"role": "user" if operation == "update" else "system", "content": text}],
        user_id=partition[1],
        agent_id=target.scope.agent_id,
        session_id=target.scope.session_id,
        project=target.scope.project,
        source="api",
        metadata={"operation": operation, "memory_id": memory_id},
        idempotency_key=None,
    )


def manual_ops(core: Core, episode: Episode, memory_id: str, operation: str) -> list[Operation]:
    target = core.store.get(episode.scope.partition, memory_id)
    if target is None:
        raise NotFound(f"no current memory {memory_id!r}")
    if operation == "delete":
        return [Operation(OpKind.DELETE, "deleted by the caller", target=memory_id)]
    draft = MemoryDraft(
        text=episode.messages[0].content,
        subject=target.subject,
        slot=target.slot,
        value=None,
        owner=target.owner,
        layer=target.layer,
        scene=target.scene,
        tags=target.tags,
        message_indices=(0,),
        confidence=target.confidence,
        metadata=dict(target.metadata),
    )
    return [Operation(OpKind.UPDATE, "updated by the caller", draft=draft, target=memory_id)]


def forget_ids(core: Core, partition: tuple[str, str], memory_ids: list[str], reason: str) -> dict[str, Any]:
    """Physically erase memories (every version, their source messages' text) and journal the erasure."""
    now = core.clock.now()
    results, journal = [], []
    from memscribe.core.ids import new_id

    for memory_id in dict.fromkeys(memory_ids):
        record = core.store.get(partition, memory_id)
        versions = core.store.versions(partition, memory_id)
        if not versions:
            continue
        scope = (record or versions[-1]).scope
        journal.append(
            JournalEntry(
                id=new_id(),
                episode_id=None,
                scope=scope,
                kind=OpKind.DELETE,
                memory_id=memory_id,
                version_id=None,
                reason=reason,
                candidates=(),
                writer="api",
                accepted=True,
                created_at=now,
            )
        )
        results.append({"id": memory_id, "memory": "", "event": "DELETE"})
    if journal:
        core.store.apply(
            Changeset(partition=partition, episode_id=None, erase=tuple(r["id"] for r in results),
                      journal=tuple(journal))
        )  # fmt: skip
        forget_cached()
    return {"results": results}


def retract_all(core: Core, partition: tuple[str, str], reason: str) -> int:
    """Retract every current memory of a partition (soft: kept as deleted history), in one transaction."""
    from memscribe.stores.ports import RecordFilter

    current = core.store.query(partition, RecordFilter(statuses=("active", "superseded", "expired")), limit=1_000_000)
    if not current:
        return 0
    episode = prepare_episode(
        core, [{"role": "system", "content": reason}], user_id=partition[1], source="api",
        metadata={"operation": "replay"},
    )  # fmt: skip
    core.store.put_episode(episode)
    ops = [Operation(OpKind.DELETE, reason, target=r.id) for r in current]
    commit_ops(core, episode, (ops, EmbeddingCache(core), core.clock.now()), require_pending=False, writer="api")
    return len(current)


def replay(core: Core, partition: tuple[str, str], writer: Writer) -> dict[str, Any]:
    """Retract a partition's current derivation and write every retained episode again, in time order, with
    ``writer`` (see :meth:`Memory.replay`)."""
    chosen = replace(core, writer=writer)
    retracted = retract_all(chosen, partition, f"replaced by replay with writer {writer.name!r}")
    episodes = [e for e in chosen.store.episodes(partition) if e.metadata.get("operation") is None]
    counts: dict[str, int] = {}
    for episode in episodes:
        result = process_episode(chosen, episode, require_pending=False)
        for item in result["results"]:
            counts[item["event"]] = counts.get(item["event"], 0) + 1
    return {"writer": writer.name, "episodes": len(episodes), "retracted": retracted, "events": counts}
