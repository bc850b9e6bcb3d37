"""Two tenants × three users on one store: no read, search, list, history, export, edit or purge crosses a
partition, over REST and over MCP. The same user ids exist in both tenants on purpose."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from _server_support import bearer
from fastapi.testclient import TestClient
from mcp import Client

from memscribe import Memory
from memscribe.mcp import McpScope, build_server
from memscribe.server import KeyStore, ServerSettings, create_app

TENANTS, USERS = ("t0", "t1"), ("u0", "u1", "u2")
Owner = tuple[str, str]
OWNERS: list[Owner] = list(itertools.product(TENANTS, USERS))


def word(owner: Owner) -> str:
    return f"marker{owner[0]}{owner[1]}"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, dict[str, str]], dict[Owner, str]]]:
    settings = ServerSettings(store_path=tmp_path / "store.db", embedder="hash")
    keys = KeyStore(settings.resolved_keys_path)
    headers = {t: bearer(keys.create(t).token) for t in TENANTS}
    ids: dict[Owner, str] = {}
    with TestClient(create_app(settings), base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        for owner in OWNERS:
            tenant, user = owner
            body = {"messages": f"shared phrase and {word(owner)}", "user_id": user}
            ids[owner] = client.post("/v1/memories", json=body, headers=headers[tenant]).json()["results"][0][
                "id"
            ]
        yield client, headers, ids


def others(owner: Owner) -> list[Owner]:
    return [o for o in OWNERS if o != owner]


def test_reads_stay_in_their_partition(
    world: tuple[TestClient, dict[str, dict[str, str]], dict[Owner, str]],
) -> None:
    client, headers, ids = world
    for owner in OWNERS:
        tenant, user = owner
        h = headers[tenant]
        hits = client.post(
            "/v1/memories/search", json={"query": "shared phrase", "user_id": user}, headers=h
        ).text
        listed = client.get("/v1/memories", params={"user_id": user, "include_history": True}, headers=h).text
        exported = client.get("/v1/export", params={"user_id": user}, headers=h).text
        mem0 = client.post("/v1/memories/search/", json={"query": "shared", "user_id": user}, headers=h).text
        for text in (hits, listed, exported, mem0):
            assert word(owner) in text
            assert not [o for o in others(owner) if word(o) in text]
        for other in others(owner):
            oid = ids[other]
            for path in (f"/v1/memories/{oid}", f"/v1/memories/{oid}/history", f"/v1/memories/{oid}/why"):
                assert client.get(path, params={"user_id": user}, headers=h).status_code == 404
            if other[0] != tenant:  # by id alone, another tenant's memory does not exist
                for path in (f"/v1/memories/{oid}", f"/v1/memories/{oid}/history/", f"/v1/memories/{oid}/"):
                    assert client.get(path, headers=h).status_code == 404


def test_writes_stay_in_their_partition(
    world: tuple[TestClient, dict[str, dict[str, str]], dict[Owner, str]],
) -> None:
    client, headers, ids = world
    h0 = headers["t0"]
    victim = ids[("t1", "u0")]
    assert client.put(f"/v1/memories/{victim}", json={"text": "overwritten"}, headers=h0).status_code == 404
    assert client.delete(f"/v1/memories/{victim}", headers=h0).status_code == 404
    assert client.delete(f"/v1/memories/{victim}/", headers=h0).status_code == 404
    assert client.post("/v1/forget", json={"query_or_id": victim}, headers=h0).status_code == 404
    forgot = client.post("/v1/forget", json={"query_or_id": victim, "user_id": "u0"}, headers=h0).json()
    assert forgot["results"] == []
    sibling = ids[("t0", "u1")]
    assert (
        client.put(f"/v1/memories/{sibling}", json={"text": "x", "user_id": "u0"}, headers=h0).status_code
        == 404
    )

    purged = client.post("/v1/purge", json={"user_id": "u0"}, headers=h0).json()
    assert purged["memories"] == 1 and purged["verified"] is True
    for owner in OWNERS:
        tenant, user = owner
        current = client.get("/v1/memories", params={"user_id": user}, headers=headers[tenant]).json()[
            "results"
        ]
        expected = [] if owner == ("t0", "u0") else [f"shared phrase and {word(owner)}"]
        assert [m["memory"] for m in current] == expected
    stats = client.get("/v1/stats", params={"user_id": "u0"}, headers=headers["t1"]).json()
    assert stats["current"] == 1


@pytest.mark.anyio
async def test_mcp_servers_stay_in_their_scope(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    memories = {t: Memory(path, writer="raw", embedder="hash", tenant=t) for t in TENANTS}
    try:
        ids = {
            o: memories[o[0]].add(f"shared phrase and {word(o)}", user_id=o[1])["results"][0]["id"]
            for o in OWNERS
        }
        for owner in OWNERS:
            tenant, user = owner
            async with Client(build_server(memories[tenant], McpScope(user))) as client:
                for tool, args in (("search_memory", {"query": "shared phrase"}), ("list_memories", {})):
                    result = await client.call_tool(tool, args)
                    text = "\n".join(getattr(c, "text", "") for c in result.content)
                    assert word(owner) in text and not [o for o in others(owner) if word(o) in text]
                for other in others(owner):
                    for tool in ("get_memory", "memory_history", "why"):
                        assert (await client.call_tool(tool, {"memory_id": ids[other]})).is_error
                    await client.call_tool("forget", {"query_or_id": ids[other]})
        for owner in OWNERS:
            assert memories[owner[0]].get(ids[owner], user_id=owner[1])["memory"].endswith(word(owner))
    finally:
        for m in memories.values():
            m.close()
