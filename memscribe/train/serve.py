"""A local OpenAI-compatible endpoint over transformers, for a trained (or base) model on a machine with no
model server: ``memscribe train serve``, and what ``memscribe train eval`` starts.

Only what the ``pro`` writer and the benchmarks use is served: ``GET /v1/models`` and
``POST /v1/chat/completions`` (no streaming, no tools). Decoding is greedy, so answers are reproducible;
``response_format`` is accepted and not enforced (the pro decoder validates the answer itself, as it does for
any server without constrained decoding). Several models can be served at once, chosen by the request's
``model`` field. Requests are answered one at a time. The server binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LocalModels", "serve", "serving"]


class LocalModels:
    """Named (model, tokenizer) pairs answering chat requests greedily, one at a time."""

    def __init__(self, models: Mapping[str, tuple[Any, Any]], *, max_new_tokens: int = 512) -> None:
        if not models:
            raise ValueError("serve at least one model")
        self.models = dict(models)
        self.max_new_tokens = max_new_tokens
        self.lock = threading.Lock()

    def complete(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """An OpenAI chat completion for ``body``; a :class:`ValueError` names what is wrong with it."""
        name = str(body.get("model") or next(iter(self.models)))
        if name not in self.models:
            raise ValueError(f"unknown model {name!r}; served: {', '.join(self.models)}")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list")
        prompt = [{"role": str(m.get("role")), "content": str(m.get("content") or "")} for m in messages]
        asked = body.get("max_completion_tokens") or body.get("max_tokens") or self.max_new_tokens
        limit = max(1, min(int(asked), self.max_new_tokens))
        with self.lock:
            text, used, finished = _generate(*self.models[name], prompt, limit)
        return {
            "id": f"chatcmpl-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": name,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop" if finished else "length",
                }
            ],
            "usage": {"prompt_tokens": used[0], "completion_tokens": used[1], "total_tokens": sum(used)},
        }


def _generate(
    model: Any, tokenizer: Any, prompt: list[dict[str, str]], limit: int
) -> tuple[str, tuple[int, int], bool]:
    import torch

    from memscribe.train.generation import prompt_ids

    ids = torch.tensor([prompt_ids(tokenizer, prompt)], device=model.device)
    model.eval()
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=limit, do_sample=False,
                             pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)  # fmt: skip
    new = out[0, ids.shape[1] :]
    finished = len(new) < limit or int(new[-1]) == tokenizer.eos_token_id
    return str(tokenizer.decode(new, skip_special_tokens=True)), (int(ids.shape[1]), len(new)), finished


def _handler(models: LocalModels) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: request bodies are not logged

        def _send(self, status: int, payload: Mapping[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            self._send(200, {"object": "list", "data": [{"id": n, "object": "model"} for n in models.models]})

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("the body must be a JSON object")
                if body.get("stream"):
                    raise ValueError("streaming is not served")
                self._send(200, models.complete(body))
            except (ValueError, TypeError) as error:
                self._send(400, {"error": {"message": str(error), "type": "invalid_request_error"}})

    return Handler


def serve(models: LocalModels, *, host: str = "127.0.0.1", port: int = 18082) -> ThreadingHTTPServer:
    """A server for ``models`` bound to ``host:port`` (port 0: any free port); call ``serve_forever``."""
    return ThreadingHTTPServer((host, port), _handler(models))


@contextmanager
def serving(models: LocalModels, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """``models`` served in a background thread for the block; yields the base URL (``http://…/v1``)."""
    server = serve(models, host=host, port=port)
    thread = threading.Thread(target=server.serve_forever, name="memscribe-train-serve", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
