"""No request over 1 MiB is accepted, on any route: 1 MiB + 1 byte is a 413 from the one error table wherever
the limit is crossed, and nothing of it is stored. A large import goes in batches under the limit (the
Python client and `memscribe import FILE --url`), each all or nothing, so a failure half way and a rerun
leave every row exactly once. A long line arriving in many small chunks is still read in linear time."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from memscribe import Memory
from memscribe.cli.main import cli
from memscribe.client import MemoryClient, ServerUnavailable
from memscribe.errors import ConfigError, InvalidInput
from memscribe.server import ServerSettings, create_app
from memscribe.server.settings import MAX_BODY_BYTES, MiB

NDJSON = {"Content-Type": "application/x-ndjson"}
LIMIT = MAX_BODY_BYTES


def _export(tmp_path: Path, count: int, size: int = 40) -> list[str]:
    with Memory(tmp_path / "source.db", writer="raw", embedder="hash") as m:
        for i in range(count):
            m.add(f"I keep notebook number {i} on the shelf " + "and a note " * (size // 11), user_id="u")
        return m.export("u") or []


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return create_app(ServerSettings(store_path=tmp_path / "s.db", embedder="hash", no_auth=True))


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        yield c


def _stored(client: TestClient) -> Any:
    return client.get("/v1/stats", params={"user_id": "u"}).json()


def _refused(response: Any) -> None:
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["code"] == "payload_too_large" and f"{LIMIT} bytes" in error["message"]


def test_the_limit_is_one_mebibyte_and_cannot_be_raised(tmp_path: Path) -> None:
    assert ServerSettings(store_path=tmp_path / "s.db").max_body_bytes == LIMIT == MiB
    with pytest.raises(ConfigError, match="1 MiB"):
        ServerSettings(store_path=tmp_path / "s.db", max_body_bytes=LIMIT + 1)
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "serve", "--no-auth", "--max-body", str(LIMIT + 1)])
    assert result.exit_code == 2 and "--max-body" in result.output


def _body_routes(app: Any) -> list[tuple[str, str, bool]]:
    """Every route a body can be sent to, from the OpenAPI document (path parameters filled in), and whether
    it reads one."""
    found = []
    for path, operations in app.openapi()["paths"].items():
        for method, operation in sorted(operations.items()):
            if method in ("post", "put", "patch", "delete"):
                found.append((method.upper(), re.sub(r"\{[^}]+\}", "m1", path), "requestBody" in operation))
    return found


def test_one_byte_over_is_refused_on_every_route(app: Any, client: TestClient) -> None:
    routes = _body_routes(app)
    assert {("POST", "/v1/memories", True), ("PUT", "/v1/memories/m1", True), ("POST", "/v1/import", True)} <= set(
        routes
    )
    assert len(routes) >= 10
    over = b'{"messages": "' + b"a" * (LIMIT - 15) + b'"}'
    assert len(over) == LIMIT + 1

    def streamed() -> Iterator[bytes]:  # no Content-Length: the limit is crossed mid-stream
        for i in range(0, len(over), 64 * 1024):
            yield over[i : i + 64 * 1024]

    for method, path, reads in routes:
        kind = NDJSON if path.endswith("import") else {"Content-Type": "application/json"}
        _refused(client.request(method, path, content=over, headers=kind))
        if reads:  # a route that reads no body (a DELETE by id) answers without taking it
            _refused(client.request(method, path, content=streamed(), headers=kind))
    assert _stored(client)["episodes"] == 0


def test_exactly_the_limit_is_read(client: TestClient, tmp_path: Path) -> None:
    lines = _export(tmp_path, 3)
    body = "\n".join(lines).encode()
    body += b"\n" + b" " * (LIMIT - len(body) - 1)
    assert len(body) == LIMIT
    r = client.post("/v1/import", content=body, headers=NDJSON)
    assert r.status_code == 200, r.text
    assert _stored(client)["episodes"] == 3


class Bridge(httpx.BaseTransport):
    """The client's requests, answered by the app through a TestClient; can fail one request on purpose."""

    def __init__(self, client: TestClient, fail_at: int | None = None) -> None:
        self.client, self.fail_at, self.sizes = client, fail_at, []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        self.sizes.append(len(body))
        if len(self.sizes) == self.fail_at:
            raise httpx.ConnectError("the server went away", request=request)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        r = self.client.request(request.method, request.url.raw_path.decode(), content=body, headers=headers)
        return httpx.Response(r.status_code, headers=r.headers, content=r.content)


