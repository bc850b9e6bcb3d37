"""HTTP plumbing shared by the chat and embedding adapters.

:class:`JSONEndpoint` posts JSON to one server with a timeout, a concurrency cap, and retries with exponential
backoff and jitter on 429, 408, 5xx and connection failures (honouring ``Retry-After``). The sync and async
paths differ only in how they send and sleep; classifying an outcome and choosing the next delay is shared.
httpx errors are translated here into :mod:`memscribe.errors` classes, so no adapter sees an httpx exception.

Keys live only in the headers handed to httpx; nothing here logs headers, bodies or replies.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import logging
import random
import ssl
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from memscribe.errors import ProviderError, ProviderTimeout, RateLimited

__all__ = ["JSONEndpoint", "JSONReply", "RetryPolicy"]

log = logging.getLogger("memscribe.providers")

_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle costs tens of milliseconds; one context serves every client and thread.
    return httpx.create_ssl_context()


async def _asyncio_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry. ``sleep``/``asleep`` are injectable so tests need not wait."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 20.0
    jitter: float = 0.25  # each delay is shortened by up to this fraction, so clients do not retry in step
    max_retry_after: float = 60.0  # a server asking for a longer wait fails the call at once instead
    retry_timeouts: bool = False  # a read timeout usually means a slow model: retrying multiplies the wait
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)
    asleep: Callable[[float], Awaitable[None]] = field(default=_asyncio_sleep, repr=False, compare=False)

    def backoff(self, attempt: int) -> float:
        """The delay before retry number ``attempt + 1``, without any Retry-After."""
        ceiling = min(self.max_delay, self.base_delay * (2.0**attempt))
        return ceiling * (1.0 - self.jitter * random.random())


@dataclass(frozen=True)
class JSONReply:
    """A successful response body, how long the call took (retries included) and how many attempts it made."""

    payload: dict[str, Any]
    latency_ms: float
    attempts: int


@dataclass(frozen=True)
class _Failure:
    error: ProviderError
    retryable: bool
    retry_after: float | None = None


class JSONEndpoint:
    """POSTs JSON to one base URL; one sync client, and one async client per running event loop."""

    def __init__(
        self,
        base_url: str,
        *,
        label: str,
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        concurrency: int = 4,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.base_url = base_url.rstrip("/")
        self.label = label
        self.retry = retry or RetryPolicy()
        self._client_args: dict[str, Any] = {
            "base_url": self.base_url,
            "headers": {"user-agent": "memscribe", **(headers or {})},
            "timeout": httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            "verify": _tls_context(),
        }
        self._concurrency = concurrency
        self._threads = threading.Semaphore(concurrency)
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None
        # The async client and semaphore belong to the loop that made them; a new loop gets fresh ones.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._aclient: httpx.AsyncClient | None = None
        self._asemaphore: asyncio.Semaphore | None = None

    def __repr__(self) -> str:
        return f"JSONEndpoint({self.label!r}, {self.base_url!r})"

    def post_json(self, path: str, body: Mapping[str, Any]) -> JSONReply:
        """POST and return the decoded JSON reply, retrying per the policy; failures raise ProviderError."""
        # The slot stays held through backoff on purpose: a struggling server should see fewer callers.
        with self._threads:
            started, attempt = time.perf_counter(), 0
            while True:
                outcome = self._send(path, body)
                if isinstance(outcome, dict):
                    return _reply(outcome, started, attempt)
                self.retry.sleep(self._next_delay(outcome, attempt))
                attempt += 1

    async def apost_json(self, path: str, body: Mapping[str, Any]) -> JSONReply:
        """The async form of :meth:`post_json`."""
        client, semaphore = self._async_state()
        async with semaphore:
            started, attempt = time.perf_counter(), 0
            while True:
                outcome: dict[str, Any] | _Failure
                try:
                    response = await client.post(path, json=body)
                except httpx.TransportError as error:
                    outcome = self._transport_failure(error)
                else:
                    outcome = self._read(response)
                if isinstance(outcome, dict):
                    return _reply(outcome, started, attempt)
                await self.retry.asleep(self._next_delay(outcome, attempt))
                attempt += 1

    def close(self) -> None:
        """Close the sync client. An async client is dropped; close it with :meth:`aclose` from its loop."""
        with self._lock:
            client, self._client = self._client, None
            self._aclient = self._loop = self._asemaphore = None
        if client is not None:
            client.close()

    async def aclose(self) -> None:
        """Close the async client of the running loop, and the sync client."""
        client = self._aclient if self._loop is asyncio.get_running_loop() else None
        self.close()
        if client is not None:
            await client.aclose()

    def _send(self, path: str, body: Mapping[str, Any]) -> dict[str, Any] | _Failure:
        try:
            response = self._sync_client().post(path, json=body)
        except httpx.TransportError as error:
            return self._transport_failure(error)
        return self._read(response)

    def _sync_client(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(**self._client_args)
            return self._client

    def _async_state(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._loop is not loop or self._aclient is None or self._asemaphore is None:
                self._loop = loop
                self._aclient = httpx.AsyncClient(**self._client_args)
                self._asemaphore = asyncio.Semaphore(self._concurrency)
            return self._aclient, self._asemaphore

    def _read(self, response: httpx.Response) -> dict[str, Any] | _Failure:
        log.debug("%s: POST %s -> HTTP %d", self.label, response.request.url.path, response.status_code)
        if response.is_success:
            try:
                payload = response.json()
            except ValueError:
                payload = None
            if isinstance(payload, dict):
                return payload
            return _Failure(
                ProviderError(f"{self.label} answered HTTP 200 with a body that is not a JSON object"), False
            )
        return self._status_failure(response)

    def _status_failure(self, response: httpx.Response) -> _Failure:
        status, detail = response.status_code, _error_detail(response)
        message = f"{self.label} answered HTTP {status}: {detail}"
        if status == 429:
            # A spent quota is not a rate limit: waiting will not help.
            retryable = "insufficient_quota" not in detail
            return _Failure(RateLimited(message), retryable, _retry_after(response.headers))
        if status == 408:
            return _Failure(ProviderTimeout(message), True, _retry_after(response.headers))
        return _Failure(ProviderError(message), status in _RETRYABLE_STATUS, _retry_after(response.headers))

    def _transport_failure(self, error: httpx.TransportError) -> _Failure:
        name = type(error).__name__
        if isinstance(error, httpx.ConnectTimeout):
            return _Failure(ProviderTimeout(f"{self.label}: connecting to {self.base_url} timed out"), True)
        if isinstance(error, httpx.TimeoutException):
            failure = ProviderTimeout(f"{self.label}: no answer from {self.base_url} in time ({name})")
            return _Failure(failure, self.retry.retry_timeouts)
        if isinstance(error, httpx.ConnectError):
            return _Failure(ProviderError(f"{self.label}: cannot connect to {self.base_url} ({name})"), True)
        # ReadError, RemoteProtocolError, ...: the server dropped the connection; it may be restarting.
        return _Failure(ProviderError(f"{self.label}: connection to {self.base_url} failed ({name})"), True)

    def _next_delay(self, failure: _Failure, attempt: int) -> float:
        """How long to wait before retrying; raises the failure's error when the call should stop."""
        if not failure.retryable or attempt >= self.retry.max_retries:
            raise failure.error
        delay = self.retry.backoff(attempt)
        if failure.retry_after is not None:
            if failure.retry_after > self.retry.max_retry_after:
                raise failure.error
            delay = max(delay, failure.retry_after)
        log.warning(
            "%s: %s; retry %d of %d in %.2fs",
            self.label,
            type(failure.error).__name__,
            attempt + 1,
            self.retry.max_retries,
            delay,
        )
        return delay


def _reply(payload: dict[str, Any], started: float, attempt: int) -> JSONReply:
    return JSONReply(payload, (time.perf_counter() - started) * 1000.0, attempt + 1)


def _error_detail(response: httpx.Response) -> str:
    """The server's own error message, shortened: enough to act on, too short to echo a prompt back."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        parts = [str(error.get(key)) for key in ("type", "code", "message", "detail") if error.get(key)]
        return ": ".join(parts)[:300] or response.reason_phrase
    return str(error)[:300]


def _retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or a date."""
    if (millis := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
