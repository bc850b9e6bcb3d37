"""The shapes the SDK returns, as TypedDicts: :class:`~memscribe.Memory`, :class:`~memscribe.AsyncMemory`
and both HTTP clients return exactly these (tests/test_types.py checks the signatures line up).

They are plain dicts at run time, so ``result["results"][0]["memory"]`` works as in mem0; a type checker
sees the keys. Fields mem0 users know keep mem0's names (``id``, ``memory``, ``score``, ``event``,
``created_at``, ``updated_at``, ``old_memory``/``new_memory``).
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

__all__ = [
    "AddResult",
    "ConsolidateResult",
    "EpisodeEntry",
    "ForgetResult",
    "HistoryEntry",
    "ImportResult",
    "ListResult",
    "MemoryItem",
    "MessageOutcome",
    "OpResult",
    "OperationEntry",
    "PendingEntry",
    "PurgeResult",
    "ReindexResult",
    "RejectedOp",
    "ReplayResult",
    "RetryResult",
    "Scores",
    "SearchHit",
    "SearchResult",
    "StatsResult",
    "WhyResult",
]


class MemoryItem(TypedDict):
    """One version of one memory: mem0's fields plus scope, versions and provenance."""

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
    status: str  # active | superseded | deleted | expired
    version: int
    version_id: str
    valid_from: str  # world time: when it became true (ISO 8601)
    valid_to: str | None
    created_at: str  # system time: when this version was recorded
    updated_at: str
    retired_at: str | None
    supersedes: str | None
    superseded_by: str | None
    provenance: dict[str, Any]
    source: str | None
    writer: str
    confidence: float
    metadata: dict[str, Any]


class Scores(TypedDict):
    vector: float | None  # cosine similarity, when the memory was among the vector candidates
    keyword: float | None  # BM25, when it matched the query's words


class SearchHit(MemoryItem):
    score: float  # relevance in [0, 1], comparable across queries
    rank_score: float  # the reciprocal-rank-fusion value the order comes from
    scores: Scores
    history: NotRequired[list[MemoryItem]]


class SearchResult(TypedDict):
    results: list[SearchHit]


class ListResult(TypedDict):
    results: list[MemoryItem]
    limit: NotRequired[int]  # the HTTP clients add the page fields
    offset: NotRequired[int]
    next_offset: NotRequired[int | None]


class OpResult(TypedDict):
    """One operation applied: what changed, to which memory, and the writer's reason."""

    id: str
    memory: str
    event: str  # ADD | UPDATE | SUPERSEDE | DELETE | NOOP
    reason: NotRequired[str]
    messages: NotRequired[list[int]]  # indices of the messages it came from
    previous_memory: NotRequired[str]
    supersedes: NotRequired[str]


class MessageOutcome(TypedDict):
    """What happened to one input message, and why."""

    index: int
    role: str
    outcome: str  # stored | merged | updated | superseded | deleted | rejected | skipped
    reason: str
    memory_ids: list[str]


class RejectedOp(TypedDict):
    event: str
    reason: str


class AddResult(TypedDict):
    results: list[OpResult]
    messages: NotRequired[list[MessageOutcome]]
    rejected: NotRequired[list[RejectedOp]]  # operations the engine or the writer refused, with the reason
    episode_id: NotRequired[str | None]
    status: NotRequired[str]  # done | pending
    duplicate: NotRequired[bool]
    message: NotRequired[str]


class PendingEntry(TypedDict):
    """An episode stored but not yet written."""

    episode_id: str
    user_id: str
    status: str
    writer: str | None
    model: str | None
    attempts: int
    error: str | None
    retry_at: str | None
    given_up: bool


class RetryResult(TypedDict):
    reset: int
    written: int
    writer: str | None


class HistoryEntry(MemoryItem):
    """A memory version in mem0's history shape too."""

    memory_id: str
    event: str  # ADD | UPDATE | DELETE
    old_memory: str | None
    new_memory: str | None
    is_deleted: bool


class OperationEntry(TypedDict):
    id: str
    kind: str
    memory_id: str | None
    version_id: str | None
    episode_id: str | None
    reason: str
    candidates: list[str]
    writer: str
    accepted: bool
    created_at: str
    model: str | None
    prompt_version: str | None
    tokens_in: int
    tokens_out: int
    latency_ms: float


class EpisodeEntry(TypedDict):
    id: str
    timestamp: str
    source: str
    messages: list[dict[str, Any]]


class WhyResult(TypedDict):
    memory: MemoryItem
    versions: list[MemoryItem]
    operations: list[OperationEntry]
    episodes: list[EpisodeEntry]


class ForgetResult(TypedDict):
    results: list[OpResult]


class PurgeResult(TypedDict):
    user_id: str
    memories: int
    episodes: int
    journal: int
    files_checked: list[str] | int  # the HTTP server reports counts, not its file paths
    leftovers: list[str] | int
    verified: bool


class ReplayResult(TypedDict):
    writer: str
    episodes: int
    retracted: int
    events: dict[str, int]


class ConsolidateResult(TypedDict, total=False):
    results: list[OpResult]
    messages: list[MessageOutcome]
    episode_id: str | None
    status: str


class StatsResult(TypedDict, total=False):
    memories: int
    versions: int
    current: int
    episodes: int
    pending_episodes: int
    journal: int
    bytes: int
    path: str
    users: list[dict[str, Any]]


class ImportResult(TypedDict):
    episodes: int
    memories: int
    journal: int
    skipped: int


class ReindexResult(TypedDict, total=False):
    partitions: int
    vectors: int
    keyword_index: str
