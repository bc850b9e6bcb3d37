"""Provider presets as data, ``"provider:model"`` spec strings, and the :func:`make_chat` factory.

A preset holds what differs between servers that speak the same wire protocol: where they usually listen,
which environment variable an application should read the key from (the library itself never reads the
environment), and how the server can be made to answer in JSON. Adding a provider means adding a row here,
not a branch in an adapter.

Importing this module does not import httpx; :func:`make_chat` loads the adapter it needs.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from memscribe.errors import ConfigError

if TYPE_CHECKING:
    from memscribe.providers.chat import ChatModel

__all__ = [
    "PRESETS",
    "STRUCTURED_CHOICES",
    "Preset",
    "StructuredOutput",
    "Wire",
    "make_chat",
    "parse_spec",
    "structured_for",
]


class StructuredOutput(enum.StrEnum):
    """How a server is asked for JSON that follows a schema."""

    JSON_SCHEMA = "json_schema"  # response_format {type: json_schema}: OpenAI, vLLM, SGLang, Ollama ≥0.5, ...
    GUIDED_JSON = "guided_json"  # vLLM before 0.12 and forks of it: a top-level "guided_json"
    STRUCTURED_OUTPUTS = "structured_outputs"  # vLLM ≥0.10.2: {"structured_outputs": {"json": schema}}
    JSON_OBJECT_SCHEMA = "json_object_schema"  # llama.cpp: response_format {type: json_object, schema}
    JSON_OBJECT = "json_object"  # response_format {type: json_object}, with the schema given in the prompt
    PROMPT = "prompt"  # nothing server-side: the schema is given in the prompt only
    TOOL = "tool"  # Anthropic: one forced tool whose input_schema is the schema


class Wire(enum.StrEnum):
    OPENAI = "openai"  # POST {base_url}/chat/completions
    ANTHROPIC = "anthropic"  # POST {base_url}/v1/messages


@dataclass(frozen=True)
class Preset:
    """What one provider needs. ``api_key_env`` is only a name for applications to read; never a key."""

    name: str
    base_url: str
    api_key_env: str | None = None
    structured: StructuredOutput = StructuredOutput.JSON_SCHEMA
    wire: Wire = Wire.OPENAI
    needs_api_key: bool = False
    max_tokens_field: str = "max_tokens"
    send_temperature: bool = True
    notes: str = ""


_S = StructuredOutput

PRESETS: Mapping[str, Preset] = MappingProxyType(
    {
        preset.name: preset
        for preset in (
            Preset(
                "vllm",
                "http://localhost:8000/v1",
                "VLLM_API_KEY",
                notes="response_format json_schema works on every current vLLM; pass "
                "structured='guided_json' for pre-0.12 forks that only read guided_json. "
                "Serves a self-hosted Hy-Memory-30B-A3B.",
            ),
            Preset(
                "openai-compatible",
                "http://localhost:8000/v1",
                None,
                notes="any server speaking OpenAI's chat API; name it with --llm-base-url. Its key, if it "
                "needs one, comes only from MEMSCRIBE_LLM_API_KEY.",
            ),
            Preset("sglang", "http://localhost:30000/v1", "SGLANG_API_KEY"),
            Preset(
                "ollama",
                "http://localhost:11434/v1",
                "OLLAMA_API_KEY",
                notes="Ollama's /v1 endpoint maps response_format json_schema onto its native `format` "
                "field (Ollama ≥0.5); a top-level `format` would be ignored there.",
            ),
            Preset("lmstudio", "http://localhost:1234/v1", "LMSTUDIO_API_KEY"),
            Preset(
                "llamacpp",
                "http://localhost:8080/v1",
                "LLAMA_API_KEY",
                _S.JSON_OBJECT_SCHEMA,
                notes="llama-cpp-python's server rejects response_format json_schema with HTTP 500 and takes "
                "{type: json_object, schema} (a grammar built from the schema); llama.cpp's own llama-server "
                "takes the same form. Requests are served one at a time.",
            ),
            Preset(
                "openai",
                "https://api.openai.com/v1",
                "OPENAI_API_KEY",
                needs_api_key=True,
                max_tokens_field="max_completion_tokens",  # reasoning models reject max_tokens
            ),
            Preset("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", needs_api_key=True),
            Preset(
                "deepseek",
                "https://api.deepseek.com/v1",
                "DEEPSEEK_API_KEY",
                _S.JSON_OBJECT,
                needs_api_key=True,
                notes="json_object mode only; it requires the word 'json' in the prompt, which the schema "
                "instruction supplies",
            ),
            Preset(
                "hunyuan",
                "https://api.hunyuan.cloud.tencent.com/v1",
                "HUNYUAN_API_KEY",
                _S.PROMPT,
                needs_api_key=True,
                notes="the hosted API; a self-hosted Hy-Memory model is served by the vllm preset",
            ),
            Preset(
                "anthropic",
                "https://api.anthropic.com",
                "ANTHROPIC_API_KEY",
                _S.TOOL,
                wire=Wire.ANTHROPIC,
                needs_api_key=True,
            ),
        )
    }
)


_SCHEMA_STYLES = frozenset({_S.JSON_SCHEMA, _S.GUIDED_JSON, _S.STRUCTURED_OUTPUTS, _S.JSON_OBJECT_SCHEMA, _S.TOOL})

STRUCTURED_CHOICES = ("json_schema", "json_object", "none")
"""What ``--llm-structured`` / ``MEMSCRIBE_LLM_STRUCTURED`` offer: the three things a person can tell apart.

