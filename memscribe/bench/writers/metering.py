"""What a writer's model calls cost: a :class:`MeteredChat` wraps any chat model and counts calls, tokens
and failed calls, so every writer (and the answerer and judge, apart) is costed the same way."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memscribe.providers.chat import ChatMessage, ChatModel, ChatResult, Schema

__all__ = ["CallCount", "MeteredChat"]


@dataclass
class CallCount:
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    failed: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "failed": self.failed}


class MeteredChat:
    """A :class:`~memscribe.providers.chat.ChatModel` that passes every call to ``inner`` and counts it."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.count = CallCount()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MeteredChat({self.inner!r})"

    def _tally(self, result: ChatResult) -> ChatResult:
        with self._lock:
            self.count.calls += 1
            self.count.tokens_in += result.usage.tokens_in
            self.count.tokens_out += result.usage.tokens_out
        return result

    def _failed(self) -> None:
        with self._lock:
            self.count.calls += 1
            self.count.failed += 1

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        try:
            result = self.inner.complete(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)
        except Exception:
            self._failed()
            raise
        return self._tally(result)

    async def acomplete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Schema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        try:
            result = await self.inner.acomplete(messages, schema=schema, temperature=temperature, max_tokens=max_tokens)
        except Exception:
            self._failed()
            raise
        return self._tally(result)

    def __getattr__(self, name: str) -> Any:  # model name and other read-only attributes of the wrapped chat
        return getattr(self.inner, name)
