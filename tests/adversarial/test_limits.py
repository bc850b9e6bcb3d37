"""Sizes on the import path: ``/v1/import`` has its own, configurable limit (not a quarter of a gigabyte),
a body over it is a 413 that says what to do, wherever in the stream the limit is crossed, and nothing of
the refused body is stored. A long line arriving in many small chunks is still read in linear time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from memscribe import Memory
from memscribe.cli.main import cli
from memscribe.server import ServerSettings, create_app
from memscribe.server.settings import DEFAULT_IMPORT_BYTES, MiB

NDJSON = {"Content-Type": "application/x-ndjson"}


def _export(tmp_path: Path, count: int) -> list[str]:
    with Memory(tmp_path / "source.db", writer="raw", embedder="hash") as m:
        for i in range(count):
            m.add(f"I keep notebook number {i} on the shelf", user_id="u")
        return m.export("u") or []


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = ServerSettings(store_path=tmp_path / "s.db", embedder="hash", no_auth=True,
                              max_body_bytes=4096, max_import_bytes=64 * 1024)  # fmt: skip
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        yield c


def _stored(client: TestClient) -> Any:
    return client.get("/v1/stats", params={"user_id": "u"}).json()


def _refused(response: Any) -> None:
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["code"] == "payload_too_large"
    assert "65536 bytes" in error["message"] and "nothing was imported" in error["message"]
    assert "--max-import" in error["message"]


def test_the_import_limit_is_sane_by_default_and_set_by_serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    assert ServerSettings(store_path=tmp_path / "s.db").max_import_bytes == DEFAULT_IMPORT_BYTES <= 64 * MiB
    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(settings=app.state.memscribe.settings))
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "serve", "--no-auth", "--max-import", "2000000"])
    assert result.exit_code == 0, result.output
    assert seen["settings"].max_import_bytes == 2_000_000


def test_an_import_within_the_limit_is_whole(client: TestClient, tmp_path: Path) -> None:
    lines = _export(tmp_path, 5)
    body = "".join(line + "\n" for line in lines).encode()
    assert len(body) > 4096  # over the ordinary body limit, under the import limit
    r = client.post("/v1/import", content=body, headers=NDJSON)
    assert r.status_code == 200, r.text
    assert _stored(client)["episodes"] == 5


def test_an_import_over_the_limit_is_refused_whole_by_its_length(client: TestClient, tmp_path: Path) -> None:
    lines = _export(tmp_path, 5)
    body = "".join(line + "\n" for line in lines).encode() + b" " * (64 * 1024)
    _refused(client.post("/v1/import", content=body, headers=NDJSON))
    assert _stored(client)["episodes"] == 0


def test_an_import_crossing_the_limit_mid_stream_stores_nothing(client: TestClient, tmp_path: Path) -> None:
    lines = _export(tmp_path, 40)
    assert sum(len(line) + 1 for line in lines) > 64 * 1024

    def chunks() -> Iterator[bytes]:  # no Content-Length: valid rows first, the limit crossed later
        for line in lines:
            yield line.encode() + b"\n"

    _refused(client.post("/v1/import", content=chunks(), headers=NDJSON))
    assert _stored(client)["episodes"] == 0 and _stored(client)["current"] == 0
    fitting = [line for line in lines if json.loads(line)["kind"] in ("header",)] + lines[1:10]
    r = client.post("/v1/import", content="\n".join(fitting).encode(), headers=NDJSON)
    assert r.status_code == 200, r.text  # the server is fine afterwards


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
