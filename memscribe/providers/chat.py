"""The chat-model port, its result type, and the JSON handling every adapter and fake shares.

Adapters (OpenAI-compatible, Anthropic) and the shipped fakes all read structured output through
:func:`parse_reply`, so a fenced block, leading prose or a ``<think>`` preamble is tolerated the same way
everywhere, and output that cannot be used raises :class:`InvalidModelOutput` with the raw text attached.

A *schema* is either a JSON Schema mapping or a pydantic model class (anything with ``model_json_schema`` and
``model_validate``). ``ChatResult.parsed`` is always the plain JSON value, validated against the schema.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from memscribe.core.records import Usage
from memscribe.errors import ConfigError, ModelOutputError

__all__ = [
    "ChatMessage",
    "ChatModel",
    "ChatResult",
    "InvalidModelOutput",
    "Schema",
    "UsageTotals",
    "json_schema_of",
    "parse_reply",
    "schema_name",
    "validate_reply",
    "with_schema_instruction",
]

ChatMessage = Mapping[str, Any]
"""One wire message: ``{"role": "system" | "user" | "assistant" | "tool", "content": str, ...}``."""

Schema = Mapping[str, Any] | type[Any]
"""A JSON Schema mapping, or a pydantic model class."""


@dataclass(frozen=True)
class ChatResult:
    """One completion: the text, the validated JSON value when a schema was given, and what it cost."""

    text: str
    parsed: Any = None
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model: str | None = None  # the model name the server reported, which may differ from the one asked for


class UsageTotals:
    """Running totals of the :class:`Usage` of every call an adapter made, kept by the adapter itself.

    ``add`` takes one call's ``Usage`` as the adapter reported it; ``failed`` counts a call that raised (its
    tokens, when the server reported them, are added too). Thread-safe: one adapter may serve several
    threads. ``as_dict`` leaves latency out so that reports built from it are deterministic.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.latency_ms = 0.0
        self.failed = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"UsageTotals({self.as_dict()!r})"

    def add(self, usage: Usage, *, failed: bool = False) -> None:
        with self._lock:
            self.calls += max(usage.calls, 1)
            self.tokens_in += usage.tokens_in
            self.tokens_out += usage.tokens_out
            self.latency_ms += usage.latency_ms
            self.failed += int(failed)

    def counted(self, parse: Callable[[], ChatResult], usage: Callable[[], Usage]) -> ChatResult:
        """``parse()`` a reply and add its cost; when the output is unusable, ``usage()`` is added as failed."""
        try:
            result = parse()
        except ModelOutputError:
            self.add(usage(), failed=True)
            raise
        self.add(result.usage)
        return result

    def as_dict(self) -> dict[str, int]:
        with self._lock:
            return {"calls": self.calls, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                    "failed": self.failed}  # fmt: skip


@runtime_checkable
class ChatModel(Protocol):
    """A chat model. ``complete`` and ``acomplete`` take the same arguments and give the same result."""

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Complete a conversation; with ``schema``, ``parsed`` holds the validated JSON reply."""
        ...

    async def acomplete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """The async form of :meth:`complete`."""
        ...


class InvalidModelOutput(ModelOutputError):
    """The model's output could not be parsed or did not match the schema.

    ``raw_text`` holds what the model said. It is kept out of the message on purpose: model output may quote
    memory content, and exception messages end up in logs.
    """

    def __init__(self, reason: str, raw_text: str, *, finish_reason: str | None = None) -> None:
        hint = ", cut off at max_tokens" if finish_reason == "length" else ""
        super().__init__(f"{reason} ({len(raw_text)} characters of output{hint})")
        self.reason = reason
        self.raw_text = raw_text
        self.finish_reason = finish_reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_invalid_output, (self.reason, self.raw_text, self.finish_reason))


def _rebuild_invalid_output(reason: str, raw_text: str, finish_reason: str | None) -> InvalidModelOutput:
    return InvalidModelOutput(reason, raw_text, finish_reason=finish_reason)


def _is_model_class(schema: object) -> bool:
    return isinstance(schema, type) and hasattr(schema, "model_json_schema") and hasattr(schema, "model_validate")


def json_schema_of(schema: Schema) -> dict[str, Any]:
    """The JSON Schema for a schema argument: the mapping itself, or a pydantic model's generated schema."""
    if _is_model_class(schema):
        generated: dict[str, Any] = schema.model_json_schema()  # type: ignore[union-attr]
        return generated
    if isinstance(schema, Mapping):
        return dict(schema)
    raise ConfigError(f"schema must be a JSON Schema mapping or a pydantic model class, got {type(schema)!r}")


def schema_name(schema: Mapping[str, Any]) -> str:
    """A name for the schema as OpenAI's ``json_schema.name`` wants it: [A-Za-z0-9_-], at most 64 chars."""
    title = str(schema.get("title") or "response")
    return re.sub(r"[^A-Za-z0-9_-]", "_", title)[:64] or "response"


