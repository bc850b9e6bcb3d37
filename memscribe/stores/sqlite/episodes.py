"""The episode log of SQLiteStore: episodes as received, who is to write them, and their retry state."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from memscribe.core.records import Episode
from memscribe.stores.ports import MAX_EPISODE_ATTEMPTS, EpisodeState, Partition
from memscribe.stores.sqlite import codec
from memscribe.stores.sqlite.codec import t, untime
from memscribe.stores.sqlite.db import Database

__all__ = ["MAX_EPISODE_ATTEMPTS", "EpisodeMixin"]

_STATE = "id, status, attempts, error, writer, model, retry_at"


def _state(row: tuple[Any, ...], created: bool = False) -> EpisodeState:
    eid, status, attempts, error, writer, model, retry_at = row
    return EpisodeState(eid, status, created, attempts, error, writer, model, untime(retry_at))


class EpisodeMixin:
    """Episode methods of SQLiteStore; the store provides ``db``, ``_open`` and ``_read``."""

    db: Database
    _open: Callable[[bool], bool]
    _read: Callable[..., Any]

    def put_episode(
        self,
        episode: Episode,
        *,
        writer: str | None = None,
        model: str | None = None,
        held_until: datetime | None = None,
    ) -> EpisodeState:
        self._open(True)
        with self.db.write() as conn:
            s = episode.scope
            row = conn.execute(
                f"SELECT {_STATE} FROM episodes WHERE id = ? OR (tenant = ? AND user_id = ? AND idempotency_key = ?)",
                (episode.id, s.tenant, s.user_id, episode.idempotency_key),
            ).fetchone()
            if row:
                return _state(row)
            marks = ",".join("?" * 15)
            conn.execute(
                f"INSERT INTO episodes ({codec.EPISODE_COLUMNS}, created_at, writer, model, retry_at) VALUES ({marks})",
                (*codec.episode_params(episode), t(episode.timestamp), writer, model, t(held_until)),
            )
        return EpisodeState(episode.id, "pending", True, writer=writer, model=model, retry_at=held_until)

    def get_episode(self, partition: Partition, episode_id: str) -> Episode | None:
        def run(conn: sqlite3.Connection) -> Episode | None:
            row = conn.execute(
                f"SELECT {codec.EPISODE_COLUMNS} FROM episodes WHERE id = ? AND tenant = ? AND user_id = ?",
                (episode_id, *partition),
            ).fetchone()
            return codec.episode_row(row) if row else None

        result: Episode | None = self._read(run, None)
        return result

    def episode_state(self, partition: Partition, episode_id: str) -> EpisodeState | None:
        def run(conn: sqlite3.Connection) -> EpisodeState | None:
            row = conn.execute(
                f"SELECT {_STATE} FROM episodes WHERE id = ? AND tenant = ? AND user_id = ?",
                (episode_id, *partition),
            ).fetchone()
            return _state(row) if row else None

        result: EpisodeState | None = self._read(run, None)
        return result

    def pending_episodes(self, limit: int = 100, *, tenant: str | None = None) -> list[Episode]:
        return [episode for episode, _ in self._pending(tenant, None, None, limit, live_only=True)]

    def pending(
        self, *, tenant: str | None = None, now: datetime | None = None, after: str | None = None, limit: int = 100
    ) -> list[tuple[Episode, EpisodeState]]:
        return self._pending(tenant, now, after, limit, live_only=now is not None)

    def _pending(
        self, tenant: str | None, now: datetime | None, after: str | None, limit: int, *, live_only: bool
    ) -> list[tuple[Episode, EpisodeState]]:
        cols = ", ".join(f"e.{c.strip()}" for c in codec.EPISODE_COLUMNS.split(","))
        state = ", ".join(f"e.{c.strip()}" for c in _STATE.split(","))
        sql = (
            f"SELECT {cols}, {state} FROM episodes e WHERE e.status != 'done' "
            "AND (?1 IS NULL OR e.tenant = ?1) AND (?2 = 0 OR e.attempts < ?3) "
            "AND (?4 IS NULL OR e.retry_at IS NULL OR e.retry_at <= ?4) "
            "AND (?5 IS NULL OR e.rowid > (SELECT rowid FROM episodes WHERE id = ?5)) ORDER BY e.rowid LIMIT ?6"
        )
        width = len(codec.EPISODE_COLUMNS.split(","))

        def run(conn: sqlite3.Connection) -> list[tuple[Episode, EpisodeState]]:
            rows = conn.execute(sql, (tenant, int(live_only), MAX_EPISODE_ATTEMPTS, t(now), after, limit))
            return [(codec.episode_row(r[:width]), _state(r[width:])) for r in rows]

        result: list[tuple[Episode, EpisodeState]] = self._read(run, [])
        return result

    def fail_episode(self, episode_id: str, error: str, *, retry_at: datetime | None = None) -> None:
        self._open(True)
        with self.db.write() as conn:
            conn.execute(
                "UPDATE episodes SET status = 'failed', attempts = attempts + 1, error = ?, retry_at = ? "
                "WHERE id = ? AND status != 'done'",
                (error[:2000], t(retry_at), episode_id),
            )

    def retry_episodes(
        self, tenant: str, *, user_id: str | None = None, writer: str | None = None, model: str | None = None
    ) -> int:
        if not self._open(False):
            return 0
        sets, params = "attempts = 0, retry_at = NULL", [tenant, user_id]
        if writer is not None:
            sets, params = sets + ", writer = ?3, model = ?4", [*params, writer, model]
        with self.db.write() as conn:
            sql = f"UPDATE episodes SET {sets} WHERE status != 'done' AND tenant = ?1 AND (?2 IS NULL OR user_id = ?2)"
            return int(conn.execute(sql, params).rowcount)

    def episodes(self, partition: Partition) -> Iterator[Episode]:
        def run(conn: sqlite3.Connection) -> list[Episode]:
            rows = conn.execute(
                f"SELECT {codec.EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND user_id = ? "
                "ORDER BY timestamp, rowid",
                partition,
            ).fetchall()
            return [codec.episode_row(r) for r in rows]

        yield from self._read(run, [])
