"""What a writer's model calls cost: a :class:`MeteredChat` wraps any chat model and reports what its calls
cost, so every writer (and the answerer and judge, apart) is costed the same way.

The cost is the providers' own accounting: an adapter that keeps running totals of the ``Usage`` it
reports (``totals``, a :class:`~memscribe.providers.chat.UsageTotals`: the OpenAI-compatible and
Anthropic adapters) is read directly, counted from when the meter was made. A chat model without them
(the shipped fakes, a third-party adapter) has each result's ``Usage`` added to the same kind of totals
here; a call that raises counts as a failed call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memscribe.core.records import Usage
from memscribe.providers.chat import ChatMessage, ChatModel, ChatResult, Schema, UsageTotals

__all__ = ["CallCount", "MeteredChat"]


class CallCount:
    """Calls, tokens in and out, and failed calls, as the difference between a totals object and a baseline."""

    def __init__(self, totals: UsageTotals) -> None:
        self._totals = totals
        self._base = totals.as_dict()

    def as_dict(self) -> dict[str, int]:
        now = self._totals.as_dict()
        return {key: now[key] - self._base[key] for key in now}


class MeteredChat:
    """A :class:`~memscribe.providers.chat.ChatModel` that passes every call to ``inner``; ``count`` is what
    they cost (the adapter's own totals when it keeps them)."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        provider = getattr(inner, "totals", None)
        self._own = not isinstance(provider, UsageTotals)
        totals = UsageTotals() if self._own else provider
        assert isinstance(totals, UsageTotals)
        self._totals = totals
        self.count = CallCount(totals)

    def __repr__(self) -> str:
        return f"MeteredChat({self.inner!r})"

    def _tally(self, result: ChatResult) -> ChatResult:
        if self._own:
            self._totals.add(result.usage)
        return result

    def _failed(self) -> None:
        if self._own:
            self._totals.add(Usage(calls=1), failed=True)

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
