"""The writer protocols a training row may be written in, and a chat tap that records or answers their calls.

``pro`` is memscribe's own protocol (one call per chunk, :class:`~memscribe.write.llm.ProWriter`); ``mem0``
and ``hy`` are the mem0 and Hy-Memory protocols of :mod:`memscribe.write.llm.protocols` (extract, then
reconcile against the retrieved memories; their prompts and schemas live in
:mod:`memscribe.write.prompts.mem0_en` and :mod:`~.hy_en`, reused here, never copied). A protocol's rows are
the requests its writer really sent and the teacher's answers to them, so a model trained on them is served
as that writer with no other change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memscribe.errors import ConfigError
from memscribe.providers.chat import ChatMessage, ChatModel, ChatResult, InvalidModelOutput, Schema, parse_reply
from memscribe.testing.chat import FunctionChat
from memscribe.write.llm import make_llm_writer
from memscribe.write.ports import Writer

__all__ = ["PROTOCOLS", "Call", "Tap", "check_protocols", "parse_answer", "protocol_writer", "writer_name"]

PROTOCOLS = ("pro", "mem0", "hy")
_WRITERS = {"pro": "pro", "mem0": "mem0-protocol", "hy": "hy-protocol"}


def check_protocols(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` checked against :data:`PROTOCOLS` (a clear error for an unknown one)."""
    unknown = [n for n in names if n not in PROTOCOLS]
    if unknown or not names:
        raise ConfigError(f"unknown protocol {', '.join(unknown) or '(none)'}; known: {', '.join(PROTOCOLS)}")
    return tuple(dict.fromkeys(names))


def writer_name(protocol: str) -> str:
    """The engine's writer name for ``protocol`` (``mem0`` → ``mem0-protocol``)."""
    check_protocols([protocol])
    return _WRITERS[protocol]


def protocol_writer(protocol: str, chat: ChatModel, *, prompt_style: str = "full") -> Writer:
    """The writer of ``protocol`` over ``chat``, judged as written (no lite fallback, no chunk splitting);
    ``prompt_style="compact"`` gives ``pro`` its short prompt for small models."""
    if protocol == "pro":
        return make_llm_writer("pro", chat, max_messages=10_000, max_chunk_tokens=1_000_000, fallback=False,
                               prompt=prompt_style)  # fmt: skip
    return make_llm_writer(writer_name(protocol), chat)


def parse_answer(text: str, schema: Schema | None) -> Any | None:
    """``text`` parsed against the call's ``schema``, or None when it does not parse."""
    if schema is None:
        return None
    try:
        return parse_reply(text, schema)
    except InvalidModelOutput:
        return None


@dataclass(frozen=True)
class Call:
    """One request a protocol's writer sent, with the schema it asked for and the text that answered it."""

    messages: tuple[dict[str, Any], ...]
    schema: Schema | None
    text: str


@dataclass
class Tap:
    """A chat model that records every call; the call at index ``at`` (and its repairs) gets ``policy``'s text
    instead of ``inner``'s answer, so a rollout answers one step of a protocol and the teacher the others."""

    inner: ChatModel
    policy: str | None = None
    at: int = -1
    model: str = "tap"
    calls: list[Call] = field(default_factory=list)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        ours = self.policy is not None and (len(self.calls) == self.at or self._repairing(messages))
        if ours:
            text = self.policy or ""
            result = FunctionChat(lambda _: text, model="policy").complete(messages, schema=schema)
        else:
            result = self.inner.complete(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)
        self.calls.append(Call(tuple(dict(m) for m in messages), schema, result.text))
        return result

    async def acomplete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        return self.complete(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)

    def _repairing(self, messages: Sequence[ChatMessage]) -> bool:
        """A repair round of the policy's call: the policy's request, extended with its answer and a retry."""
        if len(self.calls) <= self.at or self.at < 0:
            return False
        first = self.calls[self.at].messages
        return len(messages) > len(first) and tuple(dict(m) for m in messages[: len(first)]) == first