def _rows(lines: list[str]) -> dict[str, int]:
    kinds: dict[str, int] = {}
    for line in lines:
        kind = json.loads(line)["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


# The default suite sends a ~200 KB export in 16 KiB batches; `make test-slow` sends 5 MB in 1 MiB batches.
SMALL = 16 * 1024


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    lines = _export(tmp_path_factory.mktemp("small"), 40, size=2_000)
    assert sum(len(line.encode()) + 1 for line in lines) > 8 * SMALL
    return lines


@pytest.fixture(scope="module")
def five_mb(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    lines = _export(tmp_path_factory.mktemp("big"), 260, size=10_000)
    assert sum(len(line.encode()) + 1 for line in lines) > 5 * MiB
    return lines


def _check_whole(client: TestClient, source: list[str]) -> None:
    exported = client.get("/v1/export", params={"user_id": "u"}).text.splitlines()
    assert _rows(exported) == _rows(source)  # every row exactly once
    rows = [json.loads(line) for line in exported]
    episodes = {r["id"] for r in rows if r["kind"] == "episode"}
    assert all(r["episode_id"] in episodes for r in rows if r["kind"] == "memory")  # provenance intact


def _lands_whole(lines: list[str], tmp_path: Path, batch: int) -> None:
    # Another tenant than the export's: ids are remapped, and each row must travel with its episode.
    settings = ServerSettings(store_path=tmp_path / "s.db", embedder="hash", no_auth=True, default_tenant="other")
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8765") as tc:
        bridge = Bridge(tc)
        with MemoryClient("http://127.0.0.1:8765", transport=bridge) as client:
            client.import_batch_bytes = batch
            result = client.import_(lines)
        assert len(bridge.sizes) >= 5 and max(bridge.sizes) <= batch
        kinds = _rows(lines)
        assert result == {"episodes": kinds["episode"], "memories": kinds["memory"], "journal": kinds["journal"],
                          "skipped": 0}  # fmt: skip
        _check_whole(tc, lines)


def _fails_then_reruns(lines: list[str], client: TestClient, batch: int) -> None:
    bridge = Bridge(client, fail_at=3)
    broken = MemoryClient("http://127.0.0.1:8765", transport=bridge)
    broken.import_batch_bytes = batch
    with broken, pytest.raises(ServerUnavailable, match=r"imported before it: 2 batch\(es\)") as raised:
        broken.import_(lines)
    before: Any = raised.value.imported  # type: ignore[attr-defined]
    assert 0 < before["episodes"] == _stored(client)["episodes"]
    with MemoryClient("http://127.0.0.1:8765", transport=Bridge(client)) as again:
        again.import_batch_bytes = batch
        result = again.import_(lines)
    assert result["skipped"] == sum(before.values()) - before["skipped"]
    _check_whole(client, lines)


def test_an_import_in_batches_lands_whole_through_the_client(small: list[str], tmp_path: Path) -> None:
    _lands_whole(small, tmp_path, SMALL)


def test_a_failure_half_way_then_a_rerun_leaves_every_row_once(small: list[str], client: TestClient) -> None:
    _fails_then_reruns(small, client, SMALL)


@pytest.mark.soak
def test_a_five_megabyte_import_lands_whole_through_the_client(five_mb: list[str], tmp_path: Path) -> None:
    _lands_whole(five_mb, tmp_path, LIMIT)


@pytest.mark.soak
def test_five_megabytes_failing_half_way_then_rerun_leave_every_row_once(
    five_mb: list[str], client: TestClient
) -> None:
    _fails_then_reruns(five_mb, client, LIMIT)


def test_a_bad_line_stores_nothing_of_its_batch_and_is_named(small: list[str], client: TestClient) -> None:
    broken = list(small)
    middle = len(broken) // 2
    broken[middle] = '{"kind": "memory", "scope": {}}'
    c = MemoryClient("http://127.0.0.1:8765", transport=Bridge(client))
    c.import_batch_bytes = SMALL
    with c, pytest.raises(InvalidInput, match=f"^line {middle + 1}: .*imported before it") as raised:
        c.import_(broken)
    before: Any = raised.value.imported  # type: ignore[attr-defined]
    assert _stored(client)["episodes"] == before["episodes"]
    assert sum(before.values()) < len(small) - 1  # the bad line's batch and those after it are not in
    with MemoryClient("http://127.0.0.1:8765", transport=Bridge(client)) as c:
        c.import_batch_bytes = SMALL
        c.import_(small)
    _check_whole(client, small)


def test_a_line_too_large_for_any_batch_is_refused_before_sending(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200, json={}))
    line = json.dumps({"kind": "episode", "id": "e1", "messages": [{"role": "user", "content": "x" * LIMIT}]})
    c = MemoryClient("http://memscribe.test", transport=transport)
    with c, pytest.raises(InvalidInput, match="does not fit in one 1048576-byte request"):
        c.import_([line])
    assert sent == []


def test_the_cli_imports_into_a_server_in_batches(small: list[str], tmp_path: Path, client: TestClient,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    import memscribe.client._sync as sync

    made = sync.httpx.Client
    monkeypatch.setattr(sync.httpx, "Client", lambda **kw: made(**{**kw, "transport": Bridge(client)}))
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(small) + "\n", encoding="utf-8")
    url = "http://127.0.0.1:8765"
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "--json", "import", str(path), "--url", url])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["episodes"] == _rows(small)["episode"]
    _check_whole(client, small)


def test_a_long_line_in_small_chunks_is_read_whole(tmp_path: Path) -> None:
    settings = ServerSettings(store_path=tmp_path / "s.db", embedder="hash", no_auth=True)
    lines = _export(tmp_path, 2)
    episodes = [json.loads(line) for line in lines if json.loads(line)["kind"] == "episode"]
    episodes[0]["messages"][0]["content"] = "J'aime le thé vert " * 5000  # ~95,000 characters, one line
    body = "\n".join(json.dumps(e, ensure_ascii=False) for e in episodes).encode()

    def chunks() -> Iterator[bytes]:  # 7 bytes at a time: lines, newlines and UTF-8 characters split anywhere
        for i in range(0, len(body), 7):
            yield body[i : i + 7]

    with TestClient(create_app(settings), base_url="http://127.0.0.1:8765") as c:
        r = c.post("/v1/import", content=chunks(), headers=NDJSON)
        assert r.status_code == 200, r.text
        assert r.json()["episodes"] == 2
        rows = [json.loads(line) for line in c.get("/v1/export", params={"user_id": "u"}).text.splitlines()]
        contents = [m["content"] for row in rows if row["kind"] == "episode" for m in row["messages"]]
        assert "J'aime le thé vert " * 5000 in contents
