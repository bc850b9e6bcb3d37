"""The bad-output bar: 200 adds whose model answers are deliberately bad, from two sources in one store.

Even adds go to the fake server's malformed modes (prose, broken JSON, invented aliases, deletes of
everything, another person's subject, runaway strings...), odd adds to the real SmolLM2-135M served by
llama.cpp, which cannot follow the format. ``always_ask`` makes every add reach the model (the lossless
base would otherwise skip calls that could change nothing). After every add the result must say what
happened (operations, or rejections each with a reason); afterwards no episode may be pending, the
store's own check must pass and ``memscribe doctor`` must find nothing wrong with the store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from local_models import LocalServer

from memscribe import Memory
from memscribe.cli.main import cli
from memscribe.core.clock import FrozenClock
from memscribe.providers.chat import ChatMessage, ChatModel, ChatResult, Schema
from memscribe.providers.openai_compat import OpenAICompatChat, RetryPolicy
from memscribe.providers.presets import make_chat
from memscribe.testing.fake_openai import FakeOpenAIServer, malformed_responder
from memscribe.write.llm import ProWriter
from memscribe.write.llm.driver import RepairBudget

T0 = datetime(2023, 3, 1, 9, tzinfo=UTC)
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
    "I moved from Berlin to Hamburg in May.",
)
STORE_CHECKS = ("store", "migrations", "integrity", "pending episodes", "index files")


class EveryOtherAdd:
    """A chat model that sends the calls of even adds to ``even`` and of odd adds to ``odd``."""

    def __init__(self, even: ChatModel, odd: ChatModel) -> None:
        self.sources = (even, odd)
        self.add_number = 0

    def complete(self, messages: Sequence[ChatMessage], *, schema: Schema | None = None, temperature: float = 0.0,
                 max_tokens: int | None = None) -> ChatResult:  # fmt: skip
        chat = self.sources[self.add_number % 2]
        return chat.complete(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)

    async def acomplete(self, messages: Sequence[ChatMessage], *, schema: Schema | None = None,
                        temperature: float = 0.0, max_tokens: int | None = None) -> ChatResult:  # fmt: skip
        chat = self.sources[self.add_number % 2]
        return await chat.acomplete(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)


@pytest.fixture
def malformed() -> Iterator[OpenAICompatChat]:
    with FakeOpenAIServer(responder=malformed_responder()) as server:
        client = OpenAICompatChat("weak", base_url=server.base_url, retry=RetryPolicy(max_retries=0))
        yield client
        client.close()


def _says_what_happened(result: dict[str, Any]) -> bool:
    rejected = result.get("rejected") or []
    return bool(result["results"] or rejected) and all(r.get("reason") for r in rejected)


def test_200_bad_adds_leave_the_store_consistent(
    smol: LocalServer, malformed: OpenAICompatChat, tmp_path: Path
) -> None:
    real = make_chat(smol.spec, base_url=smol.base_url, timeout=900.0)
    chat = EveryOtherAdd(malformed, real)
    bounds = RepairBudget(max_tokens=32)
    writer = ProWriter(chat, max_tokens=48, prompt="compact", repair=bounds, always_ask=True)
    clock = FrozenClock(T0)
    home = tmp_path / "home"
    home.mkdir()
    with Memory(home / "memscribe.db", writer=writer, embedder="hash", clock=clock) as memory:
        for n in range(200):
            chat.add_number = n
            clock.set(T0 + timedelta(days=n))
            result = memory.add(SAID[n % len(SAID)], user_id=f"u{n % 3}", timestamp=clock.now())
            assert _says_what_happened(result), (n, result)
        assert memory._core.store.pending_episodes(limit=5) == []
        assert memory._core.store.check() == []
        for user in ("u0", "u1", "u2"):
            texts = " ".join(r["memory"] for r in memory.list(user_id=user)["results"])
            assert "Rex" in texts and "Anna" in texts, (user, texts)  # the lossless base keeps what was said
    assert writer.stats.episodes == 200 and writer.stats.failures == 0
    assert writer.stats.calls >= 200  # every add asked a bad model at least once
    out = CliRunner().invoke(cli, ["--home", str(home), "--embedder", "hash", "--json", "doctor"])
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    assert all(checks[name]["verdict"] == "ok" for name in STORE_CHECKS), checks
