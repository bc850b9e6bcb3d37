"""Pending episodes: stored, acknowledged, not yet written.

An episode is written by the writer (and model) it was submitted with, whichever process picks it up: a
process that cannot build that writer leaves it for one that can, and switching writer is an explicit
:meth:`Memory.retry_pending` with ``writer=``. A failure is recorded on the episode and retried after an
exponential backoff, at most ``MAX_EPISODE_ATTEMPTS`` times; every pending episode is reachable (the scan
pages through them all, not a first batch).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from memscribe.core.records import Episode
from memscribe.engine.core import Core
from memscribe.errors import MemscribeError
from memscribe.providers.chat import ChatModel
from memscribe.stores.ports import EpisodeState
from memscribe.write.ports import Writer

__all__ = [
    "BACKOFF_CAP_SECONDS",
    "BACKOFF_SECONDS",
    "WRITE_LEASE_SECONDS",
    "Due",
    "PendingRunner",
    "pending_rows",
    "retry_at",
    "submitted_writer",
]

BACKOFF_SECONDS = 2.0  # first retry after a failure; doubles per attempt
BACKOFF_CAP_SECONDS = 900.0
WRITE_LEASE_SECONDS = 30.0  # an add that writes its own episode keeps recovery off it this long
_END_OF_TIME = datetime(9999, 1, 1, tzinfo=UTC)  # "due by then": every episode not given up
Due = tuple[tuple[str, str], str, EpisodeState]  # (partition, episode id, its state when listed)
_LISTED_MAX = 4_096  # episodes kept decoded between listing and writing them


def pending_rows(core: Core, limit: int) -> list[dict[str, Any]]:
    """The tenant's episodes not yet written, as :meth:`Memory.pending` lists them."""
    from memscribe.stores.ports import MAX_EPISODE_ATTEMPTS

    rows: list[dict[str, Any]] = []
    for episode, state in core.store.pending(tenant=core.tenant, limit=limit):
        rows.append({
            "episode_id": episode.id, "user_id": episode.scope.user_id, "status": state.status,
            "writer": state.writer, "model": state.model, "attempts": state.attempts, "error": state.error,
            "retry_at": state.retry_at.isoformat() if state.retry_at else None,
            "given_up": state.attempts >= MAX_EPISODE_ATTEMPTS,
        })  # fmt: skip
    return rows


def retry_at(now: datetime, attempts: int) -> datetime:
    """When an episode that has failed ``attempts`` times (this one included) may be tried again."""
    return now + timedelta(seconds=min(BACKOFF_CAP_SECONDS, BACKOFF_SECONDS * 2 ** max(attempts - 1, 0)))


def submitted_writer(core: Core) -> tuple[str, str | None]:
    """The (writer, model) an episode added through ``core`` is recorded with."""
    from memscribe.engine.writers import LLM_WRITER_NAMES

    name = core.writer.name
    return name, (core.model if name in LLM_WRITER_NAMES else None)


class PendingRunner:
    """Writes pending episodes of one tenant, each with the writer recorded on it."""

    def __init__(
        self,
        core: Core,
        process: Callable[[Core, Episode], Any],
        chat_factory: Callable[[], ChatModel] | None = None,
    ) -> None:
        self.core, self.process, self.chat_factory = core, process, chat_factory
        self._cores: dict[tuple[str, str | None], Core | None] = {submitted_writer(core): core}
        # Episodes decoded while listing them (``due``), kept for the run that writes them so that each is read
        # once, not twice (listing reads whole episodes); bounded, beyond it a run reads an episode again.
        self._listed: dict[str, Episode] = {}

    def core_for(self, state: EpisodeState) -> Core | None:
        """A core whose writer is the episode's; None when this process cannot build it."""
        from memscribe.engine.writers import LLM_WRITER_NAMES, make_writer

        if state.writer is None:  # recorded before writers were: whoever processes it
            return self.core
        key = (state.writer, state.model)
        if key not in self._cores:
            built: Core | None = None
            needs_model = state.writer in LLM_WRITER_NAMES
            if not needs_model or (state.model is not None and state.model == self.core.model):
                try:
                    writer: Writer = make_writer(state.writer, chat_factory=self.chat_factory)
                    built = replace(self.core, writer=writer)
                except MemscribeError:
                    built = None  # an unknown writer or one needing a model this process lacks
            self._cores[key] = built
        return self._cores[key]

    def run(
        self,
        *,
        due_only: bool,
        limit: int | None = None,
        stop: Callable[[], bool] | None = None,
        todo: list[Due] | None = None,
    ) -> int:
        """Write every pending episode this process can (those whose backoff has passed, with ``due_only``);
        each is tried once per run. The run takes the episodes pending when it starts (listed a page at a time;
        the first ``_LISTED_MAX`` are kept as listed, so each is read once, and a larger backlog is covered by
        reading the rest again); later ones wait for the next run. ``todo`` is such a list taken earlier (see
        :meth:`due`). Returns the number written."""
        done, tried = 0, 0
        for partition, episode_id, state in self.due(due_only) if todo is None else todo:
            if (stop is not None and stop()) or (limit is not None and tried >= limit):
                break
            target = self.core_for(state)
            if target is None:
                self._listed.pop(episode_id, None)
                continue
            now = self.core.store.episode_state(partition, episode_id)
            if now is None or now.status == "done":  # written or purged meanwhile
                self._listed.pop(episode_id, None)
                continue
            episode = self._listed.pop(episode_id, None) or self.core.store.get_episode(partition, episode_id)
            if episode is None or episode.scope.partition != partition:
                continue
            tried += 1
            try:
                self.process(target, episode)
            except Exception:  # recorded on the episode, retried after its backoff
                continue
            done += 1
        self._listed.clear()  # nothing decoded outlives the run (a purge may follow)
        return done

    def due(self, due_only: bool) -> list[Due]:
        """The episodes pending now (due now, with ``due_only``), by partition and id, in arrival order."""
        now = self.core.clock.now() if due_only else _END_OF_TIME
        found: list[Due] = []
        after = None
        while batch := self.core.store.pending(tenant=self.core.tenant, now=now, after=after, limit=500):
            found += [(episode.scope.partition, episode.id, state) for episode, state in batch]
            for episode, _ in batch:  # episodes are immutable: the copy read here is the one stored
                if len(self._listed) < _LISTED_MAX:
                    self._listed[episode.id] = episode
            after = batch[-1][0].id
        return found
