"""What an import did, per source: items, sessions, turns, episodes, skipped records, errors, redactions.

The redaction report names the file, session, turn and field where secrets were found and how many; it
never holds the secret or the text around it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memscribe.hub.model import ReadResult

__all__ = ["ImportReport", "SourceReport"]


@dataclass
class SourceReport:
    items: int = 0
    changed: int = 0
    records: int = 0
    sessions: int = 0
    turns: int = 0
    episodes: int = 0
    boilerplate: int = 0
    malformed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    errors: list[dict[str, str]] = field(default_factory=list)
    redactions: list[dict[str, Any]] = field(default_factory=list)

    def absorb(self, result: ReadResult) -> None:
        self.records += result.records
        self.boilerplate += result.boilerplate
        self.malformed += result.malformed
        self.skipped.update(result.skipped)

    def as_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "changed": self.changed,
            "records": self.records,
            "sessions": self.sessions,
            "turns": self.turns,
            "episodes": self.episodes,
            "boilerplate": self.boilerplate,
            "malformed": self.malformed,
            "skipped": dict(sorted(self.skipped.items())),
            "errors": self.errors,
            "secrets_redacted": sum(r["count"] for r in self.redactions),
        }


@dataclass
class ImportReport:
    dry_run: bool = False
    sources: dict[str, SourceReport] = field(default_factory=dict)

    def source(self, name: str) -> SourceReport:
        return self.sources.setdefault(name, SourceReport())

    @property
    def turns(self) -> int:
        return sum(s.turns for s in self.sources.values())

    @property
    def episodes(self) -> int:
        return sum(s.episodes for s in self.sources.values())

    @property
    def errors(self) -> list[dict[str, str]]:
        return [e for s in self.sources.values() for e in s.errors]

    def redactions(self) -> list[dict[str, Any]]:
        return [{"source": n, **r} for n, s in self.sources.items() for r in s.redactions]

    def as_dict(self, *, with_redactions: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dry_run": self.dry_run,
            "turns": self.turns,
            "episodes": self.episodes,
            "sources": {n: s.as_dict() for n, s in sorted(self.sources.items())},
        }
        if with_redactions:
            out["redactions"] = self.redactions()
        return out
