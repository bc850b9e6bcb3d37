"""End to end over HTTP: the SDK in pro mode through the real OpenAI-compatible adapter and the fake server,
from add to search, sync and async; and the scripted model on a small update-benchmark run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe import AsyncMemory, Memory
from memscribe.bench.harness import sdk_factory
from memscribe.bench.pro import run_pro_updates, scripted_pro_chat
from memscribe.bench.updates import run_updates
from memscribe.core.clock import FrozenClock
from memscribe.providers.presets import make_chat
from memscribe.testing.fake_openai import Behaviour, FakeOpenAIServer
from memscribe.write.llm import ProWriter
from memscribe.write.prompts.pro_schema import PRO_SCHEMA

T0 = datetime(2023, 5, 1, 10, tzinfo=UTC)
T1 = datetime(2023, 6, 3, 10, tzinfo=UTC)
SEATTLE = {"operations": [{"op": "ADD", "reason": "home", "text": "Caroline lives in Seattle.", "subject": "caroline",
                           "slot": "caroline/residence", "value": "Seattle", "msgs": [0]}]}  # fmt: skip
SYDNEY = {"operations": [{"op": "SUPERSEDE", "target": 1, "reason": "moved", "subject": "caroline",
                          "text": "Caroline moved to Sydney on 2 June 2023.", "valid_from": "2023-06-02"}]}  # fmt: skip
TURNS = [
    ([{"role": "user", "name": "Caroline", "content": "I live in Seattle."}], T0),
    ([{"role": "user", "name": "Caroline", "content": "I moved to Sydney yesterday!"}], T1),
]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(model="qwen-fake") as fake:
        yield fake


def check_wire(server: FakeOpenAIServer) -> None:
    first = server.chat_requests[0]
    assert first["response_format"]["type"] == "json_schema"
    assert first["response_format"]["json_schema"]["schema"] == json.loads(json.dumps(PRO_SCHEMA))
    assert [m["role"] for m in first["messages"]] == ["system", "user"]


def test_sdk_pro_mode_from_add_to_search(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push(Behaviour.json(SEATTLE), Behaviour.fenced(SYDNEY))
    chat = make_chat("vllm:Qwen/Qwen3-8B", base_url=server.base_url)
    with Memory(
        tmp_path / "e2e.db", writer=ProWriter(chat, always_ask=True), embedder="hash", clock=FrozenClock(T1)
    ) as memory:
        for messages, when in TURNS:
            memory.add(messages, user_id="caroline", timestamp=when)
        hits = memory.search("Where does Caroline live?", user_id="caroline")["results"]
        # The model's supersede checks out (its value is in the message), so the speaker's own words replace
        # the old memory: the lossless base keeps what was said.
        assert "Sydney" in hits[0]["memory"] and all("Seattle" not in h["memory"] for h in hits)
        why = memory.why(hits[0]["id"])
    assert len(server.chat_requests) == 2
    check_wire(server)
    assert "moved" in json.dumps(why)


def test_async_sdk_pro_mode_over_http(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push(Behaviour.json(SEATTLE), Behaviour.json(SYDNEY))
    chat = make_chat("vllm:Qwen/Qwen3-8B", base_url=server.base_url)

    async def run() -> list[str]:
        memory = AsyncMemory(
            tmp_path / "a.db", writer=ProWriter(chat, always_ask=True), embedder="hash", clock=FrozenClock(T1)
        )
        try:
            for messages, when in TURNS:
                await memory.add(messages, user_id="caroline", timestamp=when)
            found = await memory.search("Where does Caroline live?", user_id="caroline")
            return [r["memory"] for r in found["results"]]
        finally:
            await memory.close()

    found = asyncio.run(run())
    assert "Sydney" in found[0] and all("Seattle" not in text for text in found)
    check_wire(server)


def test_scripted_model_over_http_matches_in_process(tmp_path: Path, server: FakeOpenAIServer) -> None:
    scripted = scripted_pro_chat()

    def respond(body: dict[str, Any]) -> str:
        return scripted.complete(body["messages"]).text

    server.responder = respond
    chat = make_chat("vllm:m", base_url=server.base_url)
    with Memory(tmp_path / "s.db", writer=ProWriter(chat), embedder="hash", clock=FrozenClock(T1)) as memory:
        for messages, when in TURNS:
            memory.add(messages, user_id="caroline", timestamp=when)
        texts = [r["memory"] for r in memory.list(user_id="caroline")["results"]]
    assert len(texts) == 1 and "Sydney" in texts[0]


def test_bench_calls_per_add_with_the_scripted_model(tmp_path: Path) -> None:
    results = run_pro_updates(4, seed=3, embedder="hash", workdir=tmp_path)
    llm = results["llm"]
    assert llm["calls_per_add"] <= 1.2
    assert llm["failures"] == 0 and llm["repairs"] == 0 and llm["rejections"] == 0
    assert llm["tokens_in_per_add"] > llm["fixed_prompt_tokens"] > 0
    lite = run_updates(sdk_factory(embedder="hash"), "lite", 4, 3, tmp_path)
    # The scripted model answers with lite's decisions, so the protocol must not lose any on the way.
    assert results["metrics"]["accuracy@1"] >= lite["metrics"]["accuracy@1"] - 0.02
