"""A local fake OpenAI-compatible server for end-to-end tests, built on the standard library only.

It listens on 127.0.0.1 on a free port, in a background thread, and serves ``POST /v1/chat/completions``,
``POST /v1/embeddings`` and ``GET /v1/models``. Each POST takes the next queued :class:`Behaviour` (a reply,
an HTTP error, a slow answer, a dropped connection); with the queue empty, chat calls go to a responder
callable and embeddings are deterministic hash vectors. Every request is recorded, so tests can assert on
what the client sent (``response_format``, ``guided_json``, headers, ...)::

    with FakeOpenAIServer() as server:
        server.push(Behaviour.error(429, retry_after=0), Behaviour.json({"memory": []}))
        chat = OpenAICompatChat("fake-model", base_url=server.base_url)
        ...
        assert server.chat_requests[-1]["response_format"]["type"] == "json_schema"
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["MALFORMED_MODES", "Behaviour", "FakeOpenAIServer", "RecordedRequest", "fake_vector", "malformed_responder"]

Responder = Callable[[dict[str, Any]], "str | Mapping[str, Any] | list[Any] | Behaviour"]


@dataclass(frozen=True)
class Behaviour:
    """What the server does with one request. Build one with the class methods."""

    kind: str  # "content" | "error" | "drop" | "slow"
    content: str = ""
    finish_reason: str = "stop"
    status_code: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    then: Behaviour | None = None
    completion_tokens: int | None = None

    @classmethod
    def text(cls, text: str, *, finish_reason: str = "stop", completion_tokens: int | None = None) -> Behaviour:
        """Answer with this assistant text."""
        return cls("content", text, finish_reason, completion_tokens=completion_tokens)

    @classmethod
    def json(cls, value: Any, *, completion_tokens: int | None = None) -> Behaviour:
        """Answer with a JSON value as the assistant text."""
        return cls.text(json.dumps(value), completion_tokens=completion_tokens)

    @classmethod
    def fenced(cls, value: Any) -> Behaviour:
        """Answer with prose around a ```json fenced block, as chatty models do."""
        return cls.text(f"Sure! Here it is:\n```json\n{json.dumps(value, indent=2)}\n```\nAnything else?")

    @classmethod
    def truncated(cls, value: Any, *, keep: float = 0.6) -> Behaviour:
        """Answer with the JSON cut short and ``finish_reason="length"``, as when max_tokens runs out."""
        full = json.dumps(value)
        return cls.text(full[: max(1, int(len(full) * keep))], finish_reason="length")

    @classmethod
    def error(cls, status: int, *, message: str = "fake error", retry_after: float | None = None) -> Behaviour:
        """Answer with an HTTP error in OpenAI's error shape, optionally with a Retry-After header."""
        headers = (("Retry-After", f"{retry_after:g}"),) if retry_after is not None else ()
        return cls("error", message, status_code=status, headers=headers)

    @classmethod
    def drop(cls) -> Behaviour:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def slow(cls, seconds: float, then: Behaviour | None = None) -> Behaviour:
        """Wait, then behave as ``then`` (or as the default). Longer than the client's timeout: a timeout."""
        return cls("slow", seconds=seconds, then=then)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any
    headers: Mapping[str, str]


def fake_vector(text: str, dim: int) -> list[float]:
    """A deterministic, not normalised, pseudo-random vector for a text."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values.extend(int.from_bytes(digest[i : i + 4], "big") / 2**31 - 1.0 for i in range(0, 32, 4))
        counter += 1
    return values[:dim]


def _malformed(mode: str, turn: int) -> Behaviour:
    op = {"reason": "fake", "subject": "user", "text": "The user said something."}
    table: dict[str, Behaviour] = {
        "prose": Behaviour.text("Sure! The user seems to like things. Let me know if you need more."),
        "broken_json": Behaviour.text('{"operations": [{"op": "ADD", "text": "unterminated'),
        "wrong_schema": Behaviour.json({"memories": [{"fact": "x"}], "labels": "none"}),
        "unknown_op": Behaviour.json({"operations": [{**op, "op": "MERGE"}], "labels": [{"n": 1, "label": "maybe"}]}),
        "invented_alias": Behaviour.json(
            {
                "operations": [{**op, "op": "UPDATE", "target": 90 + turn}],
                "labels": [{"n": 90 + turn, "label": "update"}],
            }
        ),
        "delete_everything": Behaviour.json(
            {
                "operations": [{**op, "op": "DELETE", "target": n} for n in range(1, 6)],
                "labels": [{"n": n, "label": "correction"} for n in range(1, 6)],
            }
        ),
        "other_subject": Behaviour.json(
            {
                "operations": [{**op, "op": "SUPERSEDE", "target": 1, "subject": "a stranger"}],
                "labels": [{"n": 1, "label": "update"}],
            }
        ),
        "empty_text": Behaviour.json({"operations": [{**op, "op": "ADD", "text": ""}], "labels": []}),
        "truncated": Behaviour.text(
            '{"operations": [{"op": "ADD", "reason": "r", "text": "The user lo', finish_reason="length"
        ),
        "runaway": Behaviour.text('{"operations": [{"op": "ADD", "reason": "' + "again " * 400, finish_reason="length"),
        "empty": Behaviour.json({"operations": [], "labels": []}),
        "bad_dates": Behaviour.json({"operations": [{**op, "op": "ADD", "valid_from": "last Tuesday"}], "labels": []}),
    }
    return table[mode]


MALFORMED_MODES = (
    "prose", "broken_json", "wrong_schema", "unknown_op", "invented_alias", "delete_everything",
    "other_subject", "empty_text", "truncated", "runaway", "empty", "bad_dates",
)  # fmt: skip
"""The bad answers :func:`malformed_responder` cycles through: what weak models were seen to send."""


def malformed_responder(modes: tuple[str, ...] = MALFORMED_MODES) -> Responder:
    """A responder that answers every chat request with the next bad answer from ``modes``, round-robin.

    Each answer is wrong for the pro writer and the hybrid labeller alike (both shapes are in it), so a
    store can be driven through hundreds of adds of bad output to check nothing inconsistent is written."""
    turn = iter(range(10**9))

    def respond(body: dict[str, Any]) -> Behaviour:
        n = next(turn)
        return _malformed(modes[n % len(modes)], n)

    return respond


def _words(text: str) -> int:
    return len(text.split())


class FakeOpenAIServer:
    """The fake server. Use it as a context manager; ``base_url`` ends in ``/v1`` like a real one."""

    def __init__(
        self,
        *,
        model: str = "fake-model",
        embedding_dim: int = 8,
        responder: Responder | None = None,
    ) -> None:
        self.model = model
        self.embedding_dim = embedding_dim
        self.responder: Responder = responder or (lambda body: "ok")
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def chat_requests(self) -> list[Any]:
        """The JSON bodies of every chat-completions request, oldest first."""
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def remaining(self) -> int:
        """How many queued behaviours have not been used."""
        return len(self._queue)

    def push(self, *behaviours: Behaviour | str | Mapping[str, Any] | list[Any]) -> None:
        """Queue behaviours for the next POSTs; a str is a text reply, a dict or list a JSON reply."""
        with self._lock:
            self._queue.extend(self._coerce(b) for b in behaviours)

    def start(self) -> FakeOpenAIServer:
        """Start serving in a background thread; :meth:`stop` ends it. The context manager does both."""
        self._stopping.clear()
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True  # a slow handler must not hold up shutdown
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; slow behaviours still waiting are cut short."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @staticmethod
    def _coerce(item: Behaviour | str | Mapping[str, Any] | list[Any]) -> Behaviour:
        if isinstance(item, Behaviour):
            return item
        return Behaviour.text(item) if isinstance(item, str) else Behaviour.json(item)

    def _next(self) -> Behaviour | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def _enter(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _chat_completion(self, body: dict[str, Any], behaviour: Behaviour) -> dict[str, Any]:
        messages = body.get("messages") or []
        prompt_tokens = sum(_words(str(m.get("content", ""))) for m in messages if isinstance(m, dict))
        completion_tokens = behaviour.completion_tokens
        if completion_tokens is None:
            completion_tokens = _words(behaviour.content)
        return {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": behaviour.content},
                    "finish_reason": behaviour.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        dim = int(body.get("dimensions") or self.embedding_dim)
        data = [{"object": "embedding", "index": i, "embedding": fake_vector(str(t), dim)} for i, t in enumerate(texts)]
        tokens = sum(_words(str(t)) for t in texts)
        return {
            "object": "list",
            "model": self.model,
            "data": data,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _default(self, path: str, body: dict[str, Any]) -> Behaviour | dict[str, Any]:
        if path.endswith("/embeddings"):
            return self._embeddings(body)
        return self._coerce(self.responder(body))


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request stderr line."""

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            models = {
                "object": "list",
                "data": [{"id": self.fake.model, "object": "model", "owned_by": "fake"}],
            }
            self._send_json(200, models)
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        self.fake._enter(RecordedRequest("POST", self.path, body, {k.lower(): v for k, v in self.headers.items()}))
        self._counted = True
        try:
            if not isinstance(body, dict):
                self._send_json(400, {"error": {"message": "body is not a JSON object", "type": "invalid_request"}})
            elif not self.path.rstrip("/").endswith(("/chat/completions", "/embeddings")):
                self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            else:
                self._perform(self.fake._next(), body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer
        finally:
            self._done()

    def _done(self) -> None:
        """The request stops counting as in flight once (before its answer is written: a client that has read
        the answer may send its next request before this thread returns)."""
        if getattr(self, "_counted", False):
            self._counted = False
            self.fake._leave()

    def _perform(self, behaviour: Behaviour | None, body: dict[str, Any]) -> None:
        planned = behaviour if behaviour is not None else self.fake._default(self.path, body)
        if isinstance(planned, dict):
            self._send_json(200, planned)
        elif planned.kind == "slow":
            if not self.fake._stopping.wait(planned.seconds):
                self._perform(planned.then, body)
        elif planned.kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif planned.kind == "error":
            error = {"error": {"message": planned.content, "type": "fake_error", "code": planned.status_code}}
            self._send_json(planned.status_code, error, planned.headers)
        elif self.path.rstrip("/").endswith("/embeddings"):
            self._send_json(500, {"error": {"message": "a chat reply was queued for an embeddings request"}})
        else:
            self._send_json(200, self.fake._chat_completion(body, planned))

    def _send_json(self, status: int, payload: Any, headers: tuple[tuple[str, str], ...] = ()) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self._done()
        self.wfile.write(data)
