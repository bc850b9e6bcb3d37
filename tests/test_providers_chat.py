"""Chat providers: JSON parsing and validation, presets and specs, the adapters against the local fake server
(every failure mode, sync/async parity, accounting, concurrency), and the shipped fakes."""

from __future__ import annotations

import asyncio
import pickle
import socket
import threading
from typing import Any

import pytest

from memscribe.errors import ConfigError, ModelOutputError, ProviderError, ProviderTimeout, RateLimited
from memscribe.providers.anthropic import AnthropicChat
from memscribe.providers.chat import ChatModel, InvalidModelOutput, json_schema_of, parse_reply
from memscribe.providers.openai_compat import OpenAICompatChat, RetryPolicy
from memscribe.providers.presets import PRESETS, StructuredOutput, make_chat, parse_spec
from memscribe.testing.chat import FunctionChat, ScriptedChat, ScriptExhausted
from memscribe.testing.fake_openai import Behaviour, FakeOpenAIServer

SCHEMA: dict[str, Any] = {
    "title": "Extraction",
    "type": "object",
    "properties": {
        "memory": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"content": {"type": "string"}, "owner": {"enum": ["user", "agent"]}},
                "required": ["content", "owner"],
            },
        }
    },
    "required": ["memory"],
}
GOOD = {"memory": [{"content": "The user lives in Lyon.", "owner": "user"}]}
USER = [{"role": "user", "content": "I moved to Lyon last week"}]