def with_schema_instruction(messages: Sequence[ChatMessage], schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Tell the model the schema in the system message, for servers that cannot constrain decoding.

    The instruction joins an existing leading system message rather than adding a second one, because some
    chat templates reject a system message anywhere but first.
    """
    instruction = (
        "Answer with JSON only: one JSON value that validates against this JSON Schema, "
        "with no prose before or after it.\n" + json.dumps(schema, ensure_ascii=False)
    )
    out = [dict(message) for message in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0].get('content') or ''}\n\n{instruction}".lstrip()
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out


def _strip_think(text: str) -> str:
    """``text`` without its ``<think>…</think>`` blocks, in one pass (a lazy regex rescans to the end from
    every unclosed ``<think>``: quadratic on a long reply)."""
    lower, out, pos = text.lower(), [], 0
    while (start := lower.find("<think>", pos)) >= 0 and (end := lower.find("</think>", start + 7)) >= 0:
        out.append(text[pos:start])
        pos = end + len("</think>")
    out.append(text[pos:])
    return "".join(out)


_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\r?\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_MAX_SCAN_STARTS = 64  # bounds the raw_decode scan over long prose


def _json_candidates(text: str) -> Iterator[Any]:
    """Every JSON value the text plausibly contains, most likely first."""
    decoder = json.JSONDecoder()
    cleaned = _strip_think(text).strip()
    blocks = [cleaned, *(match.group(1).strip() for match in _FENCE.finditer(cleaned))]
    for block in blocks:
        try:
            yield json.loads(block)
        except ValueError:
            continue
    starts = [i for i, char in enumerate(cleaned) if char in "{["][:_MAX_SCAN_STARTS]
    for start in starts:
        try:
            yield decoder.raw_decode(cleaned, start)[0]
        except ValueError:
            continue


def parse_reply(text: str, schema: Schema, *, finish_reason: str | None = None) -> Any:
    """The first JSON value in ``text`` that validates against ``schema``.

    Tolerates code fences, prose around the JSON and reasoning preambles. Raises :class:`InvalidModelOutput`
    when no JSON can be read, or when none of what can be read validates (reporting the first value's errors).
    """
    first_error: InvalidModelOutput | None = None
    for candidate in _json_candidates(text):
        try:
            return validate_reply(candidate, schema, raw_text=text, finish_reason=finish_reason)
        except InvalidModelOutput as error:
            first_error = first_error or error
    if first_error is not None:
        raise first_error
    raise InvalidModelOutput("the model's output contains no readable JSON", text, finish_reason=finish_reason)


def validate_reply(value: Any, schema: Schema, *, raw_text: str = "", finish_reason: str | None = None) -> Any:
    """Check a decoded JSON value against the schema and return it; raise InvalidModelOutput if it fails."""
    if _is_model_class(schema):
        try:
            schema.model_validate(value)  # type: ignore[union-attr]
        except ValueError as error:  # pydantic's ValidationError is a ValueError
            reason = f"output does not validate against {schema.__name__}: {_pydantic_details(error)}"  # type: ignore[union-attr]
            raise InvalidModelOutput(reason, raw_text, finish_reason=finish_reason) from None
        return value
    root = json_schema_of(schema)
    problems = list(_schema_errors(value, root, root, "$"))
    if problems:
        reason = "output does not match the schema: " + "; ".join(problems[:3])
        raise InvalidModelOutput(reason, raw_text, finish_reason=finish_reason)
    return value


def _pydantic_details(error: ValueError) -> str:
    # Only locations and messages: pydantic's own str() quotes the input, which may be memory content.
    errors = getattr(error, "errors", None)
    if not callable(errors):
        return type(error).__name__
    items = errors(include_input=False, include_url=False)
    return "; ".join(f"{'.'.join(map(str, item.get('loc', ())))}: {item.get('msg', '')}" for item in items[:3])


# A deliberately small subset of JSON Schema: what structured-output prompts use in practice.
_TYPE_CHECKS: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


def _resolve(root: Mapping[str, Any], ref: str) -> Mapping[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else ():
        node = node.get(part, {}) if isinstance(node, Mapping) else {}
    return node if isinstance(node, Mapping) else {}


def _schema_errors(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any], path: str) -> Iterator[str]:
    if "$ref" in schema:
        schema = _resolve(root, str(schema["$ref"]))
    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_TYPE_CHECKS.get(name, lambda v: True)(value) for name in names):
            yield f"{path}: expected {'/'.join(names)}"
            return
    if "enum" in schema and value not in schema["enum"]:
        yield f"{path}: not one of {list(schema['enum'])[:8]}"
    if "const" in schema and value != schema["const"]:
        yield f"{path}: not the constant {schema['const']!r}"
    for key in ("anyOf", "oneOf"):
        if key in schema and all(any(_schema_errors(value, sub, root, path)) for sub in schema[key]):
            yield f"{path}: matches none of {key}"
    for sub in schema.get("allOf", ()):
        yield from _schema_errors(value, sub, root, path)
    if isinstance(value, dict):
        yield from _object_errors(value, schema, root, path)
    elif isinstance(value, list):
        yield from _array_errors(value, schema, root, path)


def _object_errors(
    value: dict[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any], path: str
) -> Iterator[str]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in value:
            yield f"{path}: missing required property {name!r}"
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            yield from _schema_errors(item, properties[name], root, f"{path}.{name}")
        elif extra is False:
            yield f"{path}: unexpected property {name!r}"
        elif isinstance(extra, Mapping):
            yield from _schema_errors(item, extra, root, f"{path}.{name}")


def _array_errors(value: list[Any], schema: Mapping[str, Any], root: Mapping[str, Any], path: str) -> Iterator[str]:
    if len(value) < schema.get("minItems", 0):
        yield f"{path}: fewer than {schema['minItems']} items"
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        yield f"{path}: more than {schema['maxItems']} items"
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            yield from _schema_errors(item, items, root, f"{path}[{index}]")
