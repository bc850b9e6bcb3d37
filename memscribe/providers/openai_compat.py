"""Adapters for servers that speak the OpenAI HTTP API: chat completions and embeddings.

One request builder and one response parser serve ``complete`` and ``acomplete``; transport, retries and the
concurrency cap live in :mod:`memscribe.providers._http`. Which JSON-constraining field a server understands
is data on its :class:`~memscribe.providers.presets.Preset`; whatever the server does, the reply is parsed
and validated here, so a server that ignores the constraint still cannot hand back unchecked output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memscribe.core.records import Usage
from memscribe.errors import ConfigError, EmbeddingMismatch, ModelOutputError, ProviderError
from memscribe.providers._http import JSONEndpoint, RetryPolicy
from memscribe.providers.chat import (
    ChatMessage,
    ChatResult,
    InvalidModelOutput,
    Schema,
    UsageTotals,
    json_schema_of,
    parse_reply,
    schema_name,
    with_schema_instruction,
)
from memscribe.providers.presets import Preset, StructuredOutput, structured_for

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["OpenAICompatChat", "OpenAIEmbedder", "RetryPolicy"]

_GENERIC = Preset("openai-compatible", base_url="")


def _auth_headers(api_key: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    merged = dict(headers or {})
    if api_key:
        merged["authorization"] = f"Bearer {api_key}"
    return merged


def _is_strict_schema(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts the schema: every object closed, every property required."""
    if isinstance(schema, Mapping):
        properties = schema.get("properties")
        if isinstance(properties, Mapping) and (
            schema.get("additionalProperties") is not False or set(schema.get("required", ())) != set(properties)
        ):
            return False
        return all(_is_strict_schema(value) for value in schema.values())
    if isinstance(schema, list):
        return all(_is_strict_schema(item) for item in schema)
    return True


def _constrain_json_schema(body: dict[str, Any], schema: dict[str, Any]) -> None:
    spec = {"name": schema_name(schema), "schema": schema, "strict": _is_strict_schema(schema)}
    body["response_format"] = {"type": "json_schema", "json_schema": spec}


def _constrain_guided_json(body: dict[str, Any], schema: dict[str, Any]) -> None:
    body["guided_json"] = schema


def _constrain_structured_outputs(body: dict[str, Any], schema: dict[str, Any]) -> None:
    body["structured_outputs"] = {"json": schema}


def _enum_without_type_list(schema: Any) -> Any:
    """The schema with ``type`` dropped beside ``enum`` where ``type`` is a list (``["string", "null"]``).

    llama.cpp's (llama-cpp-python 0.3.36) schema-to-grammar converter reads a list ``type`` before ``enum``
    and turns it into "any string or null", so ``owner`` could come back as any name; the enum alone says
    the same and is kept by the grammar.
    """
    if isinstance(schema, Mapping):
        out = {key: _enum_without_type_list(value) for key, value in schema.items()}
        if "enum" in out and isinstance(out.get("type"), list):
            del out["type"]
        return out
    if isinstance(schema, list):
        return [_enum_without_type_list(item) for item in schema]
    return schema


def _constrain_json_object_schema(body: dict[str, Any], schema: dict[str, Any]) -> None:
    # The grammar carries the shape; the prompt is left alone, since the schema in it would cost tokens.
    body["response_format"] = {"type": "json_object", "schema": _enum_without_type_list(schema)}


def _constrain_json_object(body: dict[str, Any], schema: dict[str, Any]) -> None:
    body["response_format"] = {"type": "json_object"}
    body["messages"] = with_schema_instruction(body["messages"], schema)


def _constrain_prompt(body: dict[str, Any], schema: dict[str, Any]) -> None:
    body["messages"] = with_schema_instruction(body["messages"], schema)


_CONSTRAINTS: dict[StructuredOutput, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    StructuredOutput.JSON_SCHEMA: _constrain_json_schema,
    StructuredOutput.GUIDED_JSON: _constrain_guided_json,
    StructuredOutput.STRUCTURED_OUTPUTS: _constrain_structured_outputs,
    StructuredOutput.JSON_OBJECT_SCHEMA: _constrain_json_object_schema,
    StructuredOutput.JSON_OBJECT: _constrain_json_object,
    StructuredOutput.PROMPT: _constrain_prompt,
}


def _structured_style(value: StructuredOutput | str | None, preset: Preset) -> StructuredOutput:
    # An explicit StructuredOutput is taken as it is; a choice ("json_schema", "none", ...) maps per preset.
    style = value if isinstance(value, StructuredOutput) else structured_for(value, preset)
    if style not in _CONSTRAINTS:
        known = ", ".join(sorted(_CONSTRAINTS))
        raise ConfigError(f"structured-output style {style.value!r} needs another adapter; here: {known}")
    return style


