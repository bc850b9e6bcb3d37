"""Model calls as a sans-I/O exchange: writers yield requests, a driver answers them, sync or async.

Every LLM writer is written once, as a generator that yields :class:`ChatRequest` and receives an
:class:`Answer`. :func:`drive` answers with ``chat.complete`` and :func:`adrive` with ``await
chat.acomplete``; nothing else differs between ``propose`` and ``apropose``, so the two cannot drift.

:func:`ask_json` is the one place a structured reply is obtained: it re-validates what the adapter
parsed, sends one repair request with the parse error when the output is unusable, and raises
:class:`~memscribe.errors.ModelOutputError` when the repair fails too. Provider errors (timeouts, 429,
500 after the adapter's own retries) are not caught anywhere here: they reach the engine, which keeps
the episode pending.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from memscribe.core.records import Usage
from memscribe.errors import ModelOutputError
from memscribe.providers.chat import ChatModel, ChatResult, InvalidModelOutput, parse_reply, validate_reply

__all__ = [
    "Answer",
    "ChatRequest",
    "Exchange",
    "RepairBudget",
    "UsageMeter",
    "WriterStats",
    "adrive",
    "ask_json",
    "drive",
    "spread",
]

T = TypeVar("T")

_ECHO_LIMIT = 2000  # characters of a bad answer sent back with the repair request (~500 tokens)


@dataclass(frozen=True)
class RepairBudget:
    """Bounds on the one repair round, so a weak model cannot make an add slow or expensive.

    No repair is asked for when the first answer already took ``after_ms`` or more (the retry would cost as
    much again); a repair gets at most ``max_tokens`` of output, even when the first answer ran out of room.
    """

    max_tokens: int = 2048
    after_ms: float = 60_000.0


@dataclass(frozen=True)
class ChatRequest:
    """One model call a writer wants made."""

    messages: tuple[Mapping[str, Any], ...]
    schema: Mapping[str, Any]
    max_tokens: int | None = None
    temperature: float = 0.0


@dataclass(frozen=True)
class Answer:
    """What came back: a result, or the adapter's parse failure (other errors propagate), and the wall time."""

    result: ChatResult | None
    error: InvalidModelOutput | None
    latency_ms: float


Exchange = Generator[ChatRequest, Answer, T]


def drive(chat: ChatModel, exchange: Exchange[T]) -> T:
    """Run an exchange to completion with synchronous calls."""
    try:
        request = next(exchange)
        while True:
            began = time.perf_counter()
            try:
                result = chat.complete(
                    list(request.messages),
                    schema=request.schema,
                    temperature=request.temperature,
                    max_tokens=request.max_tokens,
                )
                answer = Answer(result, None, _since(began))
            except InvalidModelOutput as error:
                answer = Answer(None, error, _since(began))
            request = exchange.send(answer)
    except StopIteration as done:
        value: T = done.value
        return value


async def adrive(chat: ChatModel, exchange: Exchange[T]) -> T:
    """Run an exchange to completion with awaited calls; the same exchange as :func:`drive`."""
    try:
        request = next(exchange)
        while True:
            began = time.perf_counter()
            try:
                result = await chat.acomplete(
                    list(request.messages),
                    schema=request.schema,
                    temperature=request.temperature,
                    max_tokens=request.max_tokens,
                )
                answer = Answer(result, None, _since(began))
            except InvalidModelOutput as error:
                answer = Answer(None, error, _since(began))
            request = exchange.send(answer)
    except StopIteration as done:
        value: T = done.value
        return value


def _since(began: float) -> float:
    return (time.perf_counter() - began) * 1000.0


@dataclass
class UsageMeter:
    """The cost of one unit of work (a chunk, a protocol step): calls, tokens, latency, repairs."""

    model: str | None = None
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    repairs: int = 0

    def record(self, answer: Answer) -> None:
        self.calls += 1
        self.latency_ms += answer.latency_ms
        if answer.result is not None:
            usage = answer.result.usage
            self.tokens_in += usage.tokens_in
            self.tokens_out += usage.tokens_out
            self.model = answer.result.model or usage.model or self.model

    def usage(self, prompt_version: str) -> Usage:
        return Usage(self.model, prompt_version, self.calls, self.tokens_in, self.tokens_out, self.latency_ms)


