"""The LLM path end to end against a real llama.cpp server (Qwen2.5-Coder-0.5B), and its real quirks.

A 0.5B model is a weak writer, so these tests assert what must hold whatever it decides: every add
says what happened (operations, or rejections with reasons), nothing is pending afterwards, the store
stays consistent, the cost is recorded. Only plain cases are asserted on content.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from local_models import LocalServer

from memscribe import AsyncMemory, Memory, MemoryConfig
from memscribe.cli.main import cli
from memscribe.core.clock import FrozenClock
from memscribe.errors import ProviderError
from memscribe.providers.presets import StructuredOutput, make_chat
from memscribe.stores.ports import RecordFilter
from memscribe.write.llm import HybridWriter, ProWriter, make_llm_writer
from memscribe.write.llm.driver import RepairBudget

T0 = datetime(2023, 6, 1, 9, tzinfo=UTC)
PROBE_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                "additionalProperties": False}  # fmt: skip
ASK = [{"role": "user", "content": "Caroline moved to Sydney. Answer in JSON: the city she lives in."}]


def chat_for(server: LocalServer, **opts: Any) -> Any:
    return make_chat(server.spec, base_url=server.base_url, timeout=900.0, **opts)


def says_what_happened(result: Mapping[str, Any]) -> bool:
    return bool(result["results"]) or (
        all(r["reason"] for r in result.get("rejected", [])) and bool(result.get("rejected"))
    )


def consistent(memory: Memory) -> None:
    assert memory._core.store.pending_episodes(limit=5) == []
    assert memory._core.store.check() == []


# -- the server's real structured-output behaviour ------------------------------------------------------


def test_llamacpp_preset_json_object_with_schema_works(qwen: LocalServer) -> None:
    result = chat_for(qwen).complete(ASK, schema=PROBE_SCHEMA, max_tokens=40)
    assert isinstance(result.parsed["city"], str) and result.usage.tokens_in > 0 and result.usage.tokens_out > 0


def test_openais_json_schema_form_is_refused_by_llama_cpp_python(qwen: LocalServer) -> None:
    # Why the llamacpp preset does not send it: this server answers it with an HTTP error.
    from memscribe.providers.openai_compat import RetryPolicy

    chat = chat_for(qwen, structured=StructuredOutput.JSON_SCHEMA, retry=RetryPolicy(max_retries=0))
    with pytest.raises(ProviderError):
        chat.complete(ASK, schema=PROBE_SCHEMA, max_tokens=40)


@pytest.mark.parametrize("choice", ["json_object", "none"])
def test_the_other_modes_reach_the_server(qwen: LocalServer, choice: str) -> None:
    try:
        result = chat_for(qwen, structured=choice).complete(ASK, schema=PROBE_SCHEMA, max_tokens=60)
    except ProviderError as error:  # "none" may well give prose: then the error says so, with the text kept
        assert choice == "none" and "JSON" in str(error)
    else:
        assert "city" in result.parsed


def test_doctor_reports_the_working_modes(qwen: LocalServer, tmp_path: Path) -> None:
    args = ["--home", str(tmp_path), "--embedder", "hash", "--json", "--writer", "pro", "--llm", qwen.spec,
            "--llm-base-url", qwen.base_url, "doctor"]  # fmt: skip
    out = CliRunner().invoke(cli, args)
    model = next(c for c in json.loads(out.stdout)["checks"] if c["name"] == "model")
    assert model["verdict"] == "ok", model
    assert "json_schema works (in use)" in model["detail"]


# -- writers over the real model -----------------------------------------------------------------------

TURNS = (
    "I'm allergic to peanuts.",
    "I moved to Sydney last week.",
    "Please forget that I'm allergic to peanuts.",
    "thanks, that was helpful!",
)


def test_pro_adds_sync(qwen: LocalServer, tmp_path: Path) -> None:
    writer = ProWriter(chat_for(qwen), max_tokens=256, prompt="compact")
    clock = FrozenClock(T0)
    with Memory(tmp_path / "p.db", writer=writer, embedder="hash", clock=clock) as memory:
        first = memory.add(TURNS[0], user_id="u", timestamp=T0)
        assert says_what_happened(first)
        found = " ".join(r["memory"] for r in memory.search("allergies", user_id="u", limit=5)["results"])
        assert "peanut" in found.lower()
        for n, text in enumerate(TURNS[1:], start=1):
            assert says_what_happened(memory.add(text, user_id="u", timestamp=T0 + timedelta(days=n)))
        consistent(memory)
        ops = memory._core.store.journal(("default", "u"))
    # A chunk the lite rules fully keep costs no call (the lossless base), so not every add asks the model.
    assert 1 <= writer.stats.calls <= len(TURNS) and writer.stats.failures == 0
    accepted = [e for e in ops if e.accepted]
    assert accepted and all(e.writer for e in accepted)


def test_pro_adds_async(qwen: LocalServer, tmp_path: Path) -> None:
    async def run() -> list[Mapping[str, Any]]:
        writer = ProWriter(chat_for(qwen), max_tokens=256, prompt="compact")
        memory = AsyncMemory(tmp_path / "a.db", writer=writer, embedder="hash", clock=FrozenClock(T0))
        try:
            return [await memory.add(t, user_id="u", timestamp=T0) for t in TURNS[:2]]
        finally:
            await memory.close()

    assert all(says_what_happened(r) for r in asyncio.run(run()))


def test_hybrid_on_the_real_model(qwen: LocalServer, tmp_path: Path) -> None:
    writer = HybridWriter(chat_for(qwen))
    with Memory(tmp_path / "h.db", writer=writer, embedder="hash", clock=FrozenClock(T0)) as memory:
        memory.add("I work at Shopify as a data analyst.", user_id="u", timestamp=T0)
        later = memory.add("my new manager at Stripe is great, way fewer meetings", user_id="u",
                           timestamp=T0 + timedelta(days=30))  # fmt: skip
        assert says_what_happened(later)
        consistent(memory)
    assert writer.stats.calls <= 2 * 2  # at most one labelling call (and one repair) per add


@pytest.mark.parametrize("name", ["mem0-protocol", "hy-protocol"])
def test_protocol_adapters(qwen: LocalServer, tmp_path: Path, name: str) -> None:
    writer = make_llm_writer(name, chat_for(qwen))
    with Memory(tmp_path / f"{name}.db", writer=writer, embedder="hash", clock=FrozenClock(T0)) as memory:
        for text in TURNS[:1]:
            try:
                result = memory.add(text, user_id="u", timestamp=T0)
            except ProviderError:  # these adapters keep the reference systems' behaviour: pending on bad output
                assert memory._core.store.pending_episodes(limit=5)
                continue
            assert isinstance(result["results"], list)
        assert memory._core.store.check() == []


def test_ultra_consolidates_with_the_model(qwen: LocalServer, tmp_path: Path) -> None:
    config = MemoryConfig(writer="ultra", embedder="hash", llm=qwen.spec, llm_base_url=qwen.base_url,
                          llm_options={"timeout": 900.0})  # fmt: skip
    with Memory(tmp_path / "u.db", config=config) as memory:
        for n, text in enumerate(
            ("I love hiking in the Alps.", "I go hiking every weekend.", "I bought hiking boots.")
        ):
            memory.add(text, user_id="u", timestamp=T0 + timedelta(days=n))
        result = memory.consolidate(user_id="u")
        assert isinstance(result["results"], list)
        assert memory._core.store.check() == []


def test_scenes_with_tool_calls(qwen: LocalServer, tmp_path: Path) -> None:
    config = MemoryConfig(writer="pro", embedder="hash", llm=qwen.spec, llm_base_url=qwen.base_url,
                          llm_options={"timeout": 900.0})  # fmt: skip
    messages = [
        {"role": "user", "content": "Fix the failing date parser test in utils/dates.py."},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "edit_file", "arguments": json.dumps({"path": "utils/dates.py", "new": "%Y-%m-%d"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "edited utils/dates.py"},
        {"role": "assistant", "content": "The parser now uses ISO dates; the test passes."},
    ]  # fmt: skip
    with Memory(tmp_path / "s.db", config=config) as memory:
        result = memory.add(messages, user_id="u", project="/repo")
        assert result["results"], result
        scenes = {r.scene for r in memory._core.store.query(("default", "u"), RecordFilter(), limit=50)}
        assert scenes & {"working", "coding"}, scenes


# -- a model that cannot follow the format at all --------------------------------------------------------


SAID = ("I live in Seattle.", "I moved to Berlin.", "My sister lives in Lyon.", "I adopted a dog called Rex.",
        "Should I move to Paris?", "Please forget where I live.", "I work at Google.", "Actually I work at Spotify.",
        "I'm vegetarian now.", "thanks!", "My rent is 2,450 a month.", "Rex is three years old.")  # fmt: skip


@pytest.mark.parametrize(("writer_name", "adds"), [("pro", 30), ("hybrid", 8)])
def test_smollm2_output_never_corrupts_the_store(
    smol: LocalServer, tmp_path: Path, writer_name: str, adds: int
) -> None:
    """Adds of a model that cannot follow the format: every add says what happened, nothing is left
    pending, the store's own check passes, and what the person said is still found (the 200-add bar,
    with the fake server's malformed modes too, is test_bad_output.py)."""
    chat = chat_for(smol)
    bounds = RepairBudget(max_tokens=32)
    writer = (ProWriter(chat, max_tokens=48, prompt="compact", repair=bounds) if writer_name == "pro"
              else HybridWriter(chat, max_tokens=48, repair=bounds))  # fmt: skip
    clock = FrozenClock(T0)
    with Memory(tmp_path / "smol.db", writer=writer, embedder="hash", clock=clock) as memory:
        told: dict[str, list[str]] = {}
        for n in range(adds):
            clock.set(T0 + timedelta(days=n))
            user, text = f"u{n % 3}", SAID[n % len(SAID)]
            told.setdefault(user, []).append(text)
            result = memory.add(text, user_id=user, timestamp=clock.now())
            assert says_what_happened(result), result
        consistent(memory)
        if writer_name == "pro":
            for user, heard in told.items():  # the lossless base keeps what was said, to whom it was said
                texts = " ".join(r["memory"] for r in memory.list(user_id=user)["results"])
                assert any("Rex" in t for t in heard) == ("Rex" in texts), (user, texts)
    # No content check beyond that: what SmolLM2 gets accepted may be wrong; the guarantees are the ones above.
    assert writer.stats.failures == 0
