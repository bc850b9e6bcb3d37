"""Shared helpers for the scenes tests: episodes, a Memory wired with the SceneWriter, and applying
consolidation operations the way the engine is meant to (one system episode, one transaction)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memscribe import Memory
from memscribe.core.clock import FrozenClock
from memscribe.core.ids import new_id
from memscribe.core.messages import build_episode, parse_messages
from memscribe.core.records import Episode, Layer, MemoryRecord, Operation, Owner, Scope, Status
from memscribe.engine import writing
from memscribe.engine.candidates import EmbeddingCache
from memscribe.providers.chat import ChatModel
from memscribe.scenes import SceneWriter
from memscribe.stores.memory import InMemoryStore
from memscribe.write.lite import LiteWriter

T0 = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


def episode(messages: Sequence[Mapping[str, Any]], *, session: str | None = "s1", **metadata: Any) -> Episode:
    """An episode of ``messages`` for user u1, as the engine would build it."""
    scope = Scope("u1", session_id=session)
    return build_episode(
        parse_messages(list(messages)), scope, timestamp=T0, source="api", metadata=metadata, idempotency_key=None
    )


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def assistant(*calls: dict[str, Any], content: str = "") -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def tool(content: str) -> dict[str, Any]:
    return {"role": "tool", "content": content}


def scene_memory(clock: FrozenClock, chat: ChatModel | None = None) -> Memory:
    return Memory(store=InMemoryStore(), writer=SceneWriter(LiteWriter(), chat), embedder="hash", clock=clock)


@pytest.fixture
def scene_mem(clock: FrozenClock) -> Iterator[Memory]:
    m = scene_memory(clock)
    yield m
    m.close()


def apply_ops(mem: Memory, user_id: str, ops: list[Operation]) -> dict[str, Any]:
    """Commit operations not tied to an input episode (consolidation), as the engine integration would."""
    core = mem._core
    ep = writing.prepare_episode(
        core,
        [{"role": "system", "content": "consolidation"}],
        user_id=user_id,
        source="api",
        metadata={"operation": "consolidate"},
    )
    core.store.put_episode(ep)
    proposal = (ops, EmbeddingCache(core), core.clock.now())
    return writing.commit_ops(core, ep, proposal, require_pending=False, writer="consolidate")


def record(text: str, **fields: Any) -> MemoryRecord:
    """A current memory version built by hand, for the pure functions."""
    base: dict[str, Any] = {
        "id": new_id(),
        "version_id": new_id(),
        "version": 1,
        "scope": Scope("u1"),
        "text": text,
        "subject": "priya",
        "slot": None,
        "value": None,
        "owner": Owner.USER,
        "layer": Layer.FACT,
        "scene": "chat",
        "tags": (),
        "episode_id": "e1",
        "message_indices": (0,),
        "confidence": 0.9,
        "writer": "lite",
        "embedding_model": "hash",
        "source": "api",
        "valid_from": T0 - timedelta(days=30),
        "valid_to": None,
        "recorded_at": T0 - timedelta(days=30),
        "retired_at": None,
        "status": Status.ACTIVE,
    }
    base.update(fields)
    return MemoryRecord(**base)
