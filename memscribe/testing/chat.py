"""Fake chat models: :class:`ScriptedChat` plays queued replies, :class:`FunctionChat` asks a callable.

Both implement :class:`~memscribe.providers.chat.ChatModel` (sync and async), record every call, and read
structured replies with the same parser as the real adapters: a scripted string in a code fence parses, a
malformed one raises :class:`~memscribe.providers.chat.InvalidModelOutput`, exactly as over the wire.

A reply is one of:

* ``str``: the model's text (parsed against the schema, if the call gave one);
* ``dict`` / ``list``: a JSON value, sent as its JSON text;
* a :class:`~memscribe.providers.chat.ChatResult`: returned as it is;
* an exception instance or class: raised, e.g. ``RateLimited("slow down")``.
"""

from __future__ import annotations

import abc
import asyncio
import json
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memscribe.core.records import Usage
from memscribe.providers.chat import ChatMessage, ChatResult, Schema, parse_reply, validate_reply

__all__ = ["ChatCall", "FunctionChat", "Reply", "ScriptExhausted", "ScriptedChat"]

Reply = str | Mapping[str, Any] | list[Any] | ChatResult | BaseException | type[BaseException]


@dataclass(frozen=True)
class ChatCall:
    """One recorded call: what the code under test asked the model."""

    messages: tuple[dict[str, Any], ...]
    schema: Schema | None
    temperature: float
    max_tokens: int | None

    @property
    def last_user(self) -> str:
        """The content of the last user message, or an empty string."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content", "")) if users else ""


class ScriptExhausted(AssertionError):
    """A ScriptedChat was called with no reply left. Not a MemscribeError, so no error handler hides it."""


def _words(text: str) -> int:
    return len(text.split())


def _result_for(reply: Reply, call: ChatCall, model: str) -> ChatResult:
    if isinstance(reply, BaseException) or (isinstance(reply, type) and issubclass(reply, BaseException)):
        raise reply
    if isinstance(reply, ChatResult):
        return reply
    if isinstance(reply, str):
        text = reply
        parsed = parse_reply(text, call.schema) if call.schema is not None else None
    else:
        value = dict(reply) if isinstance(reply, Mapping) else reply
        text = json.dumps(value, ensure_ascii=False)
        parsed = validate_reply(value, call.schema, raw_text=text) if call.schema is not None else None
    prompt_words = sum(_words(str(m.get("content", ""))) for m in call.messages)
    usage = Usage(model=model, calls=1, tokens_in=prompt_words, tokens_out=_words(text))
    return ChatResult(text, parsed, usage, "stop", model)


class _RecordingChat(abc.ABC):
    """Shared by the fakes: records calls, turns a reply into a result, and makes async mirror sync."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.calls: list[ChatCall] = []
        self._lock = threading.Lock()

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Record the call and answer it."""
        call = ChatCall(tuple(dict(m) for m in messages), schema, temperature, max_tokens)
        with self._lock:
            self.calls.append(call)
        return _result_for(self._next_reply(call), call, self.model)

    async def acomplete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """The async form of :meth:`complete`; yields to the loop once, like a real call would."""
        await asyncio.sleep(0)
        return self.complete(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)

    @abc.abstractmethod
    def _next_reply(self, call: ChatCall) -> Reply: ...


class ScriptedChat(_RecordingChat):
    """Answers each call with the next queued reply; ``calls`` records what was asked.

    >>> chat = ScriptedChat({"memory": []}, "plain text")
    >>> chat.complete([{"role": "user", "content": "hi"}]).text
    '{"memory": []}'
    """

    def __init__(self, *replies: Reply, model: str = "scripted") -> None:
        super().__init__(model)
        self._queue: deque[Reply] = deque(replies)

    def push(self, *replies: Reply) -> None:
        """Queue more replies."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def remaining(self) -> int:
        """How many queued replies have not been used."""
        return len(self._queue)

    def _next_reply(self, call: ChatCall) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        raise ScriptExhausted(
            f"ScriptedChat({self.model!r}) has no reply left for call #{len(self.calls)}; "
            "queue one per expected model call with ScriptedChat(...) or push()"
        )


class FunctionChat(_RecordingChat):
    """Answers each call with ``fn(messages)``: a string, a JSON value, or an exception raised from it."""

    def __init__(self, fn: Callable[[list[dict[str, Any]]], Reply], *, model: str = "function") -> None:
        super().__init__(model)
        self._fn = fn

    def _next_reply(self, call: ChatCall) -> Reply:
        return self._fn([dict(m) for m in call.messages])
