"""AsyncMemory mirrors Memory method for method and gives the same results."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

from memscribe import AsyncMemory, Memory
from memscribe.core.clock import FrozenClock

PUBLIC = [n for n, v in vars(Memory).items() if not n.startswith("_") and callable(v)]


def test_same_public_methods() -> None:
    amethods = {n for n, v in vars(AsyncMemory).items() if not n.startswith("_") and callable(v)}
    assert set(PUBLIC) == amethods
    for name in PUBLIC:
        if name == "import":
            continue
        assert inspect.iscoroutinefunction(getattr(AsyncMemory, name)), name


def test_parity(tmp_path: Path, clock: FrozenClock) -> None:
    def strip(result: dict) -> list:  # ids and episode ids are random per store
        return [(r["memory"], r["event"]) for r in result["results"]]

    sync = Memory(tmp_path / "s.db", writer="raw", embedder="hash", clock=clock)
    inputs = [
        "I live in Lisbon",
        [{"role": "user", "content": "I adopted a cat"}, {"role": "assistant", "content": "Nice!"}],
    ]
    expected = [strip(sync.add(i, user_id="u")) for i in inputs]
    expected_search = [h["memory"] for h in sync.search("cat", user_id="u")["results"]]

    async def run() -> tuple[list, list]:
        amem = AsyncMemory(tmp_path / "a.db", writer="raw", embedder="hash", clock=clock)
        got = [strip(await amem.add(i, user_id="u")) for i in inputs]
        found = [h["memory"] for h in (await amem.search("cat", user_id="u"))["results"]]
        first = (await amem.list(user_id="u"))["results"][0]["id"]
        assert (await amem.get(first))["id"] == first
        assert (await amem.history(first))[0]["id"] == first
        await amem.close()
        return got, found

    got, found = asyncio.run(run())
    assert got == expected and found == expected_search