@dataclass
class WriterStats:
    """Running totals over every episode a writer has seen; thread-safe, for benchmarks and ``stats``."""

    episodes: int = 0
    chunks: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    repairs: int = 0
    failures: int = 0
    operations: int = 0
    rejections: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, meter: UsageMeter, *, chunks: int = 0, operations: int = 0, rejections: int = 0) -> None:
        with self._lock:
            self.chunks += chunks
            self.calls += meter.calls
            self.tokens_in += meter.tokens_in
            self.tokens_out += meter.tokens_out
            self.latency_ms += meter.latency_ms
            self.repairs += meter.repairs
            self.operations += operations
            self.rejections += rejections

    def count(self, *, episodes: int = 0, failures: int = 0) -> None:
        with self._lock:
            self.episodes += episodes
            self.failures += failures

    def as_dict(self) -> dict[str, float | int]:
        with self._lock:
            return {
                "episodes": self.episodes,
                "chunks": self.chunks,
                "calls": self.calls,
                "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out,
                "latency_ms": round(self.latency_ms, 3),
                "repairs": self.repairs,
                "failures": self.failures,
                "operations": self.operations,
                "rejections": self.rejections,
            }


def spread(usage: Usage, parts: int) -> list[Usage]:
    """Split one call's cost over the operations it produced, so journal sums stay equal to the real cost.

    Integer counts go to the first operations (remainders first); every part keeps model and prompt version.
    """
    if parts <= 0:
        return []

    def share(total: int, i: int) -> int:
        return total // parts + (1 if i < total % parts else 0)

    return [
        Usage(
            usage.model,
            usage.prompt_version,
            share(usage.calls, i),
            share(usage.tokens_in, i),
            share(usage.tokens_out, i),
            usage.latency_ms / parts,
        )
        for i in range(parts)
    ]


def _usable(answer: Answer, schema: Mapping[str, Any]) -> tuple[Any, InvalidModelOutput | None]:
    """The validated JSON value of an answer, or the reason it cannot be used."""
    if answer.error is not None:
        return None, answer.error
    assert answer.result is not None
    result = answer.result
    try:
        # Re-checked here because a ChatModel is a port: a third-party adapter may skip validation.
        value = result.parsed
        if value is None:
            value = parse_reply(result.text, schema, finish_reason=result.finish_reason)
        return validate_reply(value, schema, raw_text=result.text, finish_reason=result.finish_reason), None
    except InvalidModelOutput as error:
        return None, error


def ask_json(
    messages: Sequence[Mapping[str, Any]],
    schema: Mapping[str, Any],
    meter: UsageMeter,
    *,
    repair: str,
    max_tokens: int | None = None,
    bounds: RepairBudget | None = None,
) -> Exchange[Any]:
    """Ask for a JSON value; one repair round (``repair`` formatted with ``error``) within ``bounds``; then
    ModelOutputError."""
    bounds = bounds or RepairBudget()
    answer = yield ChatRequest(tuple(messages), schema, max_tokens)
    meter.record(answer)
    value, error = _usable(answer, schema)
    if error is None:
        return value
    if answer.latency_ms >= bounds.after_ms:
        raise ModelOutputError(
            f"the model's output was unusable and the call took {answer.latency_ms / 1000:.0f} s, too long to "
            f"ask again: {error.reason}"
        ) from error
    # Output cut off at max_tokens gets room to finish on the retry; anything else gets the same budget.
    budget = max_tokens * 2 if max_tokens and error.finish_reason == "length" else max_tokens
    budget = min(budget, bounds.max_tokens) if budget else bounds.max_tokens
    retry = (
        *messages,
        {"role": "assistant", "content": error.raw_text[:_ECHO_LIMIT]},
        {"role": "user", "content": repair.format(error=error.reason)},
    )
    answer = yield ChatRequest(retry, schema, budget)
    meter.record(answer)
    meter.repairs += 1
    value, second = _usable(answer, schema)
    if second is None:
        return value
    raise ModelOutputError(
        f"the model's output was unusable twice (after one repair request): {second.reason}"
    ) from second
