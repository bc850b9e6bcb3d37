"""Strings UTF-8 cannot carry (lone surrogates, from broken clients or a ``surrogateescape`` decode) and
values JSON cannot carry: the Python client refuses them with the same ``InvalidInput`` the local SDK
raises, naming the field and sending nothing; the server answers the escaped forms with a 4xx from the one
error table and stores nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from memscribe import Memory
from memscribe.client import MemoryClient
from memscribe.errors import InvalidInput
from memscribe.server import ServerSettings, create_app

LONE = "\ud800"
CLIENT_CALLS: dict[str, Callable[[Any], object]] = {
    "content": lambda c: c.add(f"lone {LONE} surrogate", user_id="u"),
    "message list": lambda c: c.add([{"role": "user", "content": f"a{LONE}"}], user_id="u"),
    "user_id": lambda c: c.add("hello", user_id=f"u{LONE}"),
    "metadata value": lambda c: c.add("hello", user_id="u", metadata={"k": [f"v{LONE}"]}),
    "metadata key": lambda c: c.add("hello", user_id="u", metadata={f"k{LONE}": 1}),
    "idempotency_key": lambda c: c.add("hello", user_id="u", idempotency_key=f"k{LONE}"),
    "search query": lambda c: c.search(f"tea{LONE}", user_id="u"),
    "list user": lambda c: c.list(user_id=f"u{LONE}"),
    "memory id": lambda c: c.get(f"m{LONE}"),
    "update text": lambda c: c.update("m1", f"new {LONE}", user_id="u"),
    "forget": lambda c: c.forget(f"tea{LONE}", user_id="u"),
    "purge": lambda c: c.purge(f"u{LONE}"),
    "export": lambda c: c.export(f"u{LONE}"),
    "import": lambda c: c.import_(['{"kind": "header"}', f'{{"kind": "x{LONE}"}}']),
}
UNSENDABLE: dict[str, Callable[[Any], object]] = {
    "a set": lambda c: c.add("hello", user_id="u", metadata={"k": {1, 2}}),
    "bytes": lambda c: c.add("hello", user_id="u", metadata={"k": b"raw"}),
    "NaN": lambda c: c.add("hello", user_id="u", metadata={"k": float("nan")}),
    "an int key": lambda c: c.add("hello", user_id="u", metadata={1: "x"}),
    "an object": lambda c: c.add("hello", user_id="u", timestamp=object()),
    "a list as user_id": lambda c: c.list(user_id=["u"]),
}


@pytest.fixture
def offline() -> Iterator[tuple[MemoryClient, list[httpx.Request]]]:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        request.read()
        sent.append(request)
        return httpx.Response(200, json={"results": []})

    with MemoryClient("http://memscribe.test", transport=httpx.MockTransport(record)) as client:
        yield client, sent


@pytest.mark.parametrize("field", list(CLIENT_CALLS))
def test_the_client_refuses_a_lone_surrogate_by_name(
    field: str, offline: tuple[MemoryClient, list[httpx.Request]]
) -> None:
    client, sent = offline
    with pytest.raises(InvalidInput, match="lone surrogate") as raised:
        CLIENT_CALLS[field](client)
    assert "not valid Unicode" in str(raised.value)
    assert all(LONE.encode("utf-8", "surrogatepass") not in r.content for r in sent)
    if field != "import":  # an import streams the lines before the bad one, then aborts (nothing is stored)
        assert sent == []


@pytest.mark.parametrize("what", list(UNSENDABLE))
def test_the_client_refuses_what_json_cannot_carry(
    what: str, offline: tuple[MemoryClient, list[httpx.Request]]
) -> None:
    client, sent = offline
    with pytest.raises(InvalidInput):
        UNSENDABLE[what](client)
    assert sent == []


@pytest.mark.parametrize("field", ["content", "user_id", "metadata value", "metadata key", "idempotency_key"])
def test_the_local_sdk_raises_the_same_error(field: str, tmp_path: Path) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder="hash") as m:
        with pytest.raises(InvalidInput, match="lone surrogate"):
            CLIENT_CALLS[field](m)
        assert m.stats()["episodes"] == 0


ESCAPED = "\\ud800"
SERVER_BODIES = [
    ("/v1/memories", f'{{"messages": "a{ESCAPED}", "user_id": "u"}}'),
    ("/v1/memories", f'{{"messages": "a", "user_id": "u{ESCAPED}"}}'),
    ("/v1/memories", f'{{"messages": "a", "user_id": "u", "metadata": {{"k{ESCAPED}": 1}}}}'),
    ("/v1/memories", f'{{"messages": "a", "user_id": "u", "idempotency_key": "k{ESCAPED}"}}'),
    ("/v1/memories", f'{{"messages": [{{"role": "user", "content": "a", "name": "n{ESCAPED}"}}], "user_id": "u"}}'),
    ("/v1/memories/", f'{{"messages": [{{"role": "user", "content": "a{ESCAPED}"}}], "user_id": "u", "infer": false}}'),
    ("/v1/memories/search", f'{{"query": "a{ESCAPED}", "user_id": "u"}}'),
    ("/v1/forget", f'{{"query_or_id": "a{ESCAPED}", "user_id": "u"}}'),
    ("/v1/purge", f'{{"user_id": "u{ESCAPED}"}}'),
]


def test_the_server_refuses_escaped_surrogates_with_a_4xx(tmp_path: Path) -> None:
    settings = ServerSettings(store_path=tmp_path / "s.db", embedder="hash", no_auth=True)
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        for path, body in SERVER_BODIES:
            r = c.post(path, content=body.encode(), headers={"content-type": "application/json"})
            assert 400 <= r.status_code < 500 and r.json()["error"]["message"], (path, body, r.text)
        line = f'{{"kind": "episode", "id": "e{ESCAPED}", "scope": {{"user_id": "u"}}}}\n'
        r = c.post("/v1/import", content=line.encode(), headers={"content-type": "application/x-ndjson"})
        assert r.status_code == 422, r.text
        for url in ("/v1/memories?user_id=u%ED%A0%80", "/v1/memories/%ED%A0%80?user_id=u", "/v1/stats?user_id=%FF"):
            assert c.get(url).status_code < 500  # invalid UTF-8 in a URL decodes with U+FFFD: another id
        assert c.get("/v1/stats", params={"user_id": "u"}).json()["episodes"] == 0


def test_the_async_client_refuses_the_same() -> None:
    import asyncio

    from memscribe.client import AsyncMemoryClient

    sent: list[httpx.Request] = []

    async def main() -> None:
        transport = httpx.MockTransport(lambda request: sent.append(request) or httpx.Response(200, json={}))
        async with AsyncMemoryClient("http://memscribe.test", transport=transport) as client:
            with pytest.raises(InvalidInput, match="lone surrogate"):
                await client.add(f"lone {LONE}", user_id="u")
            with pytest.raises(InvalidInput, match="JSON value"):
                await client.add("hello", user_id="u", metadata={"k": {1}})

    asyncio.run(main())
    assert sent == []


@pytest.mark.parametrize("field", ["search query", "forget"])
def test_a_local_query_with_a_lone_surrogate_is_refused_as_the_server_refuses_it(field: str, tmp_path: Path) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder="hash") as m:
        m.add("I drink green tea", user_id="u")
        with pytest.raises(InvalidInput, match="lone surrogate"):
            CLIENT_CALLS[field](m)
