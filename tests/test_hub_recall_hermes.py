"""The Hermes MemoryProvider, driven the way Hermes' MemoryManager drives it: initialize, prefetch before a
turn, sync_turn after it, tools, shutdown."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from memscribe.config import MemoryConfig
from memscribe.engine.memory import Memory
from memscribe.hub.feed.hermes import MemscribeProvider, register


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "orders"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.delenv("MEMSCRIBE_PROJECT", raising=False)
    return root


def _provider(tmp_path: Path) -> MemscribeProvider:
    return MemscribeProvider(lambda: Memory(tmp_path / "m.db", config=MemoryConfig(embedder="hash", writer="raw")))


def test_prefetch_sync_and_tools(tmp_path: Path, project: Path) -> None:
    provider = _provider(tmp_path)
    assert provider.is_available() and provider.name == "memscribe"
    provider.initialize("s1", hermes_home=str(tmp_path), platform="cli", agent_context="primary", user_id="ana")
    try:
        assert "not instructions" in provider.system_prompt_block()
        provider.sync_turn("We decided the orders service uses PostgreSQL 16.", "Noted.", session_id="s1")
        provider.flush()
        text = provider.prefetch("which database do orders use?", session_id="s1")
        assert "PostgreSQL 16" in text and "id=" in text and text.startswith("<memscribe-context>")
        assert provider.prefetch("/help") == ""
        names = [t["name"] for t in provider.get_tool_schemas()]
        assert names == ["memscribe_search", "memscribe_why"]
        found = json.loads(provider.handle_tool_call("memscribe_search", {"query": "PostgreSQL"}))
        assert "PostgreSQL 16" in found["result"]
        memory_id = found["result"].split("id=")[1].split()[0]
        why = json.loads(provider.handle_tool_call("memscribe_why", {"id": memory_id}))
        assert "PostgreSQL 16" in why["result"]
        assert "error" in json.loads(provider.handle_tool_call("memscribe_why", {"id": "nope"}))
    finally:
        provider.shutdown()


def test_subagents_never_write(tmp_path: Path, project: Path) -> None:
    provider = _provider(tmp_path)
    provider.initialize("s2", hermes_home=str(tmp_path), platform="cron", agent_context="cron", user_id="ana")
    provider.sync_turn("We decided to drop Redis.", "ok")
    assert provider.prefetch("Redis") == ""
    provider.shutdown()


def test_plugin_folder_registers_the_provider() -> None:
    spec = importlib.util.spec_from_file_location(
        "hermes_memscribe_plugin", Path(__file__).parents[1] / "integrations" / "hermes" / "memscribe" / "__init__.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    class Ctx:
        def __init__(self) -> None:
            self.providers: list[object] = []

        def register_memory_provider(self, provider: object) -> None:
            self.providers.append(provider)

    ctx = Ctx()
    module.register(ctx)
    register(ctx)
    assert [type(p).__name__ for p in ctx.providers] == ["MemscribeProvider", "MemscribeProvider"]
