"""The REST API through FastAPI's TestClient: every route, auth, errors, limits, paging, redaction."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _server_support import ADMIN_KEY, SECRET, bearer
from fastapi.testclient import TestClient

from memscribe.errors import ConfigError
from memscribe.server import KeyStore, ServerSettings, create_app


@pytest.fixture
def settings(tmp_path: Path) -> ServerSettings:
    return ServerSettings(
        store_path=tmp_path / "store.db", embedder="hash", admin_key=ADMIN_KEY, max_body_bytes=64_000
    )


@pytest.fixture
def client(settings: ServerSettings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def key(settings: ServerSettings) -> str:
    return KeyStore(settings.resolved_keys_path).create("acme", "tests").token


@pytest.fixture
def h(key: str) -> dict[str, str]:
    return bearer(key)


def add(client: TestClient, h: dict[str, str], text: str, user: str = "u1", **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/memories", json={"messages": text, "user_id": user} | extra, headers=h)
    assert r.status_code == 200, r.text
    return r.json()


def first_id(result: dict[str, Any]) -> str:
    return str(result["results"][0]["id"])


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    if code:
        assert body["error"]["code"] == code
    return dict(body["error"])


# -- auth ----------------------------------------------------------------------------------------------


def test_healthz_needs_no_key(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok"


def test_missing_and_unknown_keys_are_401(client: TestClient, key: str) -> None:
    assert_error(client.get("/v1/memories", params={"user_id": "u1"}), 401, "unauthorized")
    bad = key[:-4] + "AAAA"
    assert_error(client.get("/v1/memories", params={"user_id": "u1"}, headers=bearer(bad)), 401)
    assert_error(client.get("/v1/memories", params={"user_id": "u1"}, headers=bearer("nonsense")), 401)
    r = client.get("/v1/memories", params={"user_id": "u1"}, headers={"Authorization": "Basic abc"})
    assert_error(r, 401)
    assert r.headers["www-authenticate"].startswith("Bearer")


def test_key_header_forms(client: TestClient, key: str) -> None:
    for headers in ({"X-API-Key": key}, {"Authorization": f"Token {key}"}, bearer(key)):
        assert client.get("/v1/memories", params={"user_id": "u1"}, headers=headers).status_code == 200


def test_revoked_key_is_403_at_once(client: TestClient, settings: ServerSettings, key: str) -> None:
    h = bearer(key)
    assert client.get("/v1/stats", params={"user_id": "u1"}, headers=h).status_code == 200
    KeyStore(settings.resolved_keys_path).revoke(key.split("_")[1])
    assert_error(client.get("/v1/stats", params={"user_id": "u1"}, headers=h), 403, "forbidden")


def test_admin_and_tenant_keys_keep_to_their_routes(client: TestClient, h: dict[str, str]) -> None:
    assert_error(client.get("/v1/admin/keys", headers=h), 403)
    assert_error(client.get("/metrics", headers=h), 403)
    assert_error(client.get("/v1/memories", params={"user_id": "u1"}, headers=bearer(ADMIN_KEY)), 403)


def test_admin_key_routes(client: TestClient) -> None:
    admin = bearer(ADMIN_KEY)
    r = client.post("/v1/admin/keys", json={"tenant": "beta", "name": "ci"}, headers=admin)
    assert r.status_code == 200, r.text
    created = r.json()
    token = created["key"]
    assert client.get("/v1/stats", params={"user_id": "x"}, headers=bearer(token)).status_code == 200
    listed = client.get("/v1/admin/keys", params={"tenant": "beta"}, headers=admin).json()["keys"]
    assert [k["id"] for k in listed] == [created["id"]] and "key" not in listed[0]
    assert token not in json.dumps(listed)
    revoked = client.delete(f"/v1/admin/keys/{created['id']}", headers=admin).json()
    assert revoked["revoked_at"] is not None
    assert_error(client.get("/v1/stats", params={"user_id": "x"}, headers=bearer(token)), 403)
    assert_error(client.delete("/v1/admin/keys/doesnotexist", headers=admin), 404, "not_found")
    assert_error(client.post("/v1/admin/keys", json={"tenant": "bad tenant!"}, headers=admin), 422)


def test_keys_are_stored_hashed(settings: ServerSettings, key: str) -> None:
    secret = key.split("_", 2)[2]
    assert secret.encode() not in settings.resolved_keys_path.read_bytes()


def test_no_auth_only_on_loopback(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        ServerSettings(store_path=tmp_path / "s.db", host="0.0.0.0", no_auth=True)
    open_settings = ServerSettings(store_path=tmp_path / "s.db", embedder="hash", no_auth=True)
    with TestClient(create_app(open_settings), base_url="http://127.0.0.1") as c:
        assert c.post("/v1/memories", json={"messages": "hello there", "user_id": "u"}).status_code == 200


# -- every native route ------------------------------------------------------------------------------


def test_memory_lifecycle(client: TestClient, h: dict[str, str]) -> None:
    result = add(client, h, "I live in Lisbon", agent_id="bot", project="p1")
    assert result["status"] == "done" and result["results"][0]["event"] == "ADD"
    mid = first_id(result)
    got = client.get(f"/v1/memories/{mid}", headers=h).json()
    assert got["memory"] == "I live in Lisbon" and got["project"] == "p1" and got["version"] == 1
    hits = client.post("/v1/memories/search", json={"query": "Lisbon", "user_id": "u1"}, headers=h).json()
    assert [x["id"] for x in hits["results"]] == [mid] and hits["results"][0]["score"] > 0
    filtered = client.post(
        "/v1/memories/search",
        json={"query": "Lisbon", "user_id": "u1", "filters": {"project": "p2"}},
        headers=h,
    )
    assert filtered.json()["results"] == []
    upd = client.put(f"/v1/memories/{mid}", json={"text": "I live in Porto"}, headers=h)
    assert upd.status_code == 200 and upd.json()["results"][0]["event"] == "UPDATE"
    history = client.get(f"/v1/memories/{mid}/history", headers=h).json()
    assert [v["memory"] for v in history] == ["I live in Lisbon", "I live in Porto"]
    why = client.get(f"/v1/memories/{mid}/why", params={"user_id": "u1"}, headers=h).json()
    assert why["memory"]["memory"] == "I live in Porto" and why["operations"] and why["episodes"]
    deleted = client.delete(f"/v1/memories/{mid}", headers=h)
    assert deleted.status_code == 200 and deleted.json()["results"][0]["event"] == "DELETE"
    assert client.get("/v1/memories", params={"user_id": "u1"}, headers=h).json()["results"] == []
    everything = client.get(
        "/v1/memories", params={"user_id": "u1", "include_history": True}, headers=h
    ).json()
    assert len(everything["results"]) >= 2


def test_add_shapes_and_wait_false(client: TestClient, h: dict[str, str]) -> None:
    messages = [
        {"role": "user", "content": "my cat is called Miso", "extra": "ignored"},
        {"role": "assistant", "content": "noted"},
    ]
    body = {"messages": messages, "user_id": "u1", "wait": False, "timestamp": "2024-05-01T10:00:00Z"}
    r = client.post("/v1/memories", json=body, headers=h)
    assert r.status_code == 200 and r.json()["status"] in ("pending", "done")
    again = client.post("/v1/memories", json=body, headers=h)  # same content and time: the same episode
    assert again.json()["episode_id"] == r.json()["episode_id"]


def test_forget_purge_stats_export_import(client: TestClient, h: dict[str, str], tmp_path: Path) -> None:
    mid = first_id(add(client, h, "my favourite colour is teal"))
    add(client, h, "I play the cello on Sundays")
    stats = client.get("/v1/stats", params={"user_id": "u1"}, headers=h).json()
    assert stats["current"] == 2 and "path" not in stats
    exported = client.get("/v1/export", params={"user_id": "u1"}, headers=h)
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/x-ndjson")
    lines = exported.text.splitlines()
    assert json.loads(lines[0])["kind"] == "header" and len(lines) > 3

    gone = client.post("/v1/forget", json={"query_or_id": mid, "user_id": "u1"}, headers=h).json()
    assert [r["id"] for r in gone["results"]] == [mid]
    assert_error(client.get(f"/v1/memories/{mid}", headers=h), 404, "not_found")
    by_query = client.post("/v1/forget", json={"query_or_id": "cello", "user_id": "u1"}, headers=h).json()
    assert len(by_query["results"]) == 1

    restored = ServerSettings(store_path=tmp_path / "restored" / "store.db", embedder="hash")
    with TestClient(create_app(restored), base_url="http://127.0.0.1", raise_server_exceptions=False) as other_client:
        check_import_and_purge(
            other_client, bearer(KeyStore(restored.resolved_keys_path).create("acme").token), lines
        )


def check_import_and_purge(client: TestClient, h: dict[str, str], lines: list[str]) -> None:
    ndjson = {**h, "content-type": "application/x-ndjson"}
    body = "\n".join(lines).encode()
    imported = client.post("/v1/import", content=body, headers=ndjson)
    assert imported.status_code == 200, imported.text
    assert imported.json()["memories"] == 2
    again = client.post("/v1/import", content=body, headers=ndjson)
    assert again.json()["memories"] == 0 and again.json()["skipped"] > 0
    assert client.get("/v1/stats", params={"user_id": "u1"}, headers=h).json()["current"] == 2
    assert_error(client.post("/v1/import", content=b"{not json\n", headers=ndjson), 422, "invalid_input")
    wrong_type = client.post(
        "/v1/import", content=b"<xml/>", headers={**h, "content-type": "application/xml"}
    )
    assert_error(wrong_type, 415)

    purged = client.post("/v1/purge", json={"user_id": "u1"}, headers=h).json()
    assert purged["verified"] is True and purged["memories"] == 2 and isinstance(purged["files_checked"], int)
    assert client.get("/v1/stats", params={"user_id": "u1"}, headers=h).json()["current"] == 0


def test_import_into_another_tenant_of_the_same_store(
    client: TestClient, h: dict[str, str], settings: ServerSettings
) -> None:
    add(client, h, "a fact to copy")
    lines = client.get("/v1/export", params={"user_id": "u1"}, headers=h).text
    other = bearer(KeyStore(settings.resolved_keys_path).create("other").token)
    r = client.post(
        "/v1/import", content=lines.encode(), headers={**other, "content-type": "application/x-ndjson"}
    )
    assert r.status_code == 200, r.text


def test_export_streams_more_lines_than_its_buffer(client: TestClient, h: dict[str, str]) -> None:
    messages = [{"role": "user", "content": f"fact {i} about kiwis"} for i in range(300)]
    assert len(add(client, h, "", messages=messages)["results"]) == 300
    with client.stream("GET", "/v1/export", params={"user_id": "u1"}, headers=h) as response:
        lines = [line for line in response.iter_lines() if line]
    assert len(lines) == 1 + 1 + 300 + 300  # header, episode, memories, journal
    kinds = {json.loads(line)["kind"] for line in lines}
    assert kinds == {"header", "episode", "memory", "journal"}


# -- mem0 compatibility -----------------------------------------------------------------------------


def test_mem0_routes(client: TestClient, h: dict[str, str]) -> None:
    body = {
        "messages": [{"role": "user", "content": "I am allergic to peanuts"}], "user_id": "alex",
        "agent_id": "helper", "run_id": "r1", "metadata": {"k": "v"}, "infer": False, "version": "v2",
    }  # fmt: skip
    r = client.post("/v1/memories/", json=body, headers=h)
    assert r.status_code == 200, r.text
    mid = first_id(r.json())
    listed = client.get("/v1/memories/", params={"user_id": "alex"}, headers=h).json()["results"]
    assert [m["id"] for m in listed] == [mid] and listed[0]["session_id"] == "r1"
    assert (
        client.get("/v1/memories/", params={"user_id": "alex", "run_id": "other"}, headers=h).json()[
            "results"
        ]
        == []
    )
    query = {"query": "peanuts", "filters": {"user_id": "alex"}, "top_k": 3}
    found = client.post("/v1/memories/search/", json=query, headers=h).json()["results"]
    assert [m["id"] for m in found] == [mid]
    found = client.post(
        "/v1/memories/search/", json={"query": "peanuts", "user_id": "alex", "limit": 1}, headers=h
    )
    assert len(found.json()["results"]) == 1
    assert client.get(f"/v1/memories/{mid}/", headers=h).json()["memory"] == "I am allergic to peanuts"
    upd = client.put(
        f"/v1/memories/{mid}/", json={"text": "I am allergic to peanuts and shellfish"}, headers=h
    )
    assert upd.status_code == 200 and upd.json()["message"] == "Memory updated successfully!"
    history = client.get(f"/v1/memories/{mid}/history/", headers=h).json()
    assert [e["event"] for e in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == "I am allergic to peanuts"
    assert (
        client.delete(f"/v1/memories/{mid}/", headers=h).json()["message"] == "Memory deleted successfully!"
    )
    assert client.get(f"/v1/memories/{mid}/history/", headers=h).json()[-1]["event"] == "DELETE"
    add(client, h, "something else to purge", user="alex")
    purged = client.delete("/v1/memories/", params={"user_id": "alex"}, headers=h).json()
    assert purged["verified"] is True
    assert_error(client.post("/v1/memories/", json={"messages": "no user"}, headers=h), 400, "scope_error")


# -- validation, limits, errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "payload", "where"),
    [
        ("post", "/v1/memories", {"user_id": "u1"}, "body.messages"),
        ("post", "/v1/memories", {"messages": "x", "user_id": "u", "usr": 1}, "body.usr"),
        ("post", "/v1/memories", {"messages": 5, "user_id": "u"}, "body.messages"),
        ("post", "/v1/memories/search", {"query": "x", "user_id": "u", "limit": 0}, "body.limit"),
        ("post", "/v1/memories/search", {"query": "", "user_id": "u"}, "body.query"),
        (
            "post",
            "/v1/memories/search",
            {"query": "x", "user_id": "u", "filters": {"nope": 1}},
            "body.filters",
        ),
        ("put", "/v1/memories/abc", {"text": ""}, "body.text"),
    ],
)
def test_bad_input_is_422_with_a_clear_message(
    client: TestClient, h: dict[str, str], method: str, path: str, payload: dict[str, Any], where: str
) -> None:
    error = assert_error(getattr(client, method)(path, json=payload, headers=h), 422, "validation_error")
    assert where in error["message"]


def test_bad_query_params_and_json(client: TestClient, h: dict[str, str]) -> None:
    assert_error(client.get("/v1/memories", params={"user_id": "u", "limit": 5000}, headers=h), 422)
    assert_error(client.get("/v1/memories", params={"user_id": "u", "offset": -1}, headers=h), 422)
    assert_error(client.get("/v1/memories", headers=h), 422)
    # A blank scope is the engine's ScopeError, as through the SDK.
    assert_error(
        client.post("/v1/memories", json={"messages": "x", "user_id": " "}, headers=h), 400, "scope_error"
    )
    assert_error(client.get("/v1/memories", params={"user_id": "a\x00b"}, headers=h), 400, "scope_error")
    assert_error(client.get("/v1/export", params={"user_id": "  "}, headers=h), 400, "scope_error")
    r = client.post("/v1/memories", content=b"{oops", headers={**h, "content-type": "application/json"})
    assert_error(r, 422)
    engine_refusal = client.post(
        "/v1/memories", json={"messages": [{"content": ""}], "user_id": "u"}, headers=h
    )
    assert_error(engine_refusal, 422, "invalid_input")


def test_body_over_the_limit_is_413(client: TestClient, h: dict[str, str]) -> None:
    big = {"messages": "x" * 70_000, "user_id": "u1"}
    assert_error(client.post("/v1/memories", json=big, headers=h), 413, "payload_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is enforced while streaming
        yield b'{"messages": "'
        for _ in range(10):
            yield b"y" * 10_000
        yield b'", "user_id": "u1"}'

    streamed = client.post(
        "/v1/memories", content=chunks(), headers={**h, "content-type": "application/json"}
    )
    assert_error(streamed, 413, "payload_too_large")
    assert client.get("/v1/stats", params={"user_id": "u1"}, headers=h).json()["episodes"] == 0


def test_unknown_routes_and_ids_use_the_error_body(client: TestClient, h: dict[str, str]) -> None:
    assert_error(client.get("/v1/nothing-here", headers=h), 404)
    assert_error(client.get("/v1/memories/not-a-memory", headers=h), 404, "not_found")
    assert_error(client.patch("/v1/memories/x", headers=h), 405)


def test_pagination_walks_every_memory_once(client: TestClient, h: dict[str, str]) -> None:
    for i in range(25):
        add(client, h, f"fact number {i} about zebras")
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = client.get(
            "/v1/memories", params={"user_id": "u1", "limit": 10, "offset": offset}, headers=h
        ).json()
        assert page["limit"] == 10 and page["offset"] == offset
        seen += [m["id"] for m in page["results"]]
        offset = page["next_offset"]
        pages += 1
    assert pages == 3 and len(seen) == 25 == len(set(seen))
    last = client.get("/v1/memories", params={"user_id": "u1", "limit": 10, "offset": 20}, headers=h).json()
    assert len(last["results"]) == 5 and last["next_offset"] is None


# -- cors, metrics, logs ----------------------------------------------------------------------------


def test_cors_off_by_default_and_on_when_configured(tmp_path: Path, client: TestClient) -> None:
    origin = {"Origin": "http://example.test", "Access-Control-Request-Method": "GET"}
    assert "access-control-allow-origin" not in client.options("/healthz", headers=origin).headers
    cors = ServerSettings(
        store_path=tmp_path / "c.db", embedder="hash", cors_origins=("http://example.test",)
    )
    with TestClient(create_app(cors), base_url="http://127.0.0.1") as c:
        r = c.options("/v1/memories", headers=origin)
        assert r.headers["access-control-allow-origin"] == "http://example.test"


def test_metrics_and_logs_hold_no_content(
    client: TestClient, h: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="memscribe")
    add(client, h, "the launch code word is pelican")
    client.post("/v1/memories/search", json={"query": "pelican", "user_id": "u1"}, headers=h)
    metrics = client.get("/metrics", headers=bearer(ADMIN_KEY))
    assert metrics.status_code == 200
    data = metrics.json()
    assert data["routes"]["POST /v1/memories"]["count"] == 1
    assert set(data["routes"]["POST /v1/memories"]["latency_ms"]) == {"p50", "p95", "p99"}
    assert data["store"]["current"] == 1 and data["store"]["pending_episodes"] == 0
    assert "pelican" not in metrics.text and "u1" not in metrics.text
    access = [r for r in caplog.records if r.name == "memscribe.server.access"]
    assert access and all(getattr(r, "route", None) for r in access)
    assert {getattr(r, "tenant", None) for r in access} >= {"acme"}
    logged = " ".join(r.getMessage() + json.dumps(vars(r), default=str) for r in caplog.records)
    assert "pelican" not in logged and "u1" not in logged


def test_json_log_lines() -> None:
    from memscribe.server.logs import JsonFormatter

    record = logging.LogRecord("memscribe.server.access", logging.INFO, __file__, 1, "request", None, None)
    record.route, record.status, record.body = "/v1/memories", 200, "secret content"
    line = json.loads(JsonFormatter().format(record))
    assert line["route"] == "/v1/memories" and line["status"] == 200 and "body" not in line


# -- secrets are redacted over every entry point ----------------------------------------------------


def test_secrets_redacted_on_every_rest_entry_point(client: TestClient, h: dict[str, str]) -> None:
    text = f"my api key is {SECRET} keep it safe"
    mid = first_id(add(client, h, text, metadata={"note": f"token: {SECRET}"}))
    mem0_id = first_id(client.post("/v1/memories/", json={"messages": text, "user_id": "u1", "infer": False},
                                   headers=h).json())  # fmt: skip
    third = first_id(add(client, h, "placeholder fact"))
    client.put(f"/v1/memories/{third}", json={"text": text}, headers=h)
    client.put(f"/v1/memories/{mem0_id}/", json={"text": f"{text} again"}, headers=h)
    outputs = [
        client.get("/v1/memories", params={"user_id": "u1", "include_history": True}, headers=h).text,
        client.post("/v1/memories/search", json={"query": "api key", "user_id": "u1"}, headers=h).text,
        client.get(f"/v1/memories/{mid}/why", headers=h).text,
        client.get(f"/v1/memories/{third}/history", headers=h).text,
        client.get("/v1/export", params={"user_id": "u1"}, headers=h).text,
    ]
    for out in outputs:
        assert SECRET not in out
    assert "[REDACTED]" in outputs[0]


def test_secrets_redacted_on_import(client: TestClient, h: dict[str, str], tmp_path: Path) -> None:
    add(client, h, "a harmless fact")
    lines = client.get("/v1/export", params={"user_id": "u1"}, headers=h).text
    tainted = lines.replace("a harmless fact", f"password: {SECRET}").encode()
    fresh = ServerSettings(store_path=tmp_path / "fresh" / "store.db", embedder="hash")
    with TestClient(create_app(fresh), base_url="http://127.0.0.1", raise_server_exceptions=False) as other:
        key = bearer(KeyStore(fresh.resolved_keys_path).create("acme").token)
        r = other.post("/v1/import", content=tainted, headers={**key, "content-type": "application/x-ndjson"})
        assert r.status_code == 200, r.text
        exported = other.get("/v1/export", params={"user_id": "u1"}, headers=key).text
    assert "a harmless fact" not in exported
    assert SECRET not in exported
