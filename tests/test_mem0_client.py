"""mem0ai's released client (``pip install mem0ai``, in the test extra) against a spawned ``memscribe serve``:
``MemoryClient(host=...)`` and ``AsyncMemoryClient(host=...)`` unmodified, every call that maps to a
memscribe feature. mem0's telemetry is switched off and its config directory kept in a temporary folder
before the package is imported; nothing leaves 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _server_support import Served, child_env, serve

os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="mem0-dir-"))
mem0_client = pytest.importorskip("mem0.client.main")
MemoryClient, AsyncMemoryClient = mem0_client.MemoryClient, mem0_client.AsyncMemoryClient


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("mem0-compat")
    with serve(["memscribe", "serve"], home, "/healthz", MEMSCRIBE_WRITER="lite") as served:
        yield served


def key_for(home: Path, tenant: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "memscribe", "keys", "create", tenant],
        env=child_env(home), capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return str(json.loads(out)["key"])


def test_ping_names_org_and_project(server: Served) -> None:
    client = MemoryClient(api_key=key_for(server.home, "acme"), host=server.url)
    assert client.org_id == "acme" and client.project_id == "acme"


def test_sync_client_round_trip(server: Served) -> None:
    client = MemoryClient(api_key=key_for(server.home, "sync-co"), host=server.url)
    said = [{"role": "user", "content": "I live in Seattle."}, {"role": "user", "content": "I work at Boeing."}]
    added = client.add(said, user_id="alice")
    assert [m["outcome"] for m in added["messages"]] == ["stored", "stored"]
    seattle = next(r["id"] for r in added["results"] if "Seattle" in r["memory"])
    boeing = next(r["id"] for r in added["results"] if "Boeing" in r["memory"])
    first_text = next(r["memory"] for r in added["results"] if r["id"] == seattle)

    hits = client.search("Where does alice live?", filters={"user_id": "alice"}, top_k=3)["results"]
    assert hits[0]["id"] == seattle and 0.0 <= hits[0]["score"] <= 1.0
    listed = client.get_all(filters={"user_id": "alice"})
    assert listed["count"] == 2 and {r["id"] for r in listed["results"]} == {seattle, boeing}
    paged = client.get_all(filters={"user_id": "alice"}, page=1, page_size=1)
    assert len(paged["results"]) == 1 and paged["next"] and paged["previous"] is None
    assert client.get(seattle)["memory"] == first_text

    client.update(seattle, text="User lives in Tacoma")
    assert client.get(seattle)["memory"] == "User lives in Tacoma"
    history = client.history(seattle)
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history] == [
        ("ADD", None, first_text),
        ("UPDATE", first_text, "User lives in Tacoma"),
    ]
    client.delete(seattle)
    assert {r["id"] for r in client.get_all(filters={"user_id": "alice"})["results"]} == {boeing}

    client.add("I have a dog named Rex.", user_id="bob")
    users = client.users()
    assert {(u["type"], u["name"]) for u in users["results"]} == {("user", "alice"), ("user", "bob")}
    assert client.delete_all(user_id="alice")["message"]
    assert client.get_all(filters={"user_id": "alice"})["results"] == []
    assert client.delete_users(user_id="bob")["message"] == "Entity deleted successfully."
    client.add("I play the cello.", user_id="carol")
    assert client.reset()["message"].startswith("Client reset successful")
    assert client.users()["results"] == []


def test_batch_calls_and_the_profile(server: Served) -> None:
    client = MemoryClient(api_key=key_for(server.home, "batch-co"), host=server.url)
    ids = [client.add(text, user_id="fay", infer=False)["results"][0]["id"] for text in ("I like tea.", "I ski.")]
    assert client.batch_update([{"memory_id": ids[0], "text": "I like green tea."}])["message"]
    assert client.get(ids[0])["memory"] == "I like green tea."
    client.batch_delete([{"memory_id": i} for i in ids])
    assert client.get_all(filters={"user_id": "fay"})["results"] == []
    from mem0.exceptions import MemoryNotFoundError

    with pytest.raises(MemoryNotFoundError):
        client.batch_delete([{"memory_id": "missing"}])
    client.add("I live in Oslo.", user_id="gus")
    profile = client.get_profile("gus")
    assert profile["status"] == "succeeded" and "Oslo" in json.dumps(profile["profile"])


def test_sync_client_errors_map_to_mem0_exceptions(server: Served) -> None:
    from mem0.exceptions import MemoryNotFoundError, ValidationError

    client = MemoryClient(api_key=key_for(server.home, "errors-co"), host=server.url)
    with pytest.raises(MemoryNotFoundError):
        client.get("no-such-memory")
    with pytest.raises(ValidationError):
        client.search("anything", filters={"OR": [{"user_id": "a"}, {"user_id": "b"}]})
    with pytest.raises(ValidationError, match="expiration_date"):
        client.add("I am in Rome until Friday.", user_id="a", expiration_date="2030-01-01")
    with pytest.raises(ValueError, match="Error"):
        MemoryClient(api_key="msk_not_a_key", host=server.url)


def test_tenants_stay_apart_through_the_mem0_client(server: Served) -> None:
    one = MemoryClient(api_key=key_for(server.home, "tenant-one"), host=server.url)
    two = MemoryClient(api_key=key_for(server.home, "tenant-two"), host=server.url)
    memory_id = one.add("I am allergic to peanuts.", user_id="dana")["results"][0]["id"]
    assert two.get_all(filters={"user_id": "dana"})["results"] == []
    assert two.users()["results"] == []
    from mem0.exceptions import MemoryNotFoundError

    with pytest.raises(MemoryNotFoundError):
        two.get(memory_id)


def test_async_client_round_trip(server: Served) -> None:
    key = key_for(server.home, "async-co")

    async def run() -> dict[str, Any]:
        client = AsyncMemoryClient(api_key=key, host=server.url)
        async with client:
            added = await client.add("I moved to Lisbon in 2024.", user_id="erin")
            memory_id = added["results"][0]["id"]
            found = await client.search("when did erin move to Lisbon", filters={"user_id": "erin"})
            listed = await client.get_all(filters={"user_id": "erin"})
            got = await client.get(memory_id)
            await client.update(memory_id, text="User moved to Porto in 2025.")
            history = await client.history(memory_id)
            users = await client.users()
            await client.delete(memory_id)
            after = await client.get_all(filters={"user_id": "erin"})
            await client.add("I like chess.", user_id="erin")
            purged = await client.delete_all(user_id="erin")
            return {"id": memory_id, "found": found, "listed": listed, "got": got, "history": history,
                    "users": users, "after": after, "purged": purged}  # fmt: skip

    out = asyncio.run(run())
    assert out["found"]["results"][0]["id"] == out["id"]
    assert out["listed"]["count"] == 1 and out["got"]["id"] == out["id"]
    assert [h["event"] for h in out["history"]] == ["ADD", "UPDATE"]
    assert out["users"]["results"][0]["name"] == "erin"
    assert out["after"]["results"] == [] and out["purged"]["verified"] is True
