"""``Memory``: the synchronous SDK."""

from __future__ import annotations

import builtins
import contextlib
import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

from memscribe.config import MemoryConfig
from memscribe.core.clock import Clock, SystemClock
from memscribe.engine import reading, transfer, writing
from memscribe.engine.candidates import EmbeddingCache
from memscribe.engine.consolidation import Consolidator
from memscribe.engine.core import Core
from memscribe.engine.pending import WRITE_LEASE_SECONDS, PendingRunner, submitted_writer
from memscribe.errors import InvalidInput, NotFound
from memscribe.providers.chat import ChatModel
from memscribe.providers.ports import Embedder
from memscribe.stores.ports import MAX_EPISODE_ATTEMPTS, EpisodeState, Store
from memscribe.write.ports import Writer

__all__ = ["Memory", "build_core"]


def build_core(
    path: str | Path | None,
    *,
    config: MemoryConfig | None,
    writer: str | Writer | None,
    embedder: str | Embedder | None,
    store: Store | None,
    clock: Clock | None,
    tenant: str | None,
) -> Core:
    from memscribe.engine.writers import make_writer
    from memscribe.providers.registry import make_embedder

    cfg = config or MemoryConfig()
    if store is None:
        from memscribe.stores.sqlite import SQLiteStore

        store = SQLiteStore(Path(path) if path else cfg.resolved_path(), lock_timeout=cfg.lock_timeout)
    chosen_writer = writer if writer is not None else cfg.writer
    spec = embedder if embedder is not None else cfg.embedder
    factory: Callable[[], Embedder] = (lambda: make_embedder(spec)) if isinstance(spec, str) else (lambda: spec)
    chat = chat_factory(cfg)
    return Core(
        store=store,
        embedder_factory=factory,
        writer=make_writer(chosen_writer, chat_factory=chat) if isinstance(chosen_writer, str) else chosen_writer,
        clock=clock or SystemClock(),
        tenant=tenant or cfg.tenant,
        max_retries=cfg.max_retries,
        model=cfg.llm,
    )


def chat_factory(cfg: MemoryConfig) -> Callable[[], ChatModel] | None:
    """Builds the configured model on first use (None when no ``llm`` is configured)."""
    if not cfg.llm:
        return None
    spec = cfg.llm

    def make() -> ChatModel:
        from memscribe.providers.presets import make_chat

        return make_chat(spec, base_url=cfg.llm_base_url, api_key=cfg.llm_api_key, **dict(cfg.llm_options))

    return make


