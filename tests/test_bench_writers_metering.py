"""The writer benchmark's meter reads the providers' own usage accounting (and keeps its own for fakes)."""

from __future__ import annotations

from typing import Any

import pytest

from memscribe.bench.writers.metering import MeteredChat
from memscribe.errors import ModelOutputError, ProviderError
from memscribe.providers.openai_compat import OpenAICompatChat, RetryPolicy
from memscribe.testing.chat import ScriptedChat
from memscribe.testing.fake_openai import Behaviour, FakeOpenAIServer

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
USER = [{"role": "user", "content": "say ok please"}]


def test_meter_reads_the_adapters_totals_including_unusable_and_failed_calls() -> None:
    with FakeOpenAIServer() as server:
        chat = OpenAICompatChat("fake-model", base_url=server.base_url, retry=RetryPolicy(max_retries=0))
        server.push(Behaviour.json({"ok": True}, completion_tokens=7))
        chat.complete(USER, schema=SCHEMA)  # before the meter: not counted by it
        meter = MeteredChat(chat)
        server.push(Behaviour.json({"ok": True}, completion_tokens=5), Behaviour.text("not json", completion_tokens=3),
                    Behaviour.error(400))  # fmt: skip
        meter.complete(USER, schema=SCHEMA)
        with pytest.raises(ModelOutputError):
            meter.complete(USER, schema=SCHEMA)
        with pytest.raises(ProviderError):
            meter.complete(USER, schema=SCHEMA)
    assert chat.totals.as_dict() == {"calls": 4, "tokens_in": 9, "tokens_out": 15, "failed": 2}
    # the meter is the adapter's own accounting from when it was made, not a second count
    assert meter.count.as_dict() == {"calls": 3, "tokens_in": 6, "tokens_out": 8, "failed": 2}


def test_meter_keeps_its_own_totals_for_chat_models_without_them() -> None:
    meter = MeteredChat(ScriptedChat({"ok": True}, RuntimeError("down")))
    meter.complete(USER, schema=SCHEMA)
    with pytest.raises(RuntimeError):
        meter.complete(USER, schema=SCHEMA)
    count = meter.count.as_dict()
    assert count["calls"] == 2 and count["failed"] == 1
