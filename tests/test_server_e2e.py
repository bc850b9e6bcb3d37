"""The server as users run it: ``python -m memscribe.server serve`` on a free loopback port, driven by the
clients and by raw mem0-shaped HTTP calls."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _server_support import ADMIN_KEY, SECRET, Served, bearer, child_env, serve

from memscribe.client import AsyncMemoryClient, AuthenticationError, MemoryClient, ServerUnavailable
from memscribe.errors import InvalidInput, NotFound, ScopeError


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("e2e")
    with serve(["memscribe.server", "serve", "--admin-key", ADMIN_KEY], home, "/healthz") as served:
        yield served


def cli_key(home: Path, tenant: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "memscribe.server", "keys", "create", tenant, "--name", "e2e"],
        env=child_env(home), capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return str(json.loads(out)["key"])


def admin_key(server: Served, tenant: str) -> str:
    r = httpx.post(f"{server.url}/v1/admin/keys", json={"tenant": tenant}, headers=bearer(ADMIN_KEY))
    r.raise_for_status()
    return str(r.json()["key"])


def test_sync_client_mirrors_the_sdk(server: Served) -> None:
    with MemoryClient(server.url, cli_key(server.home, "acme")) as client:
        assert client.health()["status"] == "ok"
        added = client.add("I work at a bakery in Leeds", user_id="sam", project="life")
        mid = added["results"][0]["id"]
        assert client.get(mid)["memory"] == "I work at a bakery in Leeds"
        assert client.search("bakery", user_id="sam")["results"][0]["id"] == mid
        assert client.search("bakery", user_id="sam", filters={"project": "other"})["results"] == []
        assert client.list(user_id="sam", filters={"project": "life"})["results"][0]["id"] == mid
        client.update(mid, "I work at a bakery in York", user_id="sam")
        assert [v["memory"] for v in client.history(mid)][-1] == "I work at a bakery in York"
        assert client.why(mid, user_id="sam")["operations"]
        assert "York" in client.pack("where do I work", user_id="sam")
        assert client.stats(user_id="sam")["current"] == 1
        lines = client.export("sam")
        assert lines and json.loads(lines[0])["kind"] == "header"
        buffer = io.StringIO()
        client.export("sam", fp=buffer)
        assert buffer.getvalue().count("\n") == len(lines)
        assert client.import_(lines)["skipped"] > 0  # everything is already there: idempotent
        client.delete(mid)
        assert client.list(user_id="sam")["results"] == []
        second = client.add("I keep bees", user_id="sam")["results"][0]["id"]
        assert client.forget("bees", user_id="sam")["results"][0]["id"] == second
        assert client.purge("sam")["verified"] is True


def test_errors_come_back_as_sdk_exceptions(server: Served) -> None:
    key = cli_key(server.home, "acme")
    with MemoryClient(server.url, key) as client:
        with pytest.raises(NotFound):
            client.get("no-such-memory")
        with pytest.raises(InvalidInput):
            client.search("x", user_id="sam", limit=0)
        with pytest.raises(ScopeError):
            client.add("hello", user_id="  ")
        with pytest.raises(InvalidInput):
            client.import_(["{broken"])
    with (
        MemoryClient(server.url, "msk_0000000000000000_" + "x" * 43) as stranger,
        pytest.raises(AuthenticationError) as info,
    ):
        stranger.list(user_id="sam")
    assert info.value.status == 401
    with MemoryClient("http://127.0.0.1:9", key, timeout=2) as nowhere, pytest.raises(ServerUnavailable):
        nowhere.health()


def test_revoked_key_through_the_client(server: Served) -> None:
    key = admin_key(server, "gamma")
    with MemoryClient(server.url, key) as client:
        client.add("a fact", user_id="u")
        httpx.delete(
            f"{server.url}/v1/admin/keys/{key.split('_')[1]}", headers=bearer(ADMIN_KEY)
        ).raise_for_status()
        with pytest.raises(AuthenticationError) as info:
            client.list(user_id="u")
        assert info.value.status == 403


@pytest.mark.anyio
async def test_async_client(server: Served) -> None:
    async with AsyncMemoryClient(server.url, admin_key(server, "delta")) as client:
        mid = (await client.add("I run on Tuesdays", user_id="kim"))["results"][0]["id"]
        assert (await client.search("run", user_id="kim"))["results"][0]["id"] == mid
        assert (await client.get(mid))["memory"] == "I run on Tuesdays"
        assert len(await client.history(mid)) == 1
        lines = await client.export("kim")
        assert lines is not None and (await client.import_(lines))["skipped"] > 0
        with pytest.raises(NotFound):
            await client.get("missing")
        assert (await client.purge("kim"))["verified"] is True


def test_mem0_shaped_calls_over_http(server: Served) -> None:
    h = {"Authorization": f"Token {admin_key(server, 'mem0')}"}
    with httpx.Client(base_url=server.url, headers=h) as http:
        body = {"messages": [{"role": "user", "content": f"My name is Ana and my api key is {SECRET}"}],
                "user_id": "ana", "metadata": {"src": "chat"}}  # fmt: skip
        added = http.post("/v1/memories/", json=body)
        assert added.status_code == 200, added.text
        mid = added.json()["results"][0]["id"]
        assert SECRET not in added.text
        assert http.get("/v1/memories/", params={"user_id": "ana"}).json()["results"][0]["id"] == mid
        hits = http.post("/v1/memories/search/", json={"query": "name", "user_id": "ana", "top_k": 5}).json()
        assert hits["results"][0]["id"] == mid and SECRET not in json.dumps(hits)
        assert http.get(f"/v1/memories/{mid}/").json()["id"] == mid
        assert http.put(f"/v1/memories/{mid}/", json={"text": "My name is Ana Lima"}).status_code == 200
        assert [e["event"] for e in http.get(f"/v1/memories/{mid}/history/").json()] == ["ADD", "UPDATE"]
        assert http.delete(f"/v1/memories/{mid}/").status_code == 200
        missing = http.get("/v1/memories/nope/")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_logs_are_json_lines_without_content(server: Served) -> None:
    with MemoryClient(server.url, admin_key(server, "logs")) as client:
        client.add("the secret garden is behind the oak", user_id="lee")
        client.search("garden", user_id="lee")
    lines = [line for line in server.log.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert records and len(records) == len(lines), "every log line is a JSON object"
    assert any(r.get("route") == "/v1/memories/search" and r.get("status") == 200 for r in records)
    text = server.log.read_text()
    assert "secret garden" not in text and "lee" not in text and ADMIN_KEY not in text
