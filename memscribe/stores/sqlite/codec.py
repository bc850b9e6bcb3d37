"""Rows ↔ records. Times are stored as fixed-width UTC strings so that string order is time order."""

from __future__ import annotations

import sqlite3
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
    "t",
    "untime",
]


def t(when: datetime | None) -> str | None:
    # isoformat pads the year to four digits (strftime's %Y does not), keeping every value the same width.
    return when.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z" if when else None


def untime(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC) if text else None


def memory_params(r: MemoryRecord) -> tuple[Any, ...]:
    return rows.memory_params(r, t)


def memory_row(row: sqlite3.Row | tuple[Any, ...]) -> MemoryRecord:
    return rows.memory_from_row(row, untime)


def episode_params(e: Episode) -> tuple[Any, ...]:
    return rows.episode_params(e, t)


def episode_row(row: sqlite3.Row | tuple[Any, ...]) -> Episode:
    return rows.episode_from_row(row, untime)


def journal_params(j: JournalEntry) -> tuple[Any, ...]:
    return rows.journal_params(j, t)


def journal_row(row: sqlite3.Row | tuple[Any, ...]) -> JournalEntry:
    return rows.journal_from_row(row, untime)
