"""Structured output as data per server: what each --llm-structured choice sends, and doctor's mode probe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memscribe.cli.main import cli
from memscribe.errors import ConfigError
from memscribe.providers.presets import PRESETS, StructuredOutput, make_chat, structured_for
from memscribe.settings import memory_config, resolve_settings
from memscribe.testing.fake_openai import Behaviour, FakeOpenAIServer

SCHEMA = {"title": "probe", "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
S = StructuredOutput


@pytest.mark.parametrize(
    ("preset", "choice", "style"),
    [
        ("llamacpp", None, S.JSON_OBJECT_SCHEMA),
        ("llamacpp", "json_schema", S.JSON_OBJECT_SCHEMA),  # "under the schema, as this server takes it"
        ("llamacpp", "json_object", S.JSON_OBJECT),
        ("llamacpp", "none", S.PROMPT),
        ("vllm", "json_schema", S.JSON_SCHEMA),
        ("vllm", "guided_json", S.GUIDED_JSON),
        ("sglang", "json_schema", S.JSON_SCHEMA),
        ("ollama", "json_schema", S.JSON_SCHEMA),
        ("openai", "json_schema", S.JSON_SCHEMA),
        ("deepseek", "json_schema", S.JSON_SCHEMA),
        ("deepseek", None, S.JSON_OBJECT),
        ("anthropic", "json_schema", S.TOOL),
        ("anthropic", "none", S.PROMPT),
    ],
)
def test_each_choice_maps_to_the_servers_own_form(preset: str, choice: str | None, style: S) -> None:
    assert structured_for(choice, PRESETS[preset]) is style


def test_an_unknown_choice_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown structured-output style 'xml'"):
        structured_for("xml", PRESETS["vllm"])


@pytest.mark.parametrize(
    ("choice", "response_format", "schema_in_prompt"),
    [
        ("json_schema", {"type": "json_object", "schema": SCHEMA}, False),
        ("json_object", {"type": "json_object"}, True),
        ("none", None, True),
    ],
)
def test_llamacpp_requests_per_choice(choice: str, response_format: object, schema_in_prompt: bool) -> None:
    with FakeOpenAIServer() as server:
        server.push({"a": 1})
        chat = make_chat("llamacpp:q", base_url=server.base_url, structured=choice)
        assert chat.complete([{"role": "user", "content": "hi"}], schema=SCHEMA).parsed == {"a": 1}
        body = server.chat_requests[-1]
    assert body.get("response_format") == response_format
    assert ("JSON Schema" in body["messages"][0]["content"]) is schema_in_prompt


def test_the_flag_and_the_environment_reach_the_adapter() -> None:
    env = {"MEMSCRIBE_LLM": "llamacpp:q", "MEMSCRIBE_LLM_STRUCTURED": "json_object"}
    assert memory_config(resolve_settings({}, env), env).llm_options == {"structured": "json_object"}
    flagged = resolve_settings({"llm_structured": "none"}, env)
    assert flagged.llm_structured.value == "none" and flagged.llm_structured.source == "flag"
    assert memory_config(resolve_settings({}, {}), {}).llm_options == {}


def test_doctor_tries_every_mode_and_names_the_one_that_works(tmp_path: Path) -> None:
    # What llama-cpp-python's server does: OpenAI's json_schema form is a 500, json_object works.
    def respond(body: dict[str, object]) -> Behaviour:
        kind = (body.get("response_format") or {}).get("type")  # type: ignore[union-attr]
        if kind == "json_schema":
            return Behaviour.error(500, message="Input should be 'text' or 'json_object'")
        return Behaviour.json({"city": "Sydney", "moved": True})

    with FakeOpenAIServer(responder=respond) as server:
        base = ["--home", str(tmp_path), "--embedder", "hash", "--json", "--llm", "vllm:q",
                "--llm-base-url", server.base_url]  # fmt: skip
        out = CliRunner().invoke(cli, [*base, "doctor"])
        model = next(c for c in json.loads(out.stdout)["checks"] if c["name"] == "model")
        assert model["verdict"] == "warn" and "use --llm-structured json_object" in model["detail"]
        fixed = CliRunner().invoke(cli, [*base, "--llm-structured", "json_object", "doctor"])
        model = next(c for c in json.loads(fixed.stdout)["checks"] if c["name"] == "model")
        assert model["verdict"] == "ok" and "json_object works (in use)" in model["detail"]
