"""A weak model cannot corrupt the store or lose what was said: hundreds of adds of deliberately bad output.

The fake server answers every call with the next of its malformed modes (prose, broken JSON, invented
numbers, deletes of everything, another person's subject, runaway strings, ...). After every add the
result must say what happened (operations, or rejections with reasons), no episode may stay pending (bad
output is not a transport error), and at the end the store's own integrity check must pass and the
person's statements must still be found.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.core.clock import FrozenClock
from memscribe.providers.openai_compat import OpenAICompatChat, RetryPolicy
from memscribe.testing.fake_openai import MALFORMED_MODES, FakeOpenAIServer, malformed_responder
from memscribe.write.llm import HybridWriter, ProWriter

T0 = datetime(2023, 1, 1, 9, tzinfo=UTC)
SAID = (
    "I live in Seattle.",
    "I just moved to Berlin for a new job at Google.",
    "My sister Anna lives in Lyon.",
    "Should I move to Paris next year?",
    "I adopted a dog called Rex.",
    "Actually I work at Spotify now, not Google.",
    "Please forget my address.",
    "I'm vegetarian.",
    "thanks, that was helpful!",
    "My rent went up to 2,450 a month.",
)


@pytest.fixture
def chat() -> Iterator[OpenAICompatChat]:
    with FakeOpenAIServer(responder=malformed_responder()) as server:
        client = OpenAICompatChat("weak", base_url=server.base_url, retry=RetryPolicy(max_retries=0))
        yield client
        client.close()


@pytest.mark.parametrize(("writer_name", "adds"), [("pro", 200), ("hybrid", 100)])
def test_bad_output_never_corrupts_the_store(
    tmp_path: Path, chat: OpenAICompatChat, writer_name: str, adds: int
) -> None:
    writer = ProWriter(chat, max_tokens=256) if writer_name == "pro" else HybridWriter(chat)
    clock = FrozenClock(T0)
    with Memory(tmp_path / "weak.db", writer=writer, embedder="hash", clock=clock) as memory:
        for n in range(adds):
            clock.set(T0 + timedelta(days=n))
            result = memory.add(SAID[n % len(SAID)], user_id=f"u{n % 3}", timestamp=clock.now())
            assert result["results"] or result.get("rejected"), result
            assert all(r["reason"] for r in result.get("rejected", []))
        core = memory._core
        assert core.store.pending_episodes(limit=5) == []
        assert core.store.check() == []
        for user in ("u0", "u1", "u2"):
            found = " ".join(r["memory"] for r in memory.search("dog called Rex", user_id=user, limit=5)["results"])
            assert "Rex" in found
    assert writer.stats.episodes == adds and writer.stats.failures == 0
    assert writer_name == "hybrid" or writer.stats.calls <= 2 * adds  # one answer and at most one repair per add


def test_every_malformed_mode_is_exercised() -> None:
    respond = malformed_responder()
    texts = [respond({}).content for _ in MALFORMED_MODES]
    assert len(set(texts)) == len(MALFORMED_MODES)