class Sleeps:
    """Records backoff delays instead of sleeping, so retry tests take milliseconds."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.delays.append(seconds)

    async def asleep(self, seconds: float) -> None:
        self.delays.append(seconds)

    def policy(self, **overrides: Any) -> RetryPolicy:
        return RetryPolicy(**{"base_delay": 0.01, "sleep": self.sleep, "asleep": self.asleep, **overrides})


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


def chat_for(server: FakeOpenAIServer, sleeps: Sleeps, **opts: Any) -> OpenAICompatChat:
    opts.setdefault("retry", sleeps.policy())
    return OpenAICompatChat("fake-model", base_url=server.base_url, **opts)


# -- parsing and validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"memory": []}',
        'Here you go:\n```json\n{"memory": []}\n```\nDone.',
        '```\n{"memory": []}\n```',
        'Sure. {"memory": []} Hope that helps!',
        '<think>the user said [1] thing</think>\n{"memory": []}',
        'Per note [1], the answer is {"memory": []}',
    ],
)
def test_parse_reply_tolerates_fences_prose_and_reasoning(text: str) -> None:
    assert parse_reply(text, SCHEMA) == {"memory": []}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({}, "missing required property 'memory'"),
        ({"memory": "x"}, "expected array"),
        ({"memory": [{"content": "x", "owner": "robot"}]}, "not one of"),
        ({"memory": [{"owner": "user"}]}, "missing required property 'content'"),
    ],
)
def test_schema_violations_raise_with_a_path(value: Any, problem: str) -> None:
    import json

    with pytest.raises(InvalidModelOutput) as caught:
        parse_reply(json.dumps(value), SCHEMA)
    assert problem in str(caught.value)


def test_schema_subset_covers_refs_anyof_closed_objects_and_integers() -> None:
    schema = {
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "additionalProperties": False,
            }
        },
        "type": "array",
        "items": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
        "maxItems": 2,
    }
    assert parse_reply('[{"n": 1}, null]', schema) == [{"n": 1}, None]
    for bad in ('[{"n": true}]', '[{"n": 1, "x": 2}]', "[null, null, null]"):
        with pytest.raises(InvalidModelOutput):
            parse_reply(bad, schema)


def test_unparseable_output_keeps_raw_text_out_of_the_message() -> None:
    with pytest.raises(InvalidModelOutput) as caught:
        parse_reply("I cannot share where Caroline lives", SCHEMA)
    assert caught.value.raw_text == "I cannot share where Caroline lives"
    assert "Caroline" not in str(caught.value)
    assert isinstance(caught.value, ModelOutputError)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert copy.raw_text == caught.value.raw_text


def test_truncated_output_says_so() -> None:
    with pytest.raises(InvalidModelOutput, match="max_tokens") as caught:
        parse_reply('{"memory": [{"content": "The us', SCHEMA, finish_reason="length")
    assert caught.value.finish_reason == "length"


def test_pydantic_models_work_as_schemas() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Fact(pydantic.BaseModel):  # type: ignore[misc, name-defined]
        content: str
        confidence: float

    assert json_schema_of(Fact)["title"] == "Fact"
    assert parse_reply('{"content": "x", "confidence": 0.5}', Fact) == {"content": "x", "confidence": 0.5}
    with pytest.raises(InvalidModelOutput, match="confidence") as caught:
        parse_reply('{"content": "secret-value", "confidence": "high"}', Fact)
    assert "secret-value" not in str(caught.value)


# -- presets and specs ------------------------------------------------------------------------------------


def test_presets_cover_the_planned_providers() -> None:
    expected = {"vllm", "sglang", "ollama", "lmstudio", "llamacpp", "openai", "openrouter", "deepseek"}
    assert expected | {"hunyuan", "anthropic", "openai-compatible"} == set(PRESETS)


@pytest.mark.parametrize(
    ("spec", "provider", "model"),
    [
        ("vllm:Tencent/Hy-Memory-30B-A3B", "vllm", "Tencent/Hy-Memory-30B-A3B"),
        ("ollama:qwen3:8b", "ollama", "qwen3:8b"),
        (" OpenAI:gpt-4o-mini ", "openai", "gpt-4o-mini"),
    ],
)
def test_parse_spec(spec: str, provider: str, model: str) -> None:
    preset, name = parse_spec(spec)
    assert (preset.name, name) == (provider, model)


@pytest.mark.parametrize("spec", ["gpt-4o", "vllm:", ":model"])
def test_malformed_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError):
        parse_spec(spec)


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="anthropic, deepseek, hunyuan"):
        parse_spec("bedrock:claude")


def test_make_chat_picks_the_adapter_and_demands_keys_for_cloud_providers() -> None:
    assert isinstance(make_chat("vllm:m"), OpenAICompatChat)
    assert isinstance(make_chat("anthropic:claude-x", api_key="sk-ant-secret"), AnthropicChat)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_chat("openai:gpt-4o-mini")
    with pytest.raises(ConfigError, match="unknown structured-output style"):
        make_chat("vllm:m", structured="telepathy")
    with pytest.raises(ConfigError):
        make_chat("vllm:m", structured="tool")


# -- request shape per preset -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(n for n, p in PRESETS.items() if p.wire == "openai"))
def test_structured_output_request_shape_per_preset(server: FakeOpenAIServer, sleeps: Sleeps, name: str) -> None:
    server.push(GOOD)
    chat = make_chat(f"{name}:fake-model", base_url=server.base_url, api_key="k", retry=sleeps.policy())
    system = [{"role": "system", "content": "You extract memories."}]
    assert chat.complete([*system, *USER], schema=SCHEMA, max_tokens=50).parsed == GOOD
    body = server.chat_requests[-1]
    style = PRESETS[name].structured
    assert body[PRESETS[name].max_tokens_field] == 50
    if style is StructuredOutput.JSON_SCHEMA:
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["name"] == "Extraction"
        assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    elif style is StructuredOutput.JSON_OBJECT_SCHEMA:  # llama.cpp: the grammar carries the schema
        assert body["response_format"] == {"type": "json_object", "schema": SCHEMA}
        assert body["messages"][0]["content"] == "You extract memories."
    else:
        assert body.get("response_format", {}).get("type") in (None, "json_object")
        assert [m["role"] for m in body["messages"]] == [
            "system",
            "user",
        ]  # the instruction joined the system
        assert body["messages"][0]["content"].startswith("You extract memories.")
        assert '"Extraction"' in body["messages"][0]["content"]


def test_llamacpp_grammar_gets_enums_without_a_type_list(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    # llama.cpp's converter reads a list type before enum ("any string or null"): the enum alone is sent.
    owner = {"type": ["string", "null"], "enum": ["user", "agent", None]}
    schema = {"type": "object", "properties": {"owner": owner, "op": {"type": "string", "enum": ["ADD"]}},
              "required": ["owner"]}  # fmt: skip
    server.push({"owner": "user"})
    chat = make_chat("llamacpp:fake-model", base_url=server.base_url, retry=sleeps.policy())
    assert chat.complete(USER, schema=schema).parsed == {"owner": "user"}
    sent = server.chat_requests[-1]["response_format"]["schema"]["properties"]
    assert sent["owner"] == {"enum": ["user", "agent", None]} and sent["op"] == {"type": "string", "enum": ["ADD"]}
    with pytest.raises(InvalidModelOutput):  # replies are still checked against the schema as written
        server.push({"owner": "caroline"})
        chat.complete(USER, schema=schema)


@pytest.mark.parametrize(
    ("style", "key", "value"),
    [("guided_json", "guided_json", SCHEMA), ("structured_outputs", "structured_outputs", {"json": SCHEMA})],
)
def test_vllm_guided_decoding_styles(
    server: FakeOpenAIServer, sleeps: Sleeps, style: str, key: str, value: Any
) -> None:
    server.push(GOOD)
    chat = make_chat("vllm:m", base_url=server.base_url, structured=style, retry=sleeps.policy())
    chat.complete(USER, schema=SCHEMA)
    assert server.chat_requests[-1][key] == value
    assert "response_format" not in server.chat_requests[-1]


def test_strict_mode_only_for_closed_schemas_and_quirks_as_options(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    closed = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    chat = chat_for(
        server,
        sleeps,
        extra_body={"chat_template_kwargs": {"enable_thinking": False}},
        send_temperature=False,
    )
    server.push({"a": "x"}, "plain")
    chat.complete(USER, schema=closed)
    chat.complete(USER)
    with_schema, without = server.chat_requests
    assert with_schema["response_format"]["json_schema"]["strict"] is True
    assert with_schema["chat_template_kwargs"] == {"enable_thinking": False}
    assert "temperature" not in with_schema
    assert "response_format" not in without


def test_api_key_is_sent_but_never_shown(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    chat = make_chat("openai:m", base_url=server.base_url, api_key="sk-very-secret", retry=sleeps.policy())
    server.push(Behaviour.error(401, message="bad key"))
    with pytest.raises(ProviderError) as caught:
        chat.complete(USER)
    assert server.requests[-1].headers["authorization"] == "Bearer sk-very-secret"
    assert "sk-very-secret" not in repr(chat) + str(caught.value) + repr(caught.value)
    assert "401" in str(caught.value) and "bad key" in str(caught.value)
    assert len(server.requests) == 1  # a client error is not retried


# -- failure modes over the wire --------------------------------------------------------------------------


def test_fenced_reply_parses_and_malformed_raises_with_raw_text(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    chat = chat_for(server, sleeps)
    server.push(Behaviour.fenced(GOOD), Behaviour.text('{"memory": [oops]}'))
    assert chat.complete(USER, schema=SCHEMA).parsed == GOOD
    with pytest.raises(InvalidModelOutput) as caught:
        chat.complete(USER, schema=SCHEMA)
    assert caught.value.raw_text == '{"memory": [oops]}'
    assert len(server.requests) == 2  # bad output is the caller's to retry, not the transport's


def test_truncated_reply_raises(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    server.push(Behaviour.truncated(GOOD))
    with pytest.raises(InvalidModelOutput) as caught:
        chat_for(server, sleeps).complete(USER, schema=SCHEMA)
    assert caught.value.finish_reason == "length"


def test_timeout_is_not_retried_by_default(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    server.push(Behaviour.slow(5, Behaviour.json(GOOD)))
    with pytest.raises(ProviderTimeout):
        chat_for(server, sleeps, timeout=0.2).complete(USER)
    assert len(server.requests) == 1 and sleeps.delays == []


def test_timeout_retried_when_asked(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    server.push(Behaviour.slow(5), Behaviour.json(GOOD))
    chat = chat_for(server, sleeps, timeout=0.2, retry=sleeps.policy(retry_timeouts=True))
    assert chat.complete(USER, schema=SCHEMA).parsed == GOOD


def test_429_then_success_honours_retry_after(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    server.push(Behaviour.error(429, retry_after=1.5), Behaviour.json(GOOD))
    result = chat_for(server, sleeps).complete(USER, schema=SCHEMA)
    assert result.parsed == GOOD
    assert sleeps.delays == [1.5]


@pytest.mark.parametrize("failure", [Behaviour.error(500), Behaviour.error(503), Behaviour.drop()])
def test_server_errors_and_drops_then_success(server: FakeOpenAIServer, sleeps: Sleeps, failure: Behaviour) -> None:
    server.push(failure, failure, Behaviour.json(GOOD))
    assert chat_for(server, sleeps).complete(USER, schema=SCHEMA).parsed == GOOD
    assert len(sleeps.delays) == 2
    assert 0.005 <= sleeps.delays[0] <= 0.01 and 0.015 <= sleeps.delays[1] <= 0.02  # exponential, jittered


@pytest.mark.parametrize(("status", "error"), [(429, RateLimited), (500, ProviderError)])
def test_retries_exhausted_raise_the_right_class(
    server: FakeOpenAIServer, sleeps: Sleeps, status: int, error: type[Exception]
) -> None:
    server.push(*[Behaviour.error(status)] * 3)
    with pytest.raises(error) as caught:
        chat_for(server, sleeps, retry=sleeps.policy(max_retries=2)).complete(USER)
    assert type(caught.value) is error
    assert len(server.requests) == 3 and len(sleeps.delays) == 2


def test_long_retry_after_and_spent_quota_fail_fast(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    chat = chat_for(server, sleeps, retry=sleeps.policy(max_retry_after=10))
    server.push(Behaviour.error(429, retry_after=3600), Behaviour.error(429, message="insufficient_quota"))
    for _ in range(2):
        with pytest.raises(RateLimited):
            chat.complete(USER)
    assert len(server.requests) == 2 and sleeps.delays == []


def test_model_down_is_a_provider_error(sleeps: Sleeps) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chat = OpenAICompatChat("m", base_url=f"http://127.0.0.1:{port}/v1", retry=sleeps.policy(max_retries=2))
    with pytest.raises(ProviderError, match="cannot connect"):
        chat.complete(USER)
    with pytest.raises(ProviderError, match="cannot connect"):
        asyncio.run(chat.acomplete(USER))
    assert len(sleeps.delays) == 4


# -- accounting, parity, concurrency ----------------------------------------------------------------------


def test_usage_accounting(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    server.push(Behaviour.json(GOOD, completion_tokens=42))
    result = chat_for(server, sleeps).complete(USER, schema=SCHEMA)
    assert result.usage.calls == 1
    assert result.usage.tokens_in == 6 and result.usage.tokens_out == 42
    assert result.usage.model == result.model == "fake-model"
    assert result.usage.latency_ms > 0 and result.finish_reason == "stop"


def test_sync_and_async_give_the_same_result_and_request(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    chat = chat_for(server, sleeps)
    server.push(Behaviour.error(429, retry_after=0.5), Behaviour.fenced(GOOD))
    sync = chat.complete(USER, schema=SCHEMA, temperature=0.1, max_tokens=99)
    server.push(Behaviour.error(429, retry_after=0.5), Behaviour.fenced(GOOD))
    async_ = asyncio.run(chat.acomplete(USER, schema=SCHEMA, temperature=0.1, max_tokens=99))
    assert (sync.text, sync.parsed, sync.finish_reason, sync.model) == (
        async_.text,
        async_.parsed,
        async_.finish_reason,
        async_.model,
    )
    assert (sync.usage.tokens_in, sync.usage.tokens_out) == (async_.usage.tokens_in, async_.usage.tokens_out)
    assert server.chat_requests[1] == server.chat_requests[3]
    assert sleeps.delays == [0.5, 0.5]
    server.push(Behaviour.slow(5))
    with pytest.raises(ProviderTimeout):
        asyncio.run(chat_for(server, sleeps, timeout=0.2).acomplete(USER))


def test_concurrency_limit_sync(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    server.push(*[Behaviour.slow(0.1, Behaviour.text("ok"))] * 6)
    chat = chat_for(server, sleeps, concurrency=2)
    threads = [threading.Thread(target=chat.complete, args=(USER,)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(server.requests) == 6 and server.max_in_flight == 2


def test_concurrency_limit_async_across_event_loops(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    chat = chat_for(server, sleeps, concurrency=3)

    async def burst() -> list[str]:
        server.push(*[Behaviour.slow(0.1, Behaviour.text("ok"))] * 6)
        results = await asyncio.gather(*(chat.acomplete(USER) for _ in range(6)))
        return [r.text for r in results]

    assert asyncio.run(burst()) == ["ok"] * 6
    assert asyncio.run(burst()) == ["ok"] * 6  # a second loop gets its own client and semaphore
    assert server.max_in_flight == 3


# -- anthropic --------------------------------------------------------------------------------------------


def test_anthropic_request_and_tool_answer(sleeps: Sleeps) -> None:
    chat = AnthropicChat("claude-x", base_url="http://127.0.0.1:9", api_key="k", retry=sleeps.policy())
    body = chat.build_request([{"role": "system", "content": "Be terse."}, *USER], schema=SCHEMA)
    assert body["system"] == "Be terse." and body["messages"] == USER and body["max_tokens"] == 4096
    assert body["tools"][0]["input_schema"] == SCHEMA and body["tool_choice"]["name"] == "respond"
    payload = {
        "model": "claude-x-2025",
        "content": [{"type": "tool_use", "name": "respond", "input": GOOD}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 11, "output_tokens": 7},
    }
    result = chat.parse_response(payload, SCHEMA, latency_ms=12.0)
    assert result.parsed == GOOD and result.finish_reason == "stop"
    assert (result.usage.tokens_in, result.usage.tokens_out, result.usage.model) == (11, 7, "claude-x-2025")
    with pytest.raises(InvalidModelOutput, match="did not call"):
        chat.parse_response({"content": [{"type": "text", "text": "no"}]}, SCHEMA, latency_ms=1.0)


def test_anthropic_wraps_non_object_schemas_and_prompt_style(sleeps: Sleeps) -> None:
    array = {"type": "array", "items": {"type": "string"}}
    chat = AnthropicChat("c", base_url="http://127.0.0.1:9", retry=sleeps.policy())
    assert chat.build_request(USER, schema=array)["tools"][0]["input_schema"]["properties"]["value"] == array
    tool_use = {"content": [{"type": "tool_use", "name": "respond", "input": {"value": ["a"]}}]}
    assert chat.parse_response(tool_use, array, latency_ms=1.0).parsed == ["a"]
    prompted = AnthropicChat("c", base_url="http://127.0.0.1:9", structured="prompt", retry=sleeps.policy())
    body = prompted.build_request(USER, schema=array)
    assert "tools" not in body and "JSON Schema" in body["system"]
    text = {"content": [{"type": "text", "text": '```json\n["a"]\n```'}], "stop_reason": "end_turn"}
    assert prompted.parse_response(text, array, latency_ms=1.0).parsed == ["a"]


def test_anthropic_over_http_sends_its_headers(server: FakeOpenAIServer, sleeps: Sleeps) -> None:
    root = server.base_url.removesuffix("/v1")
    chat = AnthropicChat("claude-x", base_url=root, api_key="sk-ant-secret", retry=sleeps.policy())
    with pytest.raises(ProviderError, match="404") as caught:
        chat.complete(USER)  # the fake serves no /v1/messages: this checks the wire, not the reply
    request = server.requests[-1]
    assert request.path == "/v1/messages" and request.headers["x-api-key"] == "sk-ant-secret"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "sk-ant-secret" not in str(caught.value) + repr(chat)


# -- shipped fakes ----------------------------------------------------------------------------------------


def test_every_chat_model_satisfies_the_port(sleeps: Sleeps) -> None:
    models = [
        ScriptedChat(),
        FunctionChat(lambda messages: "x"),
        OpenAICompatChat("m", base_url="http://127.0.0.1:9/v1"),
        AnthropicChat("m", api_key="k"),
    ]
    assert all(isinstance(model, ChatModel) for model in models)


def test_scripted_chat_replays_records_and_runs_dry() -> None:
    chat = ScriptedChat('```json\n{"memory": []}\n```', GOOD, RateLimited("slow down"), "not json")
    first = chat.complete(USER, schema=SCHEMA, max_tokens=10)
    assert first.parsed == {"memory": []} and first.usage.calls == 1 and first.usage.tokens_in == 6
    assert asyncio.run(chat.acomplete(USER, schema=SCHEMA)).parsed == GOOD
    with pytest.raises(RateLimited):
        chat.complete(USER)
    with pytest.raises(InvalidModelOutput):
        chat.complete(USER, schema=SCHEMA)
    assert chat.remaining == 0
    with pytest.raises(ScriptExhausted, match="call #5"):
        chat.complete(USER)
    assert [c.schema for c in chat.calls] == [SCHEMA, SCHEMA, None, SCHEMA, None]
    assert chat.calls[0].max_tokens == 10 and chat.calls[0].last_user == USER[0]["content"]


def test_scripted_chat_validates_dict_replies_and_raises_exception_classes() -> None:
    chat = ScriptedChat({"memory": "wrong"}, ProviderTimeout)
    with pytest.raises(InvalidModelOutput):
        chat.complete(USER, schema=SCHEMA)
    with pytest.raises(ProviderTimeout):
        asyncio.run(chat.acomplete(USER))


def test_function_chat_answers_from_the_messages() -> None:
    chat = FunctionChat(lambda messages: {"memory": [{"content": messages[-1]["content"], "owner": "user"}]})
    result = chat.complete(USER, schema=SCHEMA)
    assert result.parsed["memory"][0]["content"] == USER[0]["content"]
    assert asyncio.run(chat.acomplete(USER, schema=SCHEMA)).parsed == result.parsed
    assert len(chat.calls) == 2
