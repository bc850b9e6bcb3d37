"""Request and response models: they make the OpenAPI spec say exactly what goes in and comes out.

Output models allow extra fields, so a field the engine adds later passes through instead of vanishing;
input models forbid them, so a misspelt field is a clear 422 instead of a silent default.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, WithJsonSchema

__all__ = [
    "MAX_LIMIT",
    "AddRequest",
    "AddResponse",
    "ErrorBody",
    "ForgetRequest",
    "ForgetResponse",
    "ImportResponse",
    "ListResponse",
    "MemoryOut",
    "MessageIn",
    "OptionalId",
    "PurgeResponse",
    "ScopeId",
    "SearchRequest",
    "SearchResponse",
    "StatsResponse",
    "Timestamp",
    "UpdateRequest",
    "WhyResponse",
]

MAX_LIMIT = 1000
# The spec states the engine's scope rule (core.messages.parse_scope: 1-256 characters, not blank, no NUL)
# but the engine enforces it, so a bad id is the same ScopeError (400 scope_error) as through the SDK.
ScopeId = Annotated[str, WithJsonSchema({"type": "string", "minLength": 1, "maxLength": 256})]
OptionalId = ScopeId | None
MemoryId = Annotated[str, StringConstraints(min_length=1, max_length=256)]


def _storable(value: datetime) -> datetime:
    # The store keeps UTC times as fixed-width text: years 1000-9998 only (9998 leaves room for any offset).
    try:
        utc = value.astimezone(UTC) if value.tzinfo else value
    except OverflowError:
        raise ValueError("time out of range") from None
    if not 1000 <= utc.year <= 9998:
        raise ValueError("time must fall between the years 1000 and 9998")
    return value


Timestamp = Annotated[datetime, AfterValidator(_storable)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorDetail(_Out):
    code: str = Field(description="Stable error code, e.g. not_found, validation_error, unauthorized.")
    message: str


class ErrorBody(_Out):
    """Every error response."""

    error: ErrorDetail


# -- input -----------------------------------------------------------------------------------------


class MessageIn(BaseModel):
    """One chat message. Unknown keys are ignored, as OpenAI-style messages carry many."""

    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str | None = ""
    name: str | None = Field(default=None, max_length=256)
    timestamp: Timestamp | None = None
    tool_calls: list[dict[str, Any]] | None = None


class AddRequest(_In):
    messages: str | list[MessageIn] = Field(description="A string (one user message) or a list of messages.")
    user_id: ScopeId
    agent_id: OptionalId = None
    session_id: OptionalId = None
    project: OptionalId = None
    timestamp: Timestamp | None = Field(default=None, description="When it was said; default: now.")
    source: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    metadata: dict[str, Any] | None = None
    idempotency_key: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    wait: bool = Field(default=True, description="Write memories before answering; false: only store.")
    infer: bool = Field(default=True, description="false: store the messages as they are (the raw writer).")


class Filters(_In):
    """Narrow results within the user's partition (never across partitions)."""

    agent_id: OptionalId = None
    session_id: OptionalId = None
    project: OptionalId = None
    layers: list[str] | None = None
    scenes: list[str] | None = None
    sources: list[str] | None = None
    owners: list[str] | None = None
    statuses: list[str] | None = None
    after: Timestamp | None = None
    before: Timestamp | None = None


class SearchRequest(_In):
    query: Annotated[str, StringConstraints(min_length=1, max_length=10_000)]
    user_id: ScopeId
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)
    as_of: Timestamp | None = None
    include_history: bool = False
    filters: Filters | None = None
    threshold: float | None = Field(default=None, ge=0.0, le=1.0, description="Drop hits scoring below it.")


class UpdateRequest(_In):
    text: Annotated[str, StringConstraints(min_length=1, max_length=100_000)]
    user_id: OptionalId = None


class ForgetRequest(_In):
    query_or_id: Annotated[str, StringConstraints(min_length=1, max_length=10_000)]
    user_id: OptionalId = None
    limit: int = Field(default=5, ge=1, le=100)


# -- output ----------------------------------------------------------------------------------------


class Provenance(_Out):
    episode_id: str | None
    message_indices: list[int]


class MemoryOut(_Out):
    """One version of one memory (mem0's fields plus versions and provenance)."""

    id: str
    memory: str
    user_id: str
    agent_id: str | None
    session_id: str | None
    project: str | None
    subject: str
    slot: str | None
    value: str | None
    owner: str
    layer: str
    scene: str
    tags: list[str]
    status: str
    version: int
    version_id: str
    valid_from: datetime
    valid_to: datetime | None
    created_at: datetime
    retired_at: datetime | None
    supersedes: str | None
    superseded_by: str | None
    provenance: Provenance
    source: str | None
    writer: str
    confidence: float
    metadata: dict[str, Any]


class Scores(_Out):
    vector: float | None
    keyword: float | None


class SearchHit(MemoryOut):
    score: float
    scores: Scores
    history: list[MemoryOut] | None = None


class SearchResponse(_Out):
    results: list[SearchHit]


class ListResponse(_Out):
    results: list[MemoryOut]
    limit: int
    offset: int
    next_offset: int | None = Field(description="Offset of the next page; null on the last page.")


class OpResult(_Out):
    id: str
    memory: str
    event: str = Field(description="ADD, UPDATE, SUPERSEDE, DELETE or NOOP.")


class AddResponse(_Out):
    results: list[OpResult]
    episode_id: str | None = None
    status: str | None = Field(default=None, description="done, or pending when wait=false.")


class ForgetResponse(_Out):
    results: list[OpResult]


class Operation(_Out):
    id: str
    kind: str
    memory_id: str | None
    version_id: str | None
    episode_id: str | None
    reason: str
    candidates: list[str]
    writer: str
    accepted: bool
    created_at: datetime


class EpisodeMessage(_Out):
    role: str
    name: str | None
    content: str
    timestamp: datetime | None
    tool_calls: list[dict[str, Any]]


class Episode(_Out):
    id: str
    timestamp: datetime
    source: str
    messages: list[EpisodeMessage]


class WhyResponse(_Out):
    memory: MemoryOut
    versions: list[MemoryOut]
    operations: list[Operation]
    episodes: list[Episode]


class PurgeResponse(_Out):
    user_id: str
    memories: int
    episodes: int
    journal: int
    files_checked: int
    leftovers: int
    verified: bool = Field(description="True when no purged text was found left in any file the engine owns.")


class ImportResponse(_Out):
    episodes: int
    memories: int
    journal: int
    skipped: int


class StatsResponse(_Out):
    memories: int
    versions: int = 0
    current: int
    episodes: int
    pending_episodes: int
    journal: int
