"""A small store for the UI tests: a superseded residence, a project's decisions, a memory holding markup,
and a second user. Also runnable: ``python -m tests.ui.fixture_store DB`` builds it at DB."""

from __future__ import annotations

import sys
from pathlib import Path

from memscribe.config import MemoryConfig
from memscribe.engine.memory import Memory

MARKUP = "<script>alert('pwned')</script> & <b>bold</b> in a note"
PROJECT = "/work/orders"


def build(db: Path) -> dict[str, str]:
    """Write the fixture memories into ``db``; their ids by name."""
    memory = Memory(db, config=MemoryConfig(embedder="hash", writer="lite"))
    try:
        ids: dict[str, str] = {}
        first = memory.add(
            [{"role": "user", "content": "I live in Seattle."}],
            user_id="ana",
            timestamp="2024-01-02T10:00:00Z",
            project=PROJECT,
        )
        ids["seattle"] = first["results"][0]["id"]
        moved = memory.add(
            [{"role": "user", "content": "I moved to Sydney last month."}],
            user_id="ana",
            timestamp="2024-06-02T10:00:00Z",
            project=PROJECT,
        )
        ids["sydney"] = moved["results"][-1]["id"]
        for name, text, stamp in (
            ("postgres", "We decided to use PostgreSQL 16 for the orders service.", "2024-03-01T09:00:00Z"),
            ("markup", MARKUP, "2024-03-02T09:00:00Z"),
        ):
            added = memory.add(text, user_id="ana", project=PROJECT, timestamp=stamp, infer=False)
            ids[name] = added["results"][0]["id"]
        memory.add("Bob prefers tabs over spaces.", user_id="bob", infer=False, project="/work/billing")
        return ids
    finally:
        memory.close()


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))
