"""Writers under test behind one small seam, :class:`Subject`: memscribe's own writers (``raw``, ``lite``,
``pro``, ``hybrid``, the ``mem0-protocol`` and ``hy-protocol`` adapters) over a fresh memscribe store, and
peer systems over a subprocess (``memscribe.bench.writers.peers``). The embedder, clock, data and
retrieval protocols are the benchmark's; only the writer differs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from memscribe.bench.harness import close_quietly, result_rows, store_bytes
from memscribe.bench.writers.metering import MeteredChat
from memscribe.providers.chat import ChatModel
from memscribe.providers.ports import Embedder

__all__ = ["MemscribeSubject", "Subject", "SubjectFactory", "memscribe_subject"]

Row = Mapping[str, Any]


class Subject(Protocol):
    """One writer's memory for one data set.

    ``add`` answers memscribe-shaped ``{"results": [{"id", "memory", "event", "previous_memory"?}]}``;
    ``search`` is the system's own hybrid search; ``current`` lists every current memory (``memory``,
    optional ``layer``, ``slot``, ``provenance``); ``cost`` counts model calls and tokens so far."""

    name: str

    def add(self, messages: Sequence[Mapping[str, str]], *, user_id: str, when: datetime) -> Mapping[str, Any]: ...

    def search(self, query: str, *, user_id: str, limit: int) -> list[Row]: ...

    def current(self, user_id: str) -> list[Row]: ...

    def cost(self) -> dict[str, int]: ...

    def store_bytes(self) -> int: ...

    def close(self) -> None: ...


SubjectFactory = Callable[[str, Path], Subject]
"""``make(writer_name, directory)``: a fresh subject storing its files under ``directory``."""


class MemscribeSubject:
    """A memscribe ``Memory`` written by one writer, its clock moved to each chunk's time."""

    def __init__(self, name: str, path: Path, writer: Any, embedder: Embedder, chat: MeteredChat | None) -> None:
        from memscribe import Memory
        from memscribe.core.clock import FrozenClock

        self.name = name
        self.path = path
        self.chat = chat
        self.clock = FrozenClock()
        self.memory = Memory(path / "store.db", writer=writer, embedder=embedder, clock=self.clock)
        self._closed = False

    def add(self, messages: Sequence[Mapping[str, str]], *, user_id: str, when: datetime) -> Mapping[str, Any]:
        self.clock.set(when)
        return self.memory.add([dict(m) for m in messages], user_id=user_id, timestamp=when, source="bench")

    def search(self, query: str, *, user_id: str, limit: int) -> list[Row]:
        return result_rows(self.memory.search(query, user_id=user_id, limit=limit))

    def current(self, user_id: str) -> list[Row]:
        rows: list[Row] = []
        while True:
            page = result_rows(self.memory.list(user_id=user_id, limit=500, offset=len(rows)))
            rows += page
            if len(page) < 500:
                return rows

    def cost(self) -> dict[str, int]:
        return self.chat.count.as_dict() if self.chat is not None else {"calls": 0, "tokens_in": 0, "tokens_out": 0,
                                                                         "failed": 0}  # fmt: skip

    def store_bytes(self) -> int:
        """The store's size on disk, measured after closing it (WAL checkpointed): the subject's last call."""
        self.close()
        return store_bytes(self.path)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            close_quietly(self.memory)


MEMSCRIBE_WRITERS = ("raw", "lite", "pro", "pro-compact", "hybrid", "mem0-protocol", "hy-protocol")


def memscribe_subject(
    embedder: Embedder, chat_factory: Callable[[], ChatModel] | None
) -> Callable[[str, Path], MemscribeSubject]:
    """A factory of memscribe subjects; writers that need a model get a fresh metered one each."""

    def make(name: str, path: Path) -> MemscribeSubject:
        from memscribe.engine.writers import make_writer
        from memscribe.errors import ConfigError

        if name in ("raw", "lite"):
            return MemscribeSubject(name, path, make_writer(name), embedder, None)
        if name not in MEMSCRIBE_WRITERS:
            raise ConfigError(f"unknown writer {name!r}; known: {', '.join(MEMSCRIBE_WRITERS)}")
        if chat_factory is None:
            raise ConfigError(f"writer {name!r} needs a model: pass --llm (or --fake-model)")
        from memscribe.write.llm import make_llm_writer

        chat = MeteredChat(chat_factory())
        compact = name == "pro-compact"  # the pro writer with its short prompt, for small local models
        writer = make_llm_writer("pro", chat, prompt="compact") if compact else make_llm_writer(name, chat)
        return MemscribeSubject(name, path, writer, embedder, chat)

    return make
