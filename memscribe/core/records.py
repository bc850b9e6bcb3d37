"""The domain records: scope, messages, episodes, memories (one row per version) and operations.

All records are frozen dataclasses. Times are timezone-aware UTC datetimes.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "Episode",
    "JournalEntry",
    "Layer",
    "MemoryDraft",
    "MemoryRecord",
    "Message",
    "OpKind",
    "Operation",
    "Owner",
    "Scope",
    "Status",
    "ToolCall",
    "Usage",
]


class OpKind(enum.StrEnum):
    ADD = "ADD"
    UPDATE = "UPDATE"  # refine the same fact: a new version of the same memory
    SUPERSEDE = "SUPERSEDE"  # the world changed: close the old memory, add a new one
    DELETE = "DELETE"  # retract: wrong, or asked to forget
    NOOP = "NOOP"  # already known: confirm


class Status(enum.StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DELETED = "deleted"
    EXPIRED = "expired"


class Owner(enum.StrEnum):
    USER = "user"
    AGENT = "agent"


class Layer(enum.StrEnum):
    PROFILE = "L0"
    EPISODE = "L1"
    FACT = "L2"
    SUMMARY = "L3"
    SCHEMA = "L6"
    INTENTION = "L7"


@dataclass(frozen=True, order=True)
class Scope:
    """The partition every record lives in: tenant › user, with optional agent, session and project."""

    user_id: str
    tenant: str = "default"
    agent_id: str | None = None
    session_id: str | None = None
    project: str | None = None

    @property
    def partition(self) -> tuple[str, str]:
        """The hard partition: no query ever crosses (tenant, user_id)."""
        return (self.tenant, self.user_id)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Message:
    role: str  # user | assistant | system | tool
    content: str
    name: str | None = None
    timestamp: datetime | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class Episode:
    """One raw input as received. Immutable and content-addressed: ``id`` hashes its content and scope."""

    id: str
    scope: Scope
    messages: tuple[Message, ...]
    timestamp: datetime
    source: str
    idempotency_key: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MemoryDraft:
    """What a writer proposes to store; the engine adds ids, times, scope and embedding."""

    text: str
    subject: str = "user"
    slot: str | None = None  # "subject/attribute", e.g. "caroline/residence"
    value: str | None = None
    owner: Owner = Owner.USER
    layer: Layer = Layer.FACT
    scene: str = "chat"
    tags: tuple[str, ...] = ()
    message_indices: tuple[int, ...] = ()
    confidence: float = 1.0
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # The episode whose messages ``message_indices`` count; None: the episode being written. A revision of an
    # older statement keeps the episode it was said in, so its provenance still points at the words.
    episode_id: str | None = None

    def messages_of(self, episode_id: str | None = None) -> tuple[int, ...]:
        """The messages of episode ``episode_id`` (the one being written) this draft cites: none when it
        cites an earlier episode's."""
        return self.message_indices if self.episode_id in (None, episode_id) else ()


@dataclass(frozen=True)
class MemoryRecord:
    """One version of one memory. ``id`` names the memory across its versions; ``version_id`` this row."""

    id: str
    version_id: str
    version: int
    scope: Scope
    text: str
    subject: str
    slot: str | None
    value: str | None
    owner: Owner
    layer: Layer
    scene: str
    tags: tuple[str, ...]
    episode_id: str | None
    message_indices: tuple[int, ...]
    confidence: float
    writer: str
    embedding_model: str | None
    source: str | None
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    retired_at: datetime | None
    status: Status
    supersedes: str | None = None
    superseded_by: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def is_current(self) -> bool:
        return self.retired_at is None

    @property
    def provenance(self) -> dict[str, Any]:
        return {"episode_id": self.episode_id, "message_indices": list(self.message_indices)}


@dataclass(frozen=True)
class Usage:
    """What one decision cost: the model behind it and its tokens and latency."""

    model: str | None = None
    prompt_version: str | None = None
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0


@dataclass(frozen=True)
class Operation:
    """One write decision proposed by a writer."""

    kind: OpKind
    reason: str
    draft: MemoryDraft | None = None  # the new content for ADD / UPDATE / SUPERSEDE
    target: str | None = None  # memory id for UPDATE / SUPERSEDE / DELETE / NOOP
    candidates: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class JournalEntry:
    """One line of the durable journal: an operation as decided (or rejected) and applied."""

    id: str
    episode_id: str | None
    scope: Scope
    kind: OpKind
    memory_id: str | None
    version_id: str | None
    reason: str
    candidates: tuple[str, ...]
    writer: str
    accepted: bool
    created_at: datetime
    usage: Usage = field(default_factory=Usage)
