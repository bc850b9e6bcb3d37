"""``Memory``: the synchronous SDK."""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import IO, Any, cast

from memscribe.config import MemoryConfig
from memscribe.core.clock import Clock
from memscribe.engine import reading, transfer, writing
from memscribe.engine.background import BackgroundWriter
from memscribe.engine.build import build_core, chat_factory
from memscribe.engine.caches import forget_cached
from memscribe.engine.candidates import EmbeddingCache
from memscribe.engine.consolidation import Consolidator
from memscribe.engine.core import Core
from memscribe.engine.indexing import CLOSE_INDEX_LIMIT, BackgroundIndexer, defers, index_pending
from memscribe.engine.pending import WRITE_LEASE_SECONDS, PendingRunner, pending_rows, submitted_writer
from memscribe.errors import InvalidInput, NotFound, ScopeError, StoreError
from memscribe.providers.ports import Embedder
from memscribe.stores.ports import EpisodeState, Store, VectorIndex
from memscribe.types import (
    AddResult,
    ConsolidateResult,
    ForgetResult,
    HistoryEntry,
    ImportResult,
    ListResult,
    MemoryItem,
    PendingEntry,
    PurgeResult,
    ReindexResult,
    ReplayResult,
    RetryResult,
    SearchResult,
    StatsResult,
    WhyResult,
)
from memscribe.write.ports import Writer, writer_warm_up

__all__ = ["Memory", "build_core", "chat_factory"]


def _user(user_id: object) -> object:
    """The user id, or a ScopeError that says both ways to give it."""
    if user_id is None:
        raise ScopeError("user_id is required: pass user_id=... (or mem0-style filters={'user_id': ...})")
    return user_id


def _limit(limit: int | None, top_k: int | None, default: int) -> int:
    """``limit``, else mem0's ``top_k``, else the default; both given must agree."""
    if limit is not None and top_k is not None and limit != top_k:
        raise InvalidInput(f"limit {limit!r} and top_k {top_k!r} disagree; pass one")
    chosen = limit if limit is not None else top_k
    return default if chosen is None else chosen


