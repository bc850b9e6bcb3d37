"""The hub's import status for the Sources page, read from its bookkeeping file beside the store.

The hub keeps ``<store>.hub.db`` (paths, record keys and counts, never text; see :mod:`memscribe.hub.state`).
The UI opens it read-only and never creates it, so a page view cannot take a lock an import is waiting on.
The source names come from the ``memscribe.hub_sources`` entry points, without loading the readers.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

__all__ = ["hub_path", "known_sources", "read_status"]


def hub_path(store: Path) -> Path:
    """Where ``memscribe hub`` keeps its bookkeeping for the store at ``store``."""
    return store.with_name(f"{store.stem}.hub{store.suffix or '.db'}")


def known_sources() -> list[str]:
    return sorted({ep.name for ep in entry_points(group="memscribe.hub_sources")})


def read_status(path: Path) -> dict[str, dict[str, Any]]:
    """Per source: files, sessions, turns, episodes, last import and files in error; {} before any import."""
    if not path.exists():
        return {}
    out: dict[str, dict[str, Any]] = {}
    uri = f"{path.resolve().as_uri()}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True, timeout=5.0)) as conn:
        try:
            files = conn.execute("SELECT source, count(*), max(imported_at) FROM files GROUP BY source").fetchall()
            sessions = conn.execute(
                "SELECT source, count(*), sum(turns), sum(episodes) FROM sessions GROUP BY source"
            ).fetchall()
            errors = conn.execute(
                "SELECT source, path, error FROM files WHERE error IS NOT NULL ORDER BY source, path LIMIT 500"
            ).fetchall()
        except sqlite3.DatabaseError:
            return {}  # not a hub file (or from a newer hub): nothing to show rather than a broken page
    for source, count, last in files:
        out[source] = {"files": count, "sessions": 0, "turns": 0, "episodes": 0, "last_import": last, "errors": []}
    for source, count, turns, episodes in sessions:
        entry = out.setdefault(source, {"files": 0, "last_import": None, "errors": []})
        entry.update(sessions=count, turns=turns or 0, episodes=episodes or 0)
    for source, file, error in errors:
        out.setdefault(
            source, {"files": 0, "sessions": 0, "turns": 0, "episodes": 0, "last_import": None, "errors": []}
        )["errors"].append({"path": file, "error": error})
    return out
