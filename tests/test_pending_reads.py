"""Writing a backlog of pending episodes reads each episode once: listing them already decodes them."""

from __future__ import annotations

from pathlib import Path

from memscribe import Memory
from memscribe.core.records import Episode
from memscribe.providers.hashing import HashEmbedder
from memscribe.stores.ports import Partition
from memscribe.stores.sqlite import SQLiteStore


class CountingStore(SQLiteStore):
    """The SQLite store, counting single-episode reads."""

    episode_reads = 0

    def get_episode(self, partition: Partition, episode_id: str) -> Episode | None:
        self.episode_reads += 1
        return super().get_episode(partition, episode_id)


def test_process_pending_reads_each_listed_episode_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    left = Memory(path, writer="raw", embedder=HashEmbedder(64))
    left._background.closing = True  # a process gone before its background writer ran: episodes stay pending
    for i in range(6):
        left.add(f"Backlog note {i} about the allotment.", user_id="u", wait=False)
    left._core.store.close()
    store = CountingStore(path)
    with Memory(store=store, writer="raw", embedder=HashEmbedder(64)) as m:
        assert len(m.pending()) == 6
        assert m.process_pending() == 6
        assert store.episode_reads == 0 and m.pending() == []
        assert len(m.search("allotment backlog", user_id="u", limit=10)["results"]) == 6
