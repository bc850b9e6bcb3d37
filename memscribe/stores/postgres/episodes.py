"""The episode log of PostgresStore: episodes as received, who is to write them, and their retry state."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from memscribe.core.records import Episode
from memscribe.errors import StoreError
from memscribe.stores.ports import MAX_EPISODE_ATTEMPTS, EpisodeState, Partition
from memscribe.stores.postgres import codec
from memscribe.stores.postgres.db import ALL

__all__ = ["EpisodeMixin"]

_STATE = "id, status, attempts, error, writer, model, retry_at"
_WIDTH = len(codec.EPISODE_COLUMNS.split(","))


def _state(row: tuple[Any, ...], created: bool = False) -> EpisodeState:
    eid, status, attempts, error, writer, model, retry_at = row
    return EpisodeState(eid, status, created, attempts, error, writer, model, codec.utc(retry_at))


class EpisodeMixin:
    """Episode methods of PostgresStore; the store provides ``run``."""

    run: Callable[..., Any]

    def put_episode(
        self,
        episode: Episode,
        *,
        writer: str | None = None,
        model: str | None = None,
        held_until: datetime | None = None,
    ) -> EpisodeState:
        s = episode.scope
        columns = f"{codec.EPISODE_COLUMNS}, created_at, writer, model, retry_at"
        insert = (
            f"INSERT INTO episodes ({columns}) VALUES ({codec.placeholders(columns)}) ON CONFLICT DO NOTHING "
            "RETURNING id"
        )
        params = (*codec.episode_params(episode), codec.utc(episode.timestamp), writer, model, codec.utc(held_until))

        def work(conn: Any) -> EpisodeState:
            if conn.execute(insert, params).fetchone() is not None:
                return EpisodeState(episode.id, "pending", True, writer=writer, model=model, retry_at=held_until)
            row = conn.execute(
                f"SELECT {_STATE} FROM episodes WHERE id = %s OR (tenant = %s AND user_id = %s "
                "AND idempotency_key = %s) ORDER BY id = %s DESC LIMIT 1",
                (episode.id, s.tenant, s.user_id, episode.idempotency_key, episode.id),
            ).fetchone()
            if row is None:  # the id is taken in a partition this one cannot see
                raise StoreError(f"episode id {episode.id} is taken")
            return _state(row)

        # A retry after a lost connection finds the row the first attempt committed and reports it as known.
        result: EpisodeState = self.run(work, s.partition)
        return result

    def get_episode(self, partition: Partition, episode_id: str) -> Episode | None:
        def work(conn: Any) -> Episode | None:
            row = conn.execute(
                f"SELECT {codec.EPISODE_COLUMNS} FROM episodes WHERE id = %s AND tenant = %s AND user_id = %s",
                (episode_id, *partition),
            ).fetchone()
            return codec.episode_row(row) if row else None

        result: Episode | None = self.run(work, partition)
        return result

    def episode_state(self, partition: Partition, episode_id: str) -> EpisodeState | None:
        def work(conn: Any) -> EpisodeState | None:
            row = conn.execute(
                f"SELECT {_STATE} FROM episodes WHERE id = %s AND tenant = %s AND user_id = %s",
                (episode_id, *partition),
            ).fetchone()
            return _state(row) if row else None

        result: EpisodeState | None = self.run(work, partition)
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
        cols = ", ".join(f"e.{c.strip()}" for c in f"{codec.EPISODE_COLUMNS}, {_STATE}".split(","))
        sql = (
            f"SELECT {cols} FROM episodes e WHERE e.status != 'done' "
            "AND (%(tenant)s::text IS NULL OR e.tenant = %(tenant)s) AND (NOT %(live)s OR e.attempts < %(max)s) "
            "AND (%(now)s::timestamptz IS NULL OR e.retry_at IS NULL OR e.retry_at <= %(now)s) "
            "AND (%(after)s::text IS NULL OR e.seq > (SELECT seq FROM episodes WHERE id = %(after)s)) "
            "ORDER BY e.seq LIMIT %(limit)s"
        )
        args = {"tenant": tenant, "live": live_only, "max": MAX_EPISODE_ATTEMPTS, "now": codec.utc(now),
                "after": after, "limit": limit}  # fmt: skip

        def work(conn: Any) -> list[tuple[Episode, EpisodeState]]:
            return [(codec.episode_row(r[:_WIDTH]), _state(r[_WIDTH:])) for r in conn.execute(sql, args)]

        result: list[tuple[Episode, EpisodeState]] = self.run(work, (tenant or ALL, ALL))
        return result

    def fail_episode(self, episode_id: str, error: str, *, retry_at: datetime | None = None) -> None:
        def work(conn: Any) -> None:
            conn.execute(
                "UPDATE episodes SET status = 'failed', attempts = attempts + 1, error = %s, retry_at = %s "
                "WHERE id = %s AND status != 'done'",
                (error[:2000].replace("\x00", ""), codec.utc(retry_at), episode_id),
            )

        self.run(work, (ALL, ALL))

    def retry_episodes(
        self, tenant: str, *, user_id: str | None = None, writer: str | None = None, model: str | None = None
    ) -> int:
        sets, params = "attempts = 0, retry_at = NULL", []
        if writer is not None:
            sets, params = sets + ", writer = %s, model = %s", [writer, model]
        sql = (
            f"UPDATE episodes SET {sets} WHERE status != 'done' AND tenant = %s "
            "AND (%s::text IS NULL OR user_id = %s)"
        )

        def work(conn: Any) -> int:
            return int(conn.execute(sql, (*params, tenant, user_id, user_id)).rowcount)

        result: int = self.run(work, (tenant, user_id or ALL))
        return result

    def episodes(self, partition: Partition) -> Iterator[Episode]:
        def work(conn: Any) -> list[Episode]:
            rows = conn.execute(
                f"SELECT {codec.EPISODE_COLUMNS} FROM episodes WHERE tenant = %s AND user_id = %s "
                "ORDER BY timestamp, seq",
                partition,
            ).fetchall()
            return [codec.episode_row(r) for r in rows]

        yield from self.run(work, partition)
