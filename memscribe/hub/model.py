"""What every hub source produces: files to watch, sessions, and the turns inside them.

A source reads a tool's own on-disk history and yields :class:`Session` objects whose :class:`Turn` list is
already cleaned: the active branch only, streamed duplicates merged, injected context dropped. The hub
turns those into engine episodes; sources never touch the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["HubEnv", "ReadResult", "Resume", "Session", "SourceFile", "ToolUse", "Turn"]

ROLES = ("user", "assistant", "tool", "system")


@dataclass(frozen=True)
class ToolUse:
    """One tool call as the assistant made it."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Turn:
    """One message of a session.

    ``key`` is stable across re-reads of the same file (a record uuid, a message id, or a line number in an
    append-only file): the hub imports each key once. Tool results are turns with role ``tool``, the tool's
    name and the id of the call they answer.
    """

    key: str
    role: str
    text: str
    timestamp: datetime | None = None
    tool_calls: tuple[ToolUse, ...] = ()
    tool_name: str | None = None
    tool_call_id: str | None = None
    is_error: bool = False

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"turn role must be one of {ROLES}, got {self.role!r}")


@dataclass
class Session:
    """One conversation (or one sub-agent run, with ``sidechain`` set and its parent's id)."""

    id: str
    turns: list[Turn] = field(default_factory=list)
    cwd: str | None = None
    title: str | None = None
    started: datetime | None = None
    sidechain: bool = False
    parent: str | None = None
    tool: str | None = None  # the product when one source serves several (roo-code under cline)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceFile:
    """One unit the hub keeps a cursor for: a JSONL/JSON/Markdown file, a task folder or a SQLite database.

    ``watch`` lists the paths whose size and mtime tell whether it changed (a database and its -wal file).
    """

    source: str
    path: Path
    kind: str = "file"
    watch: tuple[Path, ...] = ()

    def watched(self) -> tuple[Path, ...]:
        return self.watch or (self.path,)


@dataclass
class ReadResult:
    """What one read of a :class:`SourceFile` found.

    ``records`` counts every record read; ``skipped`` counts unknown or ignored record types by name, and
    ``boilerplate`` the injected-context turns dropped. A non-empty file with zero turns is an error the
    hub reports with ``record_types``.
    """

    sessions: list[Session] = field(default_factory=list)
    records: int = 0
    record_types: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    boilerplate: int = 0
    malformed: int = 0
    withheld: int = 0  # sessions left out on purpose (deleted in the tool)
    partial_tail: bool = False
    consumed: int | None = None  # bytes up to the end of the last complete line, for line-based files
    mark: dict[str, Any] | None = None  # where a database read stopped (row ids, times): the next read starts there
    digests: dict[str, str] = field(default_factory=dict)  # key → content digest of rows read, new or changed

    def saw(self, record_type: str) -> None:
        self.records += 1
        self.record_types[record_type] += 1

    def skip(self, record_type: str) -> None:
        self.skipped[record_type] += 1

    @property
    def turns(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


@dataclass(frozen=True)
class Resume:
    """Where the last complete read of a database stopped, for :meth:`IncrementalSource.read_since`.

    ``mark`` is what that read returned as :attr:`ReadResult.mark` (empty the first time, or when the
    database was replaced); ``digests`` holds the content digest of every key-value row read so far, so a
    row a tool rewrote in place is read again and an unchanged one is not."""

    mark: Mapping[str, Any] = field(default_factory=dict)
    digests: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HubEnv:
    """Where to look: the home directory and the environment (the library never reads ``os.environ``).

    ``paths`` overrides a source's data roots by source name (``--path`` on the command line, fixtures in
    tests); ``project_roots`` are searched for files that live inside projects (Aider's chat history).
    """

    home: Path
    environ: Mapping[str, str] = field(default_factory=dict)
    paths: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)
    project_roots: tuple[Path, ...] = ()

    def roots(self, source: str, env_vars: tuple[str, ...], defaults: tuple[str, ...]) -> tuple[Path, ...]:
        """The explicit paths for ``source``, else the first set env var, else the defaults under home."""
        if source in self.paths:
            return tuple(self.paths[source])
        for name in env_vars:
            value = self.environ.get(name, "").strip()
            if value:
                return (Path(value).expanduser(),)
        return tuple(self.home / d for d in defaults)