class Memory:
    """A memory store for agents. ``Memory()`` keeps its data under ``$MEMSCRIBE_HOME`` or the user data
    directory, created on the first write. Every method is scoped by ``user_id``; ``get``/``history``/
    ``why``/``update``/``delete`` accept a memory id alone and look it up within the tenant. ``vectors``
    picks the vector index of the default SQLite store: a spec (``"faiss"``, ``"qdrant+local"``,
    ``"qdrant://host:6333"``, ... see :mod:`memscribe.stores.select`) or a
    :class:`~memscribe.stores.ports.VectorIndex`."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        config: MemoryConfig | None = None,
        writer: str | Writer | None = None,
        embedder: str | Embedder | None = None,
        store: Store | str | None = None,
        clock: Clock | None = None,
        tenant: str | None = None,
        vectors: str | VectorIndex | None = None,
    ) -> None:
        self._core = build_core(
            path, config=config, writer=writer, embedder=embedder, store=store, clock=clock, tenant=tenant,
            vectors=vectors,
        )  # fmt: skip
        cfg = config or MemoryConfig()
        self._chat_factory = chat_factory(cfg)
        ultra = (writer if writer is not None else cfg.writer) == "ultra"
        chat = getattr(self._core.writer, "chat", None)  # ultra consolidates with its writer's model
        self._consolidator = Consolidator(
            self._core, chat, every_n_facts=cfg.consolidate_every, idle_seconds=cfg.consolidate_idle_seconds
        )
        self._auto_consolidate = cfg.consolidation or ultra
        self._recovered = False
        self._raw: Core | None = None
        self._pending = PendingRunner(self._core, self._process_with, self._chat_factory)
        self._background = BackgroundWriter(self._core, self._process_with, self._pending)
        self._indexer = BackgroundIndexer(self._core)
        self._core.on_deferred = self._indexer.kick  # cores derived from this one (raw, replay) share it

    def warm_up(self) -> None:
        """Do now the one-time work the first add and search would pay: load the embedding model and let the
        writer compile its rules (``lite``: about 130 ms on the first episodes otherwise). Call it before taking
        traffic; nothing needs it for correctness."""
        self._core.embedder.embed(["warm up"])
        writer_warm_up(self._core.writer)

    # -- write -----------------------------------------------------------------------------------

    def add(
        self,
        messages: object,
        *,
        user_id: object = None,
        agent_id: object = None,
        session_id: object = None,
        project: object = None,
        timestamp: object = None,
        source: object = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        wait: bool = True,
        run_id: object = None,
        infer: bool = True,
    ) -> AddResult:
        """Store the episode durably, then (with ``wait``) write its memories and return what happened.

        ``messages`` is a string (one user message), one message dict or a list of them (role, content,
        optional name, timestamp, tool_calls). The result's ``results`` are the operations applied (ADD,
        UPDATE, SUPERSEDE, DELETE, NOOP, each with its reason) and ``messages`` says per message what
        happened and why (stored, merged, updated, superseded, deleted, rejected, skipped). mem0 spellings
        work: ``run_id`` is ``session_id``; ``infer=False`` stores the messages as they are (raw writer).
        With ``wait=False`` it returns once the episode is stored durably, with ``status: "pending"``; a
        background thread writes such episodes in batches (one embedding call per batch), and every read,
        forget or purge through this Memory waits for them first, so a search right after sees them."""
        episode = writing.prepare_episode(
            self._core, messages, user_id=_user(user_id), agent_id=agent_id, session_id=session_id or run_id,
            project=project, timestamp=timestamp, source=source, metadata=metadata, idempotency_key=idempotency_key,
        )  # fmt: skip
        self._recover()
        core = self._core if infer else self._raw_core()  # infer=False is recorded as the raw writer's
        state = self._store_episode(core, episode, wait=wait)
        if state.status == "done":
            stored = self._core.store.get_episode(episode.scope.partition, state.episode_id) or episode
            return cast(AddResult, writing.results_from_journal(self._core, stored))
        if not wait:
            self._background.enqueue(core, episode)
            return {"results": [], "messages": [], "episode_id": state.episode_id, "status": "pending"}
        self._settle()  # what this Memory acknowledged earlier is written first, in order
        return cast(AddResult, self._process_with(core, episode))

    def _raw_core(self) -> Core:
        """This Memory's core with the raw writer (``infer=False``), built once."""
        if self._raw is None:
            from dataclasses import replace as dc_replace

            from memscribe.engine.writers import make_writer

            self._raw = dc_replace(self._core, writer=make_writer("raw"))
        return self._raw

    def _store_episode(self, core: Core, episode: Any, *, wait: bool) -> EpisodeState:
        """Store the episode for ``core``'s writer; with ``wait``, leased so recovery leaves it to us."""
        writer, model = submitted_writer(core)
        held = None if not wait else self._core.clock.now() + timedelta(seconds=WRITE_LEASE_SECONDS)
        return self._core.store.put_episode(episode, writer=writer, model=model, held_until=held)

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

    def pending(self, *, limit: int = 100) -> builtins.list[PendingEntry]:
        """Episodes of this tenant not yet written: writer, attempts, last error and next retry."""
        return cast("builtins.list[PendingEntry]", pending_rows(self._core, limit))

    def retry_pending(self, *, user_id: object = None, writer: str | None = None) -> RetryResult:
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
                self._background.kick(todo)
            if defers(self._core):  # vectors a killed process left to compute: embedded in the background
                with contextlib.suppress(StoreError):
                    if self._core.store.unembedded(tenant=self._core.tenant, limit=1):  # type: ignore[attr-defined]
                        self._indexer.kick()

    def flush(self, timeout: float | None = None) -> None:
        """Wait until episodes added with ``wait=False`` are processed (and process any still pending), and
        until every memory stored so far has its vector (see :mod:`memscribe.engine.indexing`)."""
        self._background.join(timeout)
        self.process_pending()
        self._indexer.join(timeout)
        index_pending(self._core)

    def _settle(self) -> None:
        """Read-your-writes: wait for what this Memory acknowledged with ``wait=False`` (see BackgroundWriter).
        Vectors left to the indexer need no wait: a search embeds what its partition still lacks first."""
        self._background.settle()

    def update(self, memory_id: str, text: str, *, user_id: object = None) -> AddResult:
        """Replace a memory's text with a new version (the old one stays in its history), journaled as a
        caller's edit."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("text must be a non-empty string")
        episode = writing.manual_episode(self._core, memory_id, user_id, text, "update")
        return self._manual(episode, memory_id, "update")

    def delete(self, memory_id: str, *, user_id: object = None) -> AddResult:
        """Retract a memory: it stops being current but stays in history (``forget`` erases it for good)."""
        episode = writing.manual_episode(self._core, memory_id, user_id, f"delete memory {memory_id}", "delete")
        return self._manual(episode, memory_id, "delete")

    def _manual(self, episode: Any, memory_id: str, operation: str) -> AddResult:
        self._core.store.put_episode(episode)
        ops = writing.manual_ops(self._core, episode, memory_id, operation)
        proposal = (ops, EmbeddingCache(self._core), self._core.clock.now())
        return cast(
            AddResult, writing.commit_ops(self._core, episode, proposal, require_pending=False, writer="api")
        )

    def forget(self, query_or_id: str, *, user_id: object = None, limit: int = 5) -> ForgetResult:
        """Erase a memory by id, or the memories matching a query: every version and its source text."""
        if not isinstance(query_or_id, str) or not query_or_id.strip():
            raise InvalidInput("forget needs a memory id or a query")
        self._settle()
        try:
            partition = self._core.locate(query_or_id, user_id if user_id is not None else None)
            if self._core.store.versions(partition, query_or_id):
                erased = writing.forget_ids(self._core, partition, [query_or_id], "forgotten on request")
                return cast(ForgetResult, erased)
        except NotFound:
            pass
        if user_id is None:
            raise NotFound(f"no memory {query_or_id!r}; pass user_id to forget by query")
        hits = reading.search(self._core, query_or_id, user_id=user_id, limit=limit)["results"]
        chosen = [h["id"] for h in hits if h["scores"]["keyword"] is not None]
        erased = writing.forget_ids(self._core, self._core.partition(user_id), chosen, "forgotten on request")
        return cast(ForgetResult, erased)

    def replay(self, *, user_id: object, writer: str | Writer | None = None) -> ReplayResult:
        """Re-derive a user's memories from the retained episodes with ``writer`` (default: this Memory's).

        The current derivation is retracted (kept as history, journaled with the reason) and every episode
        is written again in time order, so a store built by ``raw`` can be upgraded to ``lite`` or an LLM.
        """
        from memscribe.engine.writers import make_writer

        self._settle()
        if isinstance(writer, str):
            chosen = make_writer(writer, chat_factory=self._chat_factory)
        else:
            chosen = writer or self._core.writer
        return cast(ReplayResult, writing.replay(self._core, self._core.partition(user_id), chosen))

    def consolidate(self, *, user_id: object) -> ConsolidateResult:
        """Run one bounded consolidation pass now: expire past intentions, merge duplicates, refresh the
        profile and (with a model) derive insights with evidence links. Every change is journaled."""
        return cast(ConsolidateResult, self._consolidator.run(self._core.partition(user_id)))

    def profile(self, *, user_id: object, as_of: object = None) -> dict[str, Any]:
        """The L0 profile: subject → attribute → values from current slot memories (or as of a time)."""
        from memscribe.core.messages import parse_time
        from memscribe.scenes import profile

        when = parse_time(as_of, "as_of")
        found = profile(self._core.store, self._core.partition(user_id), as_of=when, now=self._core.clock.now())
        return found.as_dict()

    def purge(self, user_id: object) -> PurgeResult:
        """Erase every byte of one user's content from every file the engine owns, and verify it."""
        self._settle()  # nothing acknowledged before the purge may be written after it
        report = self._core.store.purge(self._core.partition(user_id))
        forget_cached()
        return {
            "user_id": report.partition[1], "memories": report.memories, "episodes": report.episodes,
            "journal": report.journal, "files_checked": list(report.files_checked),
            "leftovers": list(report.leftovers), "verified": report.verified,
        }  # fmt: skip

    def delete_all(self, *, user_id: object) -> PurgeResult:
        """mem0's ``delete_all(user_id=...)``: :meth:`purge` (every byte of the user's content, verified)."""
        return self.purge(user_id)

    # -- read ------------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        user_id: object = None,
        limit: int | None = None,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        threshold: float | None = None,
    ) -> SearchResult:
        """The current memories that best match ``query`` (hybrid vector + keyword search), best first.

        Each hit has ``score``, a relevance in [0, 1] comparable across queries (``threshold`` drops hits
        below it), and ``rank_score``, the fusion value the order comes from. ``filters`` narrows within the
        user (agent_id, session_id, project, layers, scenes, sources, owners, statuses, after, before); mem0's
        ``filters={"user_id": ...}`` and ``top_k`` work too. ``as_of`` searches what was valid then;
        ``include_history`` adds each hit's version chain."""
        self._recover()
        self._settle()
        user_id, filters = reading.mem0_scope(user_id, filters)
        found = reading.search(
            self._core, query, user_id=_user(user_id), limit=_limit(limit, top_k, 10), as_of=as_of,
            include_history=include_history, filters=filters, threshold=threshold,
        )  # fmt: skip
        return cast(SearchResult, found)

    def get(self, memory_id: str, *, user_id: object = None) -> MemoryItem:
        """One memory's current version (or its last, when retired), by id; NotFound if not in scope."""
        self._settle()
        return cast(MemoryItem, reading.get(self._core, memory_id, user_id))

    def list(
        self,
        *,
        user_id: object = None,
        limit: int | None = None,
        offset: int = 0,
        as_of: object = None,
        include_history: bool = False,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
    ) -> ListResult:
        """A user's current memories, newest first, a page at a time (``limit``/``offset``; default 100).
        ``filters``, ``as_of`` and mem0's ``filters={"user_id": ...}``/``top_k`` work as in :meth:`search`;
        ``include_history`` lists retired versions too."""
        self._settle()
        user_id, filters = reading.mem0_scope(user_id, filters)
        found = reading.list_memories(
            self._core, user_id=_user(user_id), limit=_limit(limit, top_k, 100), offset=offset, as_of=as_of,
            include_history=include_history, filters=filters,
        )  # fmt: skip
        return cast(ListResult, found)

    def get_all(
        self,
        *,
        user_id: object = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> ListResult:
        """mem0's name for :meth:`list`: ``get_all(filters={"user_id": "alice"}, top_k=20)``."""
        return self.list(user_id=user_id, filters=filters, top_k=top_k, limit=limit, offset=offset)

    def history(self, memory_id: str, *, user_id: object = None) -> builtins.list[HistoryEntry]:
        """Every version of a memory and of the memories it superseded, oldest first. Each entry is a full
        memory version plus mem0's history fields (``memory_id``, ``event``, ``old_memory``, ``new_memory``,
        ``is_deleted``)."""
        self._settle()
        return cast("builtins.list[HistoryEntry]", reading.history(self._core, memory_id, user_id))

    def why(self, memory_id: str, *, user_id: object = None) -> WhyResult:
        """Why a memory is what it is: its versions, every operation behind them (with reasons, writer,
        model and cost) and the source messages."""
        self._settle()
        return cast(WhyResult, reading.why(self._core, memory_id, user_id))

    def pack(self, query: str, *, user_id: object, max_tokens: int = 800, limit: int = 20) -> str:
        """A context block of the best memories for ``query`` that fits in ``max_tokens``."""
        from memscribe.read.pack import pack_context

        return pack_context(self.search(query, user_id=user_id, limit=limit)["results"], max_tokens=max_tokens)

    # -- admin -----------------------------------------------------------------------------------

    def export(self, user_id: object, fp: IO[str] | None = None) -> builtins.list[str] | None:
        """Write JSONL to ``fp`` (or return the lines)."""
        self._settle()
        lines = transfer.export_lines(self._core, user_id)
        if fp is None:
            return list(lines)
        for line in lines:
            fp.write(line + "\n")
        return None

    def import_(self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None) -> ImportResult:
        """Import JSONL lines written by :meth:`export`; records already present are skipped (idempotent).
        ``progress`` is called with the number of lines done."""
        return cast(ImportResult, transfer.import_lines(self._core, lines, progress=progress))

    def stats(self, *, user_id: object = None) -> StatsResult:
        """Counts (memories, versions, current, episodes, pending, journal, bytes) for one user, or for the
        whole tenant (then also ``users``: each user with memories, for mem0's entities)."""
        self._settle()
        self._indexer.join()  # the byte counts hold the vectors being computed
        partition = self._core.partition(user_id) if user_id is not None else None
        return cast(StatsResult, self._core.store.stats(partition, tenant=self._core.tenant))

    def reindex(self, *, user_id: object = None, progress: Callable[[int], None] | None = None) -> ReindexResult:
        """Rebuild the search indexes from the store: one user's, or every user's of this tenant (which also
        compacts the keyword index). Searches build what they need on their own; this does it up front, after
        a bulk import or when an index file was lost, with ``progress`` called per batch of vectors."""
        partition = self._core.partition(user_id) if user_id is not None else None
        return cast(ReindexResult, self._core.store.reindex(partition, tenant=self._core.tenant, progress=progress))

    def close(self) -> None:
        """Write this Memory's own ``wait=False`` episodes, stop recovering others' and close the store."""
        self._background.close()
        self._indexer.close()
        with contextlib.suppress(Exception):  # a failing model or a read-only store: the marks stay
            index_pending(self._core, limit=CLOSE_INDEX_LIMIT)  # a short-lived process leaves its vectors done
        self._consolidator.join()
        self._core.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ``import`` is a keyword; the SDK method is reachable under its natural name too.
setattr(Memory, "import", Memory.import_)
