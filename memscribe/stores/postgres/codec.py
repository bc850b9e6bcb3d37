"""Rows ↔ records for PostgresStore. Times are ``timestamptz`` (microseconds, UTC); lists and metadata are JSON
text, as the SQLite store keeps them, so a migration between the two copies values unchanged."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memscribe.core.records import Episode, JournalEntry, MemoryRecord
from memscribe.stores import rows
from memscribe.stores.rows import EPISODE_COLUMNS, JOURNAL_COLUMNS, MEMORY_COLUMNS

__all__ = [
    "EPISODE_COLUMNS",
    "JOURNAL_COLUMNS",
    "MEMORY_COLUMNS",
    "episode_params",
    "episode_row",
    "journal_params",
    "journal_row",
    "memory_params",
    "memory_row",
    "placeholders",
    "utc",
]

def placeholders(columns: str) -> str:
    """``%s, %s, ...``, one per column of ``columns``."""
    return ", ".join(["%s"] * len(columns.split(",")))


def utc(when: datetime | None) -> datetime | None:
    return when.astimezone(UTC) if when is not None else None


def memory_params(r: MemoryRecord) -> tuple[Any, ...]:
    return rows.memory_params(r, utc)


def memory_row(row: tuple[Any, ...]) -> MemoryRecord:
    return rows.memory_from_row(row, utc)


def episode_params(e: Episode) -> tuple[Any, ...]:
    return rows.episode_params(e, utc)


def episode_row(row: tuple[Any, ...]) -> Episode:
    return rows.episode_from_row(row, utc)


def journal_params(j: JournalEntry) -> tuple[Any, ...]:
    return rows.journal_params(j, utc)


def journal_row(row: tuple[Any, ...]) -> JournalEntry:
    return rows.journal_from_row(row, utc)
