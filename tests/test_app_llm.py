"""The applications write through a model when told to: ``memscribe serve`` and ``memscribe mcp`` with
``--writer pro --llm openai-compatible:MODEL --llm-base-url URL``, against the shipped fake OpenAI-compatible
server; and an MCP server whose configuration cannot work says why to its client."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _server_support import child_env, serve
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from memscribe.testing.fake_openai import FakeOpenAIServer

NEW_YORK = {"operations": [{"op": "ADD", "reason": "home city", "text": "Rosa lives in New York.", "subject": "rosa",
                            "slot": "rosa/residence", "value": "New York", "msgs": [0]}]}  # fmt: skip
pytestmark = pytest.mark.anyio


@pytest.fixture
def model() -> Iterator[FakeOpenAIServer]:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        return NEW_YORK

    with FakeOpenAIServer(model="fake-writer", responder=reply) as fake:
        yield fake


def llm_flags(model: FakeOpenAIServer) -> list[str]:
    return ["--writer", "pro", "--llm", "openai-compatible:fake-writer", "--llm-base-url", model.base_url]


def text_of(result: object) -> str:
    return "\n".join(getattr(part, "text", "") for part in getattr(result, "content", []) or [])


def test_serve_writes_through_the_model(tmp_path: Path, model: FakeOpenAIServer) -> None:
    args = ["memscribe", "serve", "--no-auth", *llm_flags(model)]
    with serve(args, tmp_path / "home", "/healthz") as served:
        first = {"messages": "I live in Boston.", "user_id": "rosa"}
        httpx.post(f"{served.url}/v1/memories", json=first, timeout=60).raise_for_status()
        assert not model.chat_requests  # nothing stored that the model could change: no call
        added = httpx.post(f"{served.url}/v1/memories", json={"messages": "I live in New York now.", "user_id": "rosa"},
                           timeout=60).json()  # fmt: skip
        listed = httpx.get(f"{served.url}/v1/memories", params={"user_id": "rosa"}, timeout=60).json()
    # The stored home is shown to the model; the memory keeps the speaker's own words.
    assert [r["memory"] for r in added["results"]] == ["I live in New York now."]
    assert [m["memory"] for m in listed["results"]] == ["I live in New York now."]
    assert listed["results"][0]["writer"] == "pro"
    assert model.chat_requests and model.chat_requests[0]["model"] == "fake-writer"


async def test_mcp_writes_through_the_model(tmp_path: Path, model: FakeOpenAIServer) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memscribe", "mcp", "--stdio", "--user", "rosa", *llm_flags(model)],
        env=child_env(tmp_path / "home"),
    )
    async with Client(params) as client:
        await client.call_tool("add_memory", {"text": "I live in Boston."})
        reply = text_of(await client.call_tool("add_memory", {"text": "I live in New York now."}))
    assert '"I live in New York now."' in reply
    assert model.chat_requests


async def test_mcp_with_a_broken_configuration_answers_with_the_reason(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memscribe", "mcp", "--writer", "pro"], env=child_env(tmp_path / "h")
    )
    async with Client(params) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("search_memory", {})
    assert "add_memory" in tools and result.is_error
    assert "config_error" in text_of(result) and "needs a model" in text_of(result)


async def test_mcp_defaults_to_the_os_user_and_the_git_root(tmp_path: Path) -> None:
    import getpass

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memscribe", "mcp"], env=child_env(tmp_path / "home"), cwd=repo / "src"
    )
    async with Client(params) as client:
        await client.call_tool("add_memory", {"text": "I prefer tabs over spaces in this code base."})
    from memscribe import Memory

    with Memory(tmp_path / "home" / "memscribe.db", embedder="hash", writer="raw") as memory:
        stored = memory.list(user_id=getpass.getuser())["results"]
    assert stored and stored[0]["project"] == str(repo)