``json_schema`` is "decode under the schema, in the form this server takes" (llama.cpp's json_object +
schema, vLLM's and OpenAI's response_format json_schema, Anthropic's forced tool); ``json_object`` is
"any JSON, with the schema in the prompt"; ``none`` sends nothing but the prompt. Any
:class:`StructuredOutput` value (``guided_json``, ...) is accepted too, for servers that need exactly it.
"""


def structured_for(choice: str | None, preset: Preset) -> StructuredOutput:
    """The wire style for a user's choice on ``preset``; ``None`` or ``""`` keeps the preset's default."""
    if not choice:
        return preset.structured
    value = choice.strip().lower()
    if value == "json_schema":
        return preset.structured if preset.structured in _SCHEMA_STYLES else _S.JSON_SCHEMA
    if value == "none":
        return _S.PROMPT
    try:
        return StructuredOutput(value)
    except ValueError:
        known = ", ".join([*STRUCTURED_CHOICES, *(s.value for s in StructuredOutput)])
        raise ConfigError(f"unknown structured-output style {choice!r}; known: {known}") from None


def parse_spec(spec: str) -> tuple[Preset, str]:
    """Split ``"provider:model"`` into its preset and model name.

    Only the first colon separates, so Ollama tags survive: ``"ollama:qwen3:8b"`` → (ollama, ``"qwen3:8b"``).
    """
    provider, sep, model = spec.partition(":")
    provider, model = provider.strip().lower(), model.strip()
    if not sep or not model:
        raise ConfigError(f"model spec {spec!r} must look like 'provider:model', e.g. 'vllm:Qwen/Qwen3-8B'")
    preset = PRESETS.get(provider)
    if preset is None:
        known = ", ".join(sorted(PRESETS))
        raise ConfigError(f"unknown model provider {provider!r} in {spec!r}; known providers: {known}")
    return preset, model


def make_chat(spec: str, *, base_url: str | None = None, api_key: str | None = None, **opts: Any) -> ChatModel:
    """Build the chat adapter for a ``"provider:model"`` spec.

    ``opts`` go to the adapter (``timeout``, ``retry``, ``concurrency``, ``structured``, ``headers``, ...).
    A provider that needs a key and is given none is refused here, before any request is made.
    """
    preset, model = parse_spec(spec)
    if preset.needs_api_key and not api_key:
        raise ConfigError(
            f"{preset.name} needs an API key: pass api_key= (applications read it from {preset.api_key_env})"
        )
    if preset.wire is Wire.ANTHROPIC:
        from memscribe.providers.anthropic import AnthropicChat

        return AnthropicChat(model, base_url=base_url, api_key=api_key, **opts)
    from memscribe.providers.openai_compat import OpenAICompatChat

    return OpenAICompatChat(model, base_url=base_url, api_key=api_key, preset=preset, **opts)
