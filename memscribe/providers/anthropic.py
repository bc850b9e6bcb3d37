"""A native adapter for Anthropic's Messages API (``POST {base_url}/v1/messages``).

Structured output uses one forced tool whose ``input_schema`` is the schema (the API's most reliable way to
get JSON back), or the schema in the system prompt with ``structured="prompt"``. Either way the reply is
validated by the same code as every other adapter. Transport, retries (including 529 "overloaded") and the
concurrency cap are shared with the OpenAI-compatible adapter through :mod:`memscribe.providers._http`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memscribe.core.records import Usage
from memscribe.errors import ConfigError, ModelOutputError
from memscribe.providers._http import JSONEndpoint, RetryPolicy
from memscribe.providers.chat import (
    ChatMessage,
    ChatResult,
    InvalidModelOutput,
    Schema,
    UsageTotals,
    json_schema_of,
    parse_reply,
    validate_reply,
    with_schema_instruction,
)
from memscribe.providers.presets import PRESETS, Preset, StructuredOutput, structured_for

__all__ = ["AnthropicChat", "RetryPolicy"]

API_VERSION = "2023-06-01"
_TOOL = "respond"
_WRAP_KEY = "value"  # tool input must be an object, so other schemas are wrapped in {"value": ...}
# Stop reasons in OpenAI's words, so callers check one vocabulary. tool_use only ever answers our forced tool.
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "stop", "max_tokens": "length"}


def _tool_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    if schema.get("type") == "object":
        return schema, False
    return {"type": "object", "properties": {_WRAP_KEY: schema}, "required": [_WRAP_KEY]}, True


def _split_system(messages: Sequence[Mapping[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Anthropic takes the system prompt as a field, not as a message."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    rest = [{"role": m["role"], "content": m.get("content", "")} for m in messages if m.get("role") != "system"]
    return "\n\n".join(part for part in system if part), rest


class AnthropicChat:
    """A :class:`~memscribe.providers.chat.ChatModel` over the Anthropic Messages API."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        preset: Preset | None = None,
        structured: StructuredOutput | str | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        concurrency: int = 4,
        headers: Mapping[str, str] | None = None,
        default_max_tokens: int = 4096,
        send_temperature: bool | None = None,
    ) -> None:
        self.preset = preset or PRESETS["anthropic"]
        self.structured = (
            structured_for(structured, self.preset) if not isinstance(structured, StructuredOutput) else structured
        )
        if self.structured not in (StructuredOutput.TOOL, StructuredOutput.PROMPT):
            raise ConfigError("the Anthropic adapter supports structured='tool' or 'prompt'")
        self.model = model
        self.totals = UsageTotals()  # every call's Usage, as this adapter reported it
        self._default_max_tokens = default_max_tokens  # the API requires max_tokens on every call
        self._send_temperature = self.preset.send_temperature if send_temperature is None else send_temperature
        auth = {"x-api-key": api_key} if api_key else {}
        self._endpoint = JSONEndpoint(
            base_url or self.preset.base_url,
            label=f"anthropic:{model}",
            headers={"anthropic-version": API_VERSION, **auth, **(headers or {})},
            timeout=timeout,
            retry=retry,
            concurrency=concurrency,
        )

    def __repr__(self) -> str:
        return f"AnthropicChat({self.model!r}, base_url={self._endpoint.base_url!r})"

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Complete a conversation; with ``schema``, ``parsed`` holds the validated JSON reply."""
        body = self.build_request(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)
        try:
            reply = self._endpoint.post_json("/v1/messages", body)
        except Exception:
            self.totals.add(Usage(self.model, calls=1), failed=True)
            raise
        return self._counted(reply.payload, schema, reply.latency_ms)

    async def acomplete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """The async form of :meth:`complete`."""
        body = self.build_request(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)
        try:
            reply = await self._endpoint.apost_json("/v1/messages", body)
        except Exception:
            self.totals.add(Usage(self.model, calls=1), failed=True)
            raise
        return self._counted(reply.payload, schema, reply.latency_ms)

    def build_request(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The JSON body for one call."""
        wire: Sequence[Mapping[str, Any]] = messages
        if schema is not None and self.structured is StructuredOutput.PROMPT:
            wire = with_schema_instruction(messages, json_schema_of(schema))
        system, turns = _split_system(wire)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": turns,
            "max_tokens": max_tokens or self._default_max_tokens,
        }
        if system:
            body["system"] = system
        if self._send_temperature:
            body["temperature"] = temperature
        if schema is not None and self.structured is StructuredOutput.TOOL:
            input_schema, _ = _tool_schema(json_schema_of(schema))
            body["tools"] = [{"name": _TOOL, "description": "Give the answer.", "input_schema": input_schema}]
            body["tool_choice"] = {"type": "tool", "name": _TOOL}
        return body

    def parse_response(
        self, payload: Mapping[str, Any], schema: Schema | None, *, latency_ms: float = 0.0
    ) -> ChatResult:
        """Turn a Messages API body into a ChatResult; raises ModelOutputError for unusable output."""
        blocks = payload.get("content")
        if not isinstance(blocks, list):
            raise ModelOutputError(f"{self._endpoint.label}: the reply has no content")
        text = "".join(str(b.get("text", "")) for b in blocks if isinstance(b, Mapping) and b.get("type") == "text")
        raw_stop = payload.get("stop_reason")
        stop_reason = _FINISH.get(str(raw_stop), raw_stop)
        parsed = None
        if schema is not None and self.structured is StructuredOutput.TOOL:
            parsed, text = self._tool_answer(blocks, schema, text, stop_reason)
        elif schema is not None:
            parsed = parse_reply(text, schema, finish_reason=stop_reason)
        usage = self.usage_of(payload, latency_ms)
        return ChatResult(text, parsed, usage, stop_reason, str(payload["model"]) if payload.get("model") else None)

    def usage_of(self, payload: Mapping[str, Any], latency_ms: float = 0.0) -> Usage:
        """What one reply cost, from the API's ``usage`` counts."""
        counts = payload.get("usage") or {}
        counts = counts if isinstance(counts, Mapping) else {}
        return Usage(
            model=str(payload.get("model") or self.model),
            calls=1,
            tokens_in=int(counts.get("input_tokens") or 0),
            tokens_out=int(counts.get("output_tokens") or 0),
            latency_ms=latency_ms,
        )

    def _counted(self, payload: Mapping[str, Any], schema: Schema | None, latency_ms: float) -> ChatResult:
        """Parse a reply and add its cost to :attr:`totals`, also when the output is unusable."""
        return self.totals.counted(
            lambda: self.parse_response(payload, schema, latency_ms=latency_ms),
            lambda: self.usage_of(payload, latency_ms),
        )

    def _tool_answer(self, blocks: list[Any], schema: Schema, text: str, finish: Any) -> tuple[Any, str]:
        calls = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_use" and b.get("name") == _TOOL]
        if not calls:
            raise InvalidModelOutput("the model did not call the answer tool", text, finish_reason=finish)
        value = calls[0].get("input")
        if _tool_schema(json_schema_of(schema))[1]:
            value = value.get(_WRAP_KEY) if isinstance(value, Mapping) else None
        raw = json.dumps(value, ensure_ascii=False)
        return validate_reply(value, schema, raw_text=raw, finish_reason=finish), raw

    def close(self) -> None:
        """Close the HTTP connections."""
        self._endpoint.close()

    async def aclose(self) -> None:
        """Close the HTTP connections from inside the event loop that used them."""
        await self._endpoint.aclose()

    def __enter__(self) -> AnthropicChat:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> AnthropicChat:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
