"""The fake OpenAI-compatible server, seen from a plain HTTP client, and the embeddings adapter against it."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import numpy as np
import pytest

from memscribe.errors import EmbeddingMismatch, ProviderError
from memscribe.providers.openai_compat import OpenAIEmbedder, RetryPolicy
from memscribe.providers.ports import Embedder
from memscribe.testing.fake_openai import Behaviour, FakeOpenAIServer, fake_vector

CHAT = {"model": "m", "messages": [{"role": "user", "content": "one two three"}]}
NO_WAIT = RetryPolicy(base_delay=0.0, sleep=lambda seconds: None)


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer(embedding_dim=16) as fake:
        yield fake


def post(server: FakeOpenAIServer, path: str, body: Any, timeout: float = 5.0) -> httpx.Response:
    return httpx.post(f"{server.base_url}{path}", json=body, timeout=timeout)


def content(response: httpx.Response) -> str:
    return str(response.json()["choices"][0]["message"]["content"])


def test_listens_on_loopback_and_lists_its_model(server: FakeOpenAIServer) -> None:
    assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    models = httpx.get(f"{server.base_url}/models").json()
    assert models["data"][0]["id"] == "fake-model"
    assert httpx.get(f"{server.base_url}/nothing").status_code == 404


def test_default_responder_and_usage(server: FakeOpenAIServer) -> None:
    response = post(server, "/chat/completions", CHAT)
    assert content(response) == "ok"
    assert response.json()["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}


def test_custom_responder_sees_the_request_body() -> None:
    with FakeOpenAIServer(responder=lambda body: {"echo": body["messages"][-1]["content"]}) as fake:
        assert json.loads(content(post(fake, "/chat/completions", CHAT))) == {"echo": "one two three"}


def test_queued_replies_come_in_order_then_the_default(server: FakeOpenAIServer) -> None:
    server.push("plain", {"a": 1}, Behaviour.fenced({"b": 2}), Behaviour.truncated({"c": "x" * 40}))
    replies = [post(server, "/chat/completions", CHAT) for _ in range(5)]
    assert content(replies[0]) == "plain"
    assert json.loads(content(replies[1])) == {"a": 1}
    assert "```json" in content(replies[2]) and content(replies[2]).startswith("Sure!")
    assert replies[3].json()["choices"][0]["finish_reason"] == "length"
    with pytest.raises(ValueError):
        json.loads(content(replies[3]))
    assert content(replies[4]) == "ok" and server.remaining == 0


def test_errors_carry_status_retry_after_and_openai_error_shape(server: FakeOpenAIServer) -> None:
    server.push(Behaviour.error(429, retry_after=2, message="slow down"), Behaviour.error(500))
    limited = post(server, "/chat/completions", CHAT)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert limited.json()["error"]["message"] == "slow down"
    assert post(server, "/chat/completions", CHAT).status_code == 500


def test_drop_and_slow(server: FakeOpenAIServer) -> None:
    server.push(Behaviour.drop(), Behaviour.slow(2, Behaviour.text("late")), Behaviour.slow(0.05))
    with pytest.raises(httpx.RemoteProtocolError):
        post(server, "/chat/completions", CHAT)
    with pytest.raises(httpx.ReadTimeout):
        post(server, "/chat/completions", CHAT, timeout=0.2)
    assert content(post(server, "/chat/completions", CHAT)) == "ok"  # slow with no `then` uses the default


def test_records_requests_with_bodies_and_headers(server: FakeOpenAIServer) -> None:
    body = {**CHAT, "response_format": {"type": "json_object"}}
    httpx.post(f"{server.base_url}/chat/completions", json=body, headers={"Authorization": "Bearer k"})
    request = server.requests[-1]
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer k"
    assert server.chat_requests == [body]


def test_bad_bodies_and_misplaced_replies_are_reported(server: FakeOpenAIServer) -> None:
    assert httpx.post(f"{server.base_url}/chat/completions", content=b"{nope").status_code == 400
    server.push("a chat reply")
    assert post(server, "/embeddings", {"model": "e", "input": ["x"]}).status_code == 500


def test_embeddings_are_deterministic_and_sized(server: FakeOpenAIServer) -> None:
    reply = post(server, "/embeddings", {"model": "e", "input": ["alpha", "beta"]}).json()
    assert [item["index"] for item in reply["data"]] == [0, 1]
    assert reply["data"][0]["embedding"] == fake_vector("alpha", 16)
    assert reply["data"][0]["embedding"] != reply["data"][1]["embedding"]
    single = post(server, "/embeddings", {"model": "e", "input": "alpha", "dimensions": 40}).json()
    assert len(single["data"][0]["embedding"]) == 40 and single["usage"]["prompt_tokens"] == 1


def test_stops_promptly_with_a_slow_request_pending() -> None:
    fake = FakeOpenAIServer().start()
    fake.push(Behaviour.slow(30))
    with pytest.raises(httpx.ReadTimeout):
        post(fake, "/chat/completions", CHAT, timeout=0.1)
    started = time.perf_counter()
    fake.stop()
    assert time.perf_counter() - started < 2  # did not wait out the 30 s


# -- OpenAIEmbedder ---------------------------------------------------------------------------------------


def test_embedder_returns_unit_vectors_and_discovers_dim(server: FakeOpenAIServer) -> None:
    embedder = OpenAIEmbedder("fake-embed", base_url=server.base_url, api_key="k", retry=NO_WAIT)
    assert isinstance(embedder, Embedder) and embedder.model_id == "fake-embed"
    vectors = embedder.embed(["alpha", "beta", "alpha"])
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.array_equal(vectors[0], vectors[2])
    assert embedder.dim == 16 and embedder.embed([]).shape == (0, 16)
    assert server.requests[-1].headers["authorization"] == "Bearer k"


def test_embedder_batches_and_keeps_order(server: FakeOpenAIServer) -> None:
    embedder = OpenAIEmbedder("e", base_url=server.base_url, batch_size=2, retry=NO_WAIT)
    texts = [f"text {i}" for i in range(5)]
    vectors = embedder.embed(texts)
    expected = np.asarray([fake_vector(t, 16) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)
    assert [len(r.body["input"]) for r in server.requests] == [2, 2, 1]


def test_embedder_probes_for_dim_when_asked_first(server: FakeOpenAIServer) -> None:
    embedder = OpenAIEmbedder("e", base_url=server.base_url, retry=NO_WAIT)
    assert embedder.dim == 16 and len(server.requests) == 1


def test_embedder_rejects_a_dimension_change(server: FakeOpenAIServer) -> None:
    embedder = OpenAIEmbedder("e", base_url=server.base_url, dim=32, retry=NO_WAIT)
    with pytest.raises(EmbeddingMismatch, match="16-dimensional"):
        embedder.embed(["x"])


def test_embedder_retries_then_fails_with_provider_error(server: FakeOpenAIServer) -> None:
    embedder = OpenAIEmbedder("e", base_url=server.base_url, retry=NO_WAIT)
    server.push(Behaviour.error(503))
    assert embedder.embed(["x"]).shape == (1, 16)
    server.push(*[Behaviour.error(500)] * 4)
    with pytest.raises(ProviderError):
        embedder.embed(["x"])
    with embedder:
        pass