def _message_text(content: Any) -> str:
    """Message content as text; some servers send a list of parts instead of a string."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""


class OpenAICompatChat:
    """A :class:`~memscribe.providers.chat.ChatModel` over ``POST {base_url}/chat/completions``.

    ``preset`` supplies defaults (base URL, structured-output style, quirks); explicit arguments win.
    ``retry`` sets timeouts' and failures' patience; ``concurrency`` caps calls in flight per adapter.
    """

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
        extra_body: Mapping[str, Any] | None = None,
        send_temperature: bool | None = None,
    ) -> None:
        self.preset = preset or _GENERIC
        url = base_url or self.preset.base_url
        if not url:
            raise ConfigError("an OpenAI-compatible chat model needs a base_url, e.g. http://localhost:8000/v1")
        self.model = model
        self.totals = UsageTotals()  # every call's Usage, as this adapter reported it
        self.structured = _structured_style(structured, self.preset)
        self._extra_body = dict(extra_body or {})
        self._send_temperature = self.preset.send_temperature if send_temperature is None else send_temperature
        self._endpoint = JSONEndpoint(
            url,
            label=f"{self.preset.name}:{model}",
            headers=_auth_headers(api_key, headers),
            timeout=timeout,
            retry=retry,
            concurrency=concurrency,
        )

    def __repr__(self) -> str:
        url, preset = self._endpoint.base_url, self.preset.name
        return f"OpenAICompatChat({self.model!r}, base_url={url!r}, preset={preset!r})"

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
            reply = self._endpoint.post_json("/chat/completions", body)
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
            reply = await self._endpoint.apost_json("/chat/completions", body)
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
        """The JSON body for one call: pure, so both paths and tests share it."""
        body: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages], "stream": False}
        if self._send_temperature:
            body["temperature"] = temperature
        if max_tokens is not None:
            body[self.preset.max_tokens_field] = max_tokens
        if schema is not None:
            _CONSTRAINTS[self.structured](body, json_schema_of(schema))
        body.update(self._extra_body)
        return body

    def parse_response(
        self, payload: Mapping[str, Any], schema: Schema | None, *, latency_ms: float = 0.0
    ) -> ChatResult:
        """Turn a chat-completions body into a ChatResult; raises ModelOutputError for unusable output."""
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise ModelOutputError(f"{self._endpoint.label}: the reply has no choices")
        message = choices[0].get("message") or {}
        finish_reason = choices[0].get("finish_reason")
        text = _message_text(message.get("content"))
        if message.get("refusal"):
            raise InvalidModelOutput("the model refused to answer", str(message["refusal"]))
        reported = payload.get("model")
        usage = self.usage_of(payload, latency_ms)
        parsed = parse_reply(text, schema, finish_reason=finish_reason) if schema is not None else None
        return ChatResult(text, parsed, usage, finish_reason, str(reported) if reported else None)

    def usage_of(self, payload: Mapping[str, Any], latency_ms: float = 0.0) -> Usage:
        """What one reply cost, from the server's ``usage`` counts."""
        counts = payload.get("usage") or {}
        counts = counts if isinstance(counts, Mapping) else {}
        return Usage(
            model=str(payload.get("model") or self.model),
            calls=1,
            tokens_in=int(counts.get("prompt_tokens") or 0),
            tokens_out=int(counts.get("completion_tokens") or 0),
            latency_ms=latency_ms,
        )

    def _counted(self, payload: Mapping[str, Any], schema: Schema | None, latency_ms: float) -> ChatResult:
        """Parse a reply and add its cost to :attr:`totals`, also when the output is unusable."""
        return self.totals.counted(
            lambda: self.parse_response(payload, schema, latency_ms=latency_ms),
            lambda: self.usage_of(payload, latency_ms),
        )

    def close(self) -> None:
        """Close the HTTP connections."""
        self._endpoint.close()

    async def aclose(self) -> None:
        """Close the HTTP connections from inside the event loop that used them."""
        await self._endpoint.aclose()

    def __enter__(self) -> OpenAICompatChat:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> OpenAICompatChat:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class OpenAIEmbedder:
    """An :class:`~memscribe.providers.ports.Embedder` over ``POST {base_url}/embeddings``.

    ``dim`` may be given; otherwise the first call discovers it (reading ``dim`` first costs one probe
    call). Vectors are L2-normalised here, since not every server normalises.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        concurrency: int = 4,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError("batch_size must be at least 1")
        self._model = model
        self._dim = dim
        self._batch_size = batch_size
        self._endpoint = JSONEndpoint(
            base_url,
            label=f"embeddings:{model}",
            headers=_auth_headers(api_key, headers),
            timeout=timeout,
            retry=retry,
            concurrency=concurrency,
        )

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self._model!r}, base_url={self._endpoint.base_url!r}, dim={self._dim})"

    @property
    def model_id(self) -> str:
        return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None  # embed() sets it or raises
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed a batch; returns unit vectors of shape (len(texts), dim)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        batches = [
            self._embed_batch(list(texts[i : i + self._batch_size])) for i in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(batches, axis=0)

    def _embed_batch(self, batch: list[str]) -> npt.NDArray[np.float32]:
        body = {"model": self._model, "input": batch, "encoding_format": "float"}
        data = self._endpoint.post_json("/embeddings", body).payload.get("data")
        if not isinstance(data, list) or len(data) != len(batch):
            raise ProviderError(f"{self._endpoint.label}: expected {len(batch)} embeddings in the reply")
        rows = sorted(data, key=lambda item: int(item.get("index", 0)))
        try:
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as error:
            raise ProviderError(f"{self._endpoint.label}: malformed embeddings in the reply") from error
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise ProviderError(f"{self._endpoint.label}: embeddings of unexpected shape {vectors.shape}")
        self._check_dim(vectors.shape[1])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = vectors / np.maximum(norms, np.float32(1e-12))
        return normalised

    def _check_dim(self, found: int) -> None:
        if self._dim is None:
            self._dim = found
        elif found != self._dim:
            raise EmbeddingMismatch(f"{self._model} returned {found}-dimensional vectors, expected {self._dim}")

    def close(self) -> None:
        """Close the HTTP connections."""
        self._endpoint.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