class Memory:
    """A memory store for agents. ``Memory()`` keeps its data under ``$MEMSCRIBE_HOME`` or the user data
    directory, created on the first write. Every method is scoped by ``user_id``; ``get``/``history``/
    ``why``/``update``/``delete`` accept a memory id alone and look it up within the tenant."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        config: MemoryConfig | None = None,
        writer: str | Writer | None = None,
        embedder: str | Embedder | None = None,
        store: Store | None = None,
        clock: Clock | None = None,
        tenant: str | None = None,
    ) -> None:
        self._core = build_core(
            path, config=config, writer=writer, embedder=embedder, store=store, clock=clock, tenant=tenant
        )
        cfg = config or MemoryConfig()
        self._chat_factory = chat_factory(cfg)
        ultra = (writer if writer is not None else cfg.writer) == "ultra"
        chat = getattr(self._core.writer, "chat", None)  # ultra consolidates with its writer's model
        self._consolidator = Consolidator(
            self._core, chat, every_n_facts=cfg.consolidate_every, idle_seconds=cfg.consolidate_idle_seconds
        )
        self._auto_consolidate = cfg.consolidation or ultra
        self._worker: threading.Thread | None = None
        self._queue_lock = threading.Lock()
        self._recovered = False
        self._closing = False
        self._again = False
        self._queued: builtins.list[Any] = []  # episodes this Memory acknowledged with wait=False
        self._pending = PendingRunner(self._core, self._process_with, self._chat_factory)

    # -- write -----------------------------------------------------------------------------------

    def add(
        self,
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
        wait: bool = True,
    ) -> dict[str, Any]:
        """Store the episode durably, then (with ``wait``) write its memories and return the operations."""
        episode = writing.prepare_episode(
            self._core, messages, user_id=user_id, agent_id=agent_id, session_id=session_id, project=project,
            timestamp=timestamp, source=source, metadata=metadata, idempotency_key=idempotency_key,
        )  # fmt: skip
        self._recover()
        state = self._store_episode(episode, wait=wait)
        if state.status == "done":
            stored = self._core.store.get_episode(episode.scope.partition, state.episode_id) or episode
            return writing.results_from_journal(self._core, stored)
        if not wait:
            with self._queue_lock:
                self._queued.append(episode)
            self._kick_worker()
            return {"results": [], "episode_id": state.episode_id, "status": "pending"}
        return self._process(episode)

    def _store_episode(self, episode: Any, *, wait: bool) -> EpisodeState:
        """Store the episode for this Memory's writer; with ``wait``, leased so recovery leaves it to us."""
        writer, model = submitted_writer(self._core)
        held = None if not wait else self._core.clock.now() + timedelta(seconds=WRITE_LEASE_SECONDS)
        return self._core.store.put_episode(episode, writer=writer, model=model, held_until=held)

    def _process(self, episode: Any) -> dict[str, Any]:
        return self._process_with(self._core, episode)

    def _process_with(self, core: Core, episode: Any) -> dict[str, Any]:
        result = writing.process_episode(core, episode)
        if self._auto_consolidate:
            self._consolidator.note(episode.scope.partition, result)
        return result

    def process_pending(self, limit: int | None = None) -> int:
        """Write every episode stored but not yet processed (after a crash or ``wait=False``), each with the
        writer it was submitted with; episodes for a writer this Memory cannot build are left pending.

        Each episode is tried once per call, backoff or not; a failure is recorded on it. Episodes that failed
        ``MAX_EPISODE_ATTEMPTS`` times are given up (see :meth:`pending`, :meth:`retry_pending`). Returns the
        number written."""
        return self._pending.run(due_only=False, limit=limit)

    def pending(self, *, limit: int = 100) -> builtins.list[dict[str, Any]]:
        """Episodes of this tenant not yet written: writer, attempts, last error and next retry."""
        rows = []
        for episode, state in self._core.store.pending(tenant=self._core.tenant, limit=limit):
            rows.append({
                "episode_id": episode.id, "user_id": episode.scope.user_id, "status": state.status,
                "writer": state.writer, "model": state.model, "attempts": state.attempts, "error": state.error,
                "retry_at": state.retry_at.isoformat() if state.retry_at else None,
                "given_up": state.attempts >= MAX_EPISODE_ATTEMPTS,
            })  # fmt: skip
        return rows

    def retry_pending(self, *, user_id: object = None, writer: str | None = None) -> dict[str, Any]:
        """Retry pending and given-up episodes now. ``writer`` reassigns them to another writer (with this
        Memory's model for an LLM writer): the only way an episode changes writer."""
        from memscribe.engine.writers import LLM_WRITER_NAMES, make_writer

        if writer is not None:
            make_writer(writer, chat_factory=self._chat_factory)  # refuse a writer this Memory cannot build
        model = self._core.model if writer in LLM_WRITER_NAMES else None
        uid = self._core.partition(user_id)[1] if user_id is not None else None
        reset = self._core.store.retry_episodes(self._core.tenant, user_id=uid, writer=writer, model=model)
        return {"reset": reset, "written": self.process_pending(), "writer": writer}

    def _recover(self) -> None:
        """On first use, write what earlier processes left pending, in the background: a slow or broken
        model endpoint never delays this command, and only episodes whose backoff passed are tried."""
        if not self._recovered:
            self._recovered = True
            todo = self._pending.due(True)  # listed now: what this call stores next is its own to write
            if todo:
                self._kick_worker(todo)

    def _work(self, todo: Any = None) -> None:
        while True:
            with self._queue_lock:
                self._again, seen = False, len(self._queued)
            self._pending.run(due_only=True, stop=lambda: self._closing, todo=todo)
            todo = None
            with self._queue_lock:  # an episode queued while the scan was ending is not left behind
                if not self._closing:
                    del self._queued[:seen]  # the pass tried each of them
                if not self._again or self._closing:
                    self._worker = None
                    return

    def _kick_worker(self, todo: Any = None) -> None:
        with self._queue_lock:
            self._again = True
            if self._worker is None and not self._closing:
                self._worker = threading.Thread(target=self._work, args=(todo,), name="memscribe-writer", daemon=True)
                self._worker.start()

    def flush(self, timeout: float | None = None) -> None:
        """Wait until episodes added with ``wait=False`` are processed (and process any still pending)."""
        self._join_worker(timeout)
        self.process_pending()

    def _join_worker(self, timeout: float | None = None) -> None:
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def _write_queued(self) -> None:
        """Write what this Memory acknowledged with ``wait=False`` and no one has written yet."""
        with self._queue_lock:
            queued, self._queued = self._queued, []
        for episode in queued:
            state = self._core.store.episode_state(episode.scope.partition, episode.id)
            if state is not None and state.status != "done":
                with contextlib.suppress(Exception):  # recorded on the episode; retried on a later start
                    self._process(episode)

    def update(self, memory_id: str, text: str, *, user_id: object = None) -> dict[str, Any]:
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("text must be a non-empty string")
        episode = writing.manual_episode(self._core, memory_id, user_id, text, "update")
        return self._manual(episode, memory_id, "update")

    def delete(self, memory_id: str, *, user_id: object = None) -> dict[str, Any]:
        episode = writing.manual_episode(self._core, memory_id, user_id, f"delete memory {memory_id}", "delete")
        return self._manual(episode, memory_id, "delete")

    def _manual(self, episode: Any, memory_id: str, operation: str) -> dict[str, Any]:
        self._core.store.put_episode(episode)
        ops = writing.manual_ops(self._core, episode, memory_id, operation)
        proposal = (ops, EmbeddingCache(self._core), self._core.clock.now())
        return writing.commit_ops(self._core, episode, proposal, require_pending=False, writer="api")

    def forget(self, query_or_id: str, *, user_id: object = None, limit: int = 5) -> dict[str, Any]:
        """Erase a memory by id, or the memories matching a query: every version and its source text."""
        if not isinstance(query_or_id, str) or not query_or_id.strip():
            raise InvalidInput("forget needs a memory id or a query")
        try:
            partition = self._core.locate(query_or_id, user_id if user_id is not None else None)
            if self._core.store.versions(partition, query_or_id):
                return writing.forget_ids(self._core, partition, [query_or_id], "forgotten on request")
        except NotFound:
            pass
        if user_id is None:
            raise NotFound(f"no memory {query_or_id!r}; pass user_id to forget by query")
        hits = reading.search(self._core, query_or_id, user_id=user_id, limit=limit)["results"]
        chosen = [h["id"] for h in hits if h["scores"]["keyword"] is not None]
        return writing.forget_ids(self._core, self._core.partition(user_id), chosen, "forgotten on request")

    def replay(self, *, user_id: object, writer: str | Writer | None = None) -> dict[str, Any]:
        """Re-derive a user's memories from the retained episodes with ``writer`` (default: this Memory's).

        The current derivation is retracted (kept as history, journaled with the reason) and every episode
        is written again in time order, so a store built by ``raw`` can be upgraded to ``lite`` or an LLM.
        """
        from dataclasses import replace as dc_replace

        from memscribe.engine.writers import make_writer

        partition = self._core.partition(user_id)
        if isinstance(writer, str):
            chosen = make_writer(writer, chat_factory=self._chat_factory)
        else:
            chosen = writer or self._core.writer
        core = dc_replace(self._core, writer=chosen)
        retracted = writing.retract_all(core, partition, f"replaced by replay with writer {chosen.name!r}")
        episodes = [e for e in core.store.episodes(partition) if e.metadata.get("operation") is None]
        counts: dict[str, int] = {}
        for episode in episodes:
            result = writing.process_episode(core, episode, require_pending=False)
            for item in result["results"]:
                counts[item["event"]] = counts.get(item["event"], 0) + 1
        return {"writer": chosen.name, "episodes": len(episodes), "retracted": retracted, "events": counts}

    def consolidate(self, *, user_id: object) -> dict[str, Any]:
        """Run one bounded consolidation pass now: expire past intentions, merge duplicates, refresh the
        profile and (with a model) derive insights with evidence links. Every change is journaled."""
        return self._consolidator.run(self._core.partition(user_id))

    def profile(self, *, user_id: object, as_of: object = None) -> dict[str, Any]:
        """The L0 profile: subject → attribute → values from current slot memories (or as of a time)."""
        from memscribe.core.messages import parse_time
        from memscribe.scenes import profile

        when = parse_time(as_of, "as_of")
        found = profile(self._core.store, self._core.partition(user_id), as_of=when, now=self._core.clock.now())
        return found.as_dict()

    def purge(self, user_id: object) -> dict[str, Any]:
        """Erase every byte of one user's content from every file the engine owns, and verify it."""
        report = self._core.store.purge(self._core.partition(user_id))
        return {
            "user_id": report.partition[1], "memories": report.memories, "episodes": report.episodes,
            "journal": report.journal, "files_checked": list(report.files_checked),
            "leftovers": list(report.leftovers), "verified": report.verified,
        }  # fmt: skip

    # -- read ------------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        user_id: object,
        limit: int = 10,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        self._recover()
        return reading.search(
            self._core, query, user_id=user_id, limit=limit, as_of=as_of, include_history=include_history,
            filters=filters,
        )  # fmt: skip

    def get(self, memory_id: str, *, user_id: object = None) -> dict[str, Any]:
        return reading.get(self._core, memory_id, user_id)

    def list(
        self,
        *,
        user_id: object,
        limit: int = 100,
        offset: int = 0,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        return reading.list_memories(
            self._core, user_id=user_id, limit=limit, offset=offset, as_of=as_of,
            include_history=include_history, filters=filters,
        )  # fmt: skip

    def history(self, memory_id: str, *, user_id: object = None) -> builtins.list[dict[str, Any]]:
        return reading.history(self._core, memory_id, user_id)

    def why(self, memory_id: str, *, user_id: object = None) -> dict[str, Any]:
        return reading.why(self._core, memory_id, user_id)

    def pack(self, query: str, *, user_id: object, max_tokens: int = 800, limit: int = 20) -> str:
        """A context block of the best memories for ``query`` that fits in ``max_tokens``."""
        from memscribe.read.pack import pack_context

        return pack_context(self.search(query, user_id=user_id, limit=limit)["results"], max_tokens=max_tokens)

    # -- admin -----------------------------------------------------------------------------------

    def export(self, user_id: object, fp: IO[str] | None = None) -> builtins.list[str] | None:
        """Write JSONL to ``fp`` (or return the lines)."""
        lines = transfer.export_lines(self._core, user_id)
        if fp is None:
            return list(lines)
        for line in lines:
            fp.write(line + "\n")
        return None

    def import_(self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None) -> dict[str, int]:
        return transfer.import_lines(self._core, lines, progress=progress)

    def stats(self, *, user_id: object = None) -> dict[str, Any]:
        partition = self._core.partition(user_id) if user_id is not None else None
        return self._core.store.stats(partition, tenant=self._core.tenant)

    def reindex(self, *, user_id: object = None, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
        """Rebuild the search indexes from the store: one user's, or every user's of this tenant (which also
        compacts the keyword index). Searches build what they need on their own; this does it up front, after
        a bulk import or when an index file was lost, with ``progress`` called per batch of vectors."""
        partition = self._core.partition(user_id) if user_id is not None else None
        return self._core.store.reindex(partition, tenant=self._core.tenant, progress=progress)

    def close(self) -> None:
        """Write this Memory's own ``wait=False`` episodes, stop recovering others' and close the store."""
        self._closing = True
        self._join_worker()
        self._write_queued()
        self._consolidator.join()
        self._core.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ``import`` is a keyword; the SDK method is reachable under its natural name too.
setattr(Memory, "import", Memory.import_)
