"""``Hub``: discover every source's history, read what changed, and add the new turns to one Memory.

Each discovered item (a file, a task folder, a database) has a cursor in :class:`HubState`; an item whose
signature did not change is not read again. A changed file is read whole (so the active branch, streamed
duplicates and rewinds are judged on the complete session); a changed database of an
:class:`IncrementalSource` only past the mark its last complete read left. Only turns whose keys the hub has
not imported become episodes. Running it twice adds nothing; a run killed half way is finished by the next.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.errors import ConfigError, UserError, WriterError
from memscribe.hub.episodes import EpisodeDraft, group_turns, messages_of, session_scope
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile
from memscribe.hub.places import project_of
from memscribe.hub.ports import HubSource, IncrementalSource, available_sources, load_source
from memscribe.hub.report import ImportReport, SourceReport
from memscribe.hub.state import HubState, signature

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory

__all__ = ["Hub"]


@dataclass
class _Item:
    source: HubSource
    item: SourceFile
    report: SourceReport
    dry_run: bool
    refused: bool = False  # an episode the engine refused: its turns stay planned for the next run


class Hub:
    """Imports the histories of AI tools into ``memory`` for one person (``user``).

    ``defer`` stores episodes without waiting for the writer (they are written in the background, or on the
    next start of the engine); the default writes each episode's memories as it is imported.
    ``count_secrets`` fills the redaction report (the engine redacts either way).
    """

    def __init__(
        self,
        memory: Memory,
        state_path: Path,
        env: HubEnv,
        *,
        user: str,
        defer: bool = False,
        count_secrets: bool = True,
    ) -> None:
        if not user:
            raise ConfigError("the hub needs the person's user id")
        self.memory, self.env, self.user, self.defer = memory, env, user, defer
        self.count_secrets = count_secrets
        self.state = HubState(state_path)

    def close(self) -> None:
        self.state.close()

    # -- what exists ---------------------------------------------------------------------------------

    def sources(self, names: Sequence[str] | None = None) -> list[HubSource]:
        return [load_source(n) for n in (names or available_sources())]

    def scan(self, names: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        """Per source: the items found and how many changed since the last import (nothing is read)."""
        out = {}
        for source in self.sources(names):
            items = list(source.discover(self.env))
            changed = [i for i in items if self._changed(source.name, i)]
            out[source.name] = {
                "title": source.title,
                "items": len(items),
                "changed": len(changed),
                "paths": [str(i.path) for i in items],
            }
        return out

    def status(self) -> dict[str, dict[str, Any]]:
        return self.state.status()

    def _changed(self, source: str, item: SourceFile) -> bool:
        sig, _ = signature(item.watched())
        cursor = self.state.cursor(source, item.path)
        return cursor is None or cursor.signature != sig or cursor.partial

    # -- import --------------------------------------------------------------------------------------

    def pending(self, names: Sequence[str] | None = None) -> tuple[list[tuple[HubSource, SourceFile]], ImportReport]:
        """What an import would read: every changed item of the named sources (default: all), and the report
        it starts (items found per source)."""
        report = ImportReport()
        work = []
        for source in self.sources(names):
            entry = report.source(source.name)
            for item in source.discover(self.env):
                entry.items += 1
                if self._changed(source.name, item):
                    work.append((source, item))
        return work, report

    def import_(
        self,
        names: Sequence[str] | None = None,
        *,
        dry_run: bool = False,
        progress: Callable[[int], None] | None = None,
        pending: tuple[list[tuple[HubSource, SourceFile]], ImportReport] | None = None,
    ) -> ImportReport:
        """Import what changed in the named sources (default: all). ``dry_run`` reads and counts only;
        ``progress`` is called with 1 after each item."""
        work, report = pending if pending is not None else self.pending(names)
        report.dry_run = dry_run
        for source, item in work:
            self._import_item(_Item(source, item, report.source(source.name), dry_run))
            if progress is not None:
                progress(1)
        return report

    def _import_item(self, job: _Item) -> None:
        _, cursor = signature(job.item.watched())  # taken before reading: a write during the read shows next time
        job.report.changed += 1
        incremental = job.source if isinstance(job.source, IncrementalSource) else None
        since = None if incremental is None else self.state.resume(job.source.name, job.item.path, cursor.inode)
        try:
            if incremental is not None and since is not None:
                result = incremental.read_since(job.item, since)
            else:
                result = job.source.read(job.item)
        except (OSError, ValueError, ConfigError, sqlite3.Error) as exc:
            self._fail(job, cursor, f"{type(exc).__name__}: {exc}")
            return
        job.report.absorb(result)
        problem = _zero_turns(job.item, result) if since is None or not since.mark else None
        if problem:
            self._fail(job, cursor, problem)
            return
        for session in result.sessions:
            self._import_session(job, session)
        cursor.partial = result.partial_tail
        cursor.offset = result.consumed
        if not job.dry_run:  # a database read that left turns planned is read from its old mark again
            complete = not job.refused
            self.state.save_cursor(
                job.source.name,
                job.item.path,
                cursor,
                None,
                mark=result.mark if complete else None,
                digests=result.digests if complete else None,
            )

    def _fail(self, job: _Item, cursor: Any, error: str) -> None:
        job.report.errors.append({"path": str(job.item.path), "error": error})
        if not job.dry_run:
            self.state.save_cursor(job.source.name, job.item.path, cursor, error)

    def _import_session(self, job: _Item, session: Session) -> None:
        if not session.turns:
            return
        name = job.source.name
        scope_session = session_scope(name, session)
        known = self.state.known(name, scope_session)
        fresh = [t for t in session.turns if t.key not in known]
        replans: dict[str, list[Any]] = {}
        for turn in session.turns:  # planned by a run that was killed: rebuild those episodes exactly
            entry = known.get(turn.key)
            if entry and not entry[1]:
                replans.setdefault(entry[0], []).append(turn)
        groups = [EpisodeDraft(k, v) for k, v in replans.items()] + group_turns(name, session.id, fresh)
        if not groups:
            return
        job.report.sessions += 1
        job.report.turns += sum(len(g.turns) for g in groups)
        job.report.episodes += len(groups)
        if job.dry_run:
            return
        self.state.plan(
            name, scope_session, [(g.key, [t.key for t in g.turns]) for g in groups if g.key not in replans]
        )
        project = project_of(session.cwd)
        added = [g.key for g in groups if self._add(job, session, group=g, scope=scope_session, project=project)]
        self.state.finish(name, scope_session, added, path=str(job.item.path), project=project)

    def _add(self, job: _Item, session: Session, *, group: EpisodeDraft, scope: str, project: str | None) -> bool:
        """Add one episode; False (the turns stay planned, retried next run) when the engine refused it."""
        messages, secrets = messages_of(group.turns, count_secrets=self.count_secrets)
        for key, where, count in secrets:
            job.report.redactions.append(
                {"path": str(job.item.path), "session": session.id, "turn": key, "field": where, "count": count}
            )
        if not messages:
            return True
        when = next((t.timestamp for t in group.turns if t.timestamp), None) or session.started or _mtime(job.item)
        meta: dict[str, Any] = {
            "tool": session.tool or job.source.name,
            "session": session.id,
            "file": str(job.item.path),
            "turns": len(group.turns),
        }
        if session.cwd:
            meta["cwd"] = session.cwd
        if session.title:
            meta["title"] = session.title[:200]
        if session.sidechain:
            meta.update(sidechain=True, parent_session=session.parent)
        meta.update(session.meta)
        try:
            self.memory.add(
                messages,
                user_id=self.user,
                session_id=scope,
                project=project,
                timestamp=when,
                source=(session.tool or job.source.name)[:64],
                metadata={"hub": meta},
                idempotency_key=group.key,
                wait=not self.defer,
            )
        except WriterError:
            return True  # stored, and pending: the engine writes it on its next pass
        except UserError as exc:
            job.report.errors.append({"path": str(job.item.path), "error": f"session {session.id}: {exc}"})
            job.refused = True
            return False
        return True

    # -- watch ---------------------------------------------------------------------------------------

    def watch(
        self,
        names: Sequence[str] | None = None,
        *,
        interval: float = 5.0,
        stop: threading.Event,
        on_pass: Callable[[ImportReport], None] | None = None,
    ) -> int:
        """Import, then poll every ``interval`` seconds until ``stop`` is set. Returns the passes made."""
        passes = 0
        while not stop.is_set():
            report = self.import_(names)
            passes += 1
            if on_pass is not None:
                on_pass(report)
            stop.wait(max(interval, 0.05))
        return passes


def _zero_turns(item: SourceFile, result: ReadResult) -> str | None:
    """The loud failure for a file the parser no longer understands (records seen, nothing recognised)."""
    unknown = sum(result.skipped.values())
    if result.turns or result.boilerplate or result.withheld or not (unknown or result.malformed):
        return None
    if result.partial_tail and not unknown and result.malformed == 0:
        return None
    seen = ", ".join(f"{k}×{v}" for k, v in sorted(result.record_types.items())) or "none"
    return (
        f"{item.path}: {result.records} records but no turns recognised (record types seen: {seen}; "
        f"{result.malformed} malformed lines)"
    )


def _mtime(item: SourceFile) -> datetime:
    try:
        return datetime.fromtimestamp(item.path.stat().st_mtime, tz=UTC)
    except OSError:
        return datetime.now(UTC)
