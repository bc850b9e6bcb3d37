"""The web UI over plain HTTP (FastAPI's TestClient): escaping, sign-in, CSRF, forget and purge, sources.

The same flows in a real browser are in test_ui_browser.py (``make test-ui``)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from memscribe.server.app import create_app
from memscribe.server.keys import KeyStore
from memscribe.server.settings import ServerSettings
from memscribe.server.ui.hubstatus import hub_path
from tests.ui.fixture_store import MARKUP, PROJECT, build

ADMIN = "admin-key-for-ui-tests-0123456789"
LOCAL = ("127.0.0.1", 50000)


@pytest.fixture
def store(tmp_path: Path) -> dict[str, Any]:
    db = tmp_path / "memscribe.db"
    return {"db": db, "ids": build(db)}


def _client(settings: ServerSettings, **kw: Any) -> TestClient:
    kw.setdefault("client", LOCAL)
    return TestClient(create_app(settings), base_url="http://127.0.0.1", follow_redirects=False, **kw)


@pytest.fixture
def open_ui(store: dict[str, Any]) -> Iterator[TestClient]:
    with _client(ServerSettings(store_path=store["db"], no_auth=True, embedder="hash", writer="lite")) as c:
        yield c


@pytest.fixture
def keyed(store: dict[str, Any]) -> Iterator[tuple[TestClient, str, KeyStore]]:
    keys = KeyStore(store["db"].parent / "keys.db")
    token = keys.create("default", "ui").token
    settings = ServerSettings(store_path=store["db"], admin_key=ADMIN, embedder="hash", writer="lite")
    with _client(settings) as c:
        yield c, token, keys


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has no CSRF field"
    return found.group(1)


def _form(client: TestClient, path: str, **fields: str) -> Any:
    return client.post(path, data=fields, headers={"Content-Type": "application/x-www-form-urlencoded"})


def test_memory_text_with_markup_renders_as_text(open_ui: TestClient, store: dict[str, Any]) -> None:
    page = open_ui.get(f"/ui/memories/{store['ids']['markup']}")
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "<b>bold</b>" not in page.text
    assert html.escape(MARKUP, quote=True) in page.text  # every character there, as text
    found = open_ui.get("/ui/search", params={"q": "script alert pwned bold note", "user": "ana"})
    assert "&lt;script&gt;" in found.text and "<script>alert" not in found.text
    query = open_ui.get("/ui/search", params={"q": '"><script>x()</script>', "user": "ana"}).text
    assert "<script>x()" not in query and "&quot;&gt;&lt;script&gt;x()" in query


def test_pages_send_a_strict_content_security_policy(open_ui: TestClient) -> None:
    page = open_ui.get("/ui/")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert page.headers["cache-control"] == "no-store" and page.headers["x-content-type-options"] == "nosniff"
    assert "<style" not in page.text and "onclick" not in page.text  # nothing inline for the policy to block
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/ui" in cookie


def test_memory_page_shows_the_version_chain_and_source_turns(open_ui: TestClient, store: dict[str, Any]) -> None:
    page = open_ui.get(f"/ui/memories/{store['ids']['sydney']}").text
    assert "Version chain" in page and "I live in Seattle." in page and "I moved to Sydney in May 2024." in page
    assert "superseded" in page and "2024-05-01 00:00" in page  # the old residence's valid_to
    assert "residence of user changed from &#x27;seattle&#x27; to &#x27;sydney&#x27;" in page  # why
    assert "I moved to Sydney last month." in page  # the source turn
    assert f"/ui/memories/{store['ids']['seattle']}" in page  # what it superseded, linked


def test_search_overview_timeline_and_users(open_ui: TestClient, store: dict[str, Any]) -> None:
    overview = open_ui.get("/ui/").text
    assert "ana" in overview and "bob" in overview and "/ui/purge?user=bob" in overview
    assert "Whose memory?" in open_ui.get("/ui/search", params={"q": "tabs"}).text  # two users: pick one
    hits = open_ui.get("/ui/search", params={"q": "PostgreSQL orders", "user": "ana"}).text
    assert f"/ui/memories/{store['ids']['postgres']}?user=ana" in hits and "Bob prefers" not in hits
    timeline = open_ui.get("/ui/timeline", params={"user": "ana", "project": PROJECT}).text
    assert timeline.index("2024-05-01") < timeline.index("2024-03-02") < timeline.index("2024-01-02")  # newest first
    assert "Seattle" in timeline and f'<option value="{PROJECT}" selected>' in timeline
    assert "Nothing recorded" in open_ui.get("/ui/timeline", params={"user": "ana", "project": "/none"}).text


def test_forget_needs_csrf_and_confirmation_then_the_memory_is_gone(open_ui: TestClient, store: dict[str, Any]) -> None:
    target = store["ids"]["postgres"]
    confirm = open_ui.get(f"/ui/memories/{target}/forget", params={"user": "ana"})
    assert "Forget for good" in confirm.text and "PostgreSQL 16" in confirm.text
    token = _csrf(confirm.text)
    assert _form(open_ui, f"/ui/memories/{target}/forget", user="ana", confirm="yes").status_code == 403
    assert _form(open_ui, f"/ui/memories/{target}/forget", user="ana", confirm="yes", csrf="x" * 32).status_code == 403
    assert _form(open_ui, f"/ui/memories/{target}/forget", user="ana", csrf=token).status_code == 400
    assert open_ui.get(f"/ui/memories/{target}").status_code == 200  # nothing erased by the refusals
    done = _form(open_ui, f"/ui/memories/{target}/forget", user="ana", confirm="yes", csrf=token)
    assert done.status_code == 303 and done.headers["location"] == "/ui/search?user=ana&done=forgot"
    assert open_ui.get(f"/ui/memories/{target}").status_code == 404
    assert target not in open_ui.get("/ui/search", params={"q": "PostgreSQL orders", "user": "ana"}).text


def test_purge_needs_the_user_typed(open_ui: TestClient) -> None:
    token = _csrf(open_ui.get("/ui/purge", params={"user": "bob"}).text)
    again = _form(open_ui, "/ui/purge", user="bob", confirm="yes", typed="bo", csrf=token)
    assert "does not match; nothing was purged" in again.text and 'id="typed"' in again.text
    assert _form(open_ui, "/ui/purge", user="bob", typed="bob", csrf=token).status_code == 400  # no button
    assert "/ui/purge?user=bob" in open_ui.get("/ui/").text
    done = _form(open_ui, "/ui/purge", user="bob", confirm="yes", typed="bob", csrf=token)
    assert done.status_code == 200 and "verified: no byte of it is left" in done.text
    assert "/ui/purge?user=bob" not in open_ui.get("/ui/").text


def test_cross_site_form_posts_are_refused(open_ui: TestClient, store: dict[str, Any]) -> None:
    token = _csrf(open_ui.get("/ui/").text)
    evil = open_ui.post(
        "/ui/purge",
        data={"user": "ana", "confirm": "yes", "typed": "ana", "csrf": token},
        headers={"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert evil.status_code == 403 and open_ui.get(f"/ui/memories/{store['ids']['sydney']}").status_code == 200


def test_sign_in_with_a_tenant_key(keyed: tuple[TestClient, str, KeyStore], store: dict[str, Any]) -> None:
    client, token, keys = keyed
    first = client.get("/ui/timeline?user=ana")
    assert first.status_code == 303 and first.headers["location"] == "/ui/login?next=%2Fui%2Ftimeline%3Fuser%3Dana"
    assert _form(client, "/ui/login", key="msk_nope_nope", next="/ui/").status_code == 401
    assert "sign in with a tenant key" in _form(client, "/ui/login", key=ADMIN, next="/ui/").text
    done = _form(client, "/ui/login", key=token, next="https://evil.example/")
    assert done.status_code == 303 and done.headers["location"] == "/ui/"  # never sent off the UI
    cookie = done.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and token.lower() not in cookie
    assert "I moved to Sydney" in client.get(f"/ui/memories/{store['ids']['sydney']}").text
    keys.revoke(keys.list("default")[0].id)
    assert client.get("/ui/").status_code == 303  # a revoked key's session ends at once


def test_a_key_in_a_header_works_without_a_session(keyed: tuple[TestClient, str, KeyStore]) -> None:
    client, token, _ = keyed
    page = client.get("/ui/search", params={"q": "Sydney", "user": "ana"}, headers={"X-API-Key": token})
    assert page.status_code == 200 and "Sydney" in page.text
    assert client.get("/ui/", headers={"Authorization": "Bearer msk_x_y"}).status_code == 401


def test_sign_out_ends_the_session(keyed: tuple[TestClient, str, KeyStore]) -> None:
    client, token, _ = keyed
    _form(client, "/ui/login", key=token, next="/ui/")
    csrf = _csrf(client.get("/ui/").text)
    assert _form(client, "/ui/logout", csrf=csrf).status_code == 303
    assert client.get("/ui/").status_code == 303


def test_sources_show_the_hub_status(open_ui: TestClient, store: dict[str, Any]) -> None:
    from memscribe.hub.state import HubState, signature

    before = open_ui.get("/ui/sources").text
    assert "claude-code" in before and "never" in before and not hub_path(store["db"]).exists()  # not created
    hub = HubState(hub_path(store["db"]))
    hub.save_cursor("codex", Path("/h/a.jsonl"), signature([Path("/h/a.jsonl")])[1], None)
    hub.plan("codex", "s1", [("ep1", ["t1", "t2", "t3"])])
    hub.finish("codex", "s1", ["ep1"], path="/h/a.jsonl", project=PROJECT)
    hub.close()
    row = re.search(r"<tr><td>codex</td>(.*?)</tr>", open_ui.get("/ui/sources").text)
    assert row and "<td>1</td><td>1</td><td>3</td><td>1</td>" in row.group(1)


def test_remote_clients_are_refused_on_a_loopback_server(store: dict[str, Any]) -> None:
    settings = ServerSettings(store_path=store["db"], no_auth=True, embedder="hash")
    with _client(settings, client=("10.1.2.3", 4000)) as c:
        assert c.get("/ui/").status_code == 403


def test_bundled_assets_are_served(open_ui: TestClient) -> None:
    js = open_ui.get("/ui/static/htmx.min.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript") and "htmx" in js.text
    assert "Zero-Clause BSD" in open_ui.get("/ui/static/htmx.LICENSE.txt").text
    assert open_ui.get("/ui/static/../app.py").status_code == 404
    assert open_ui.get("/ui/static/nope.js").status_code == 404
    assert open_ui.get("/ui").status_code == 308


def test_an_empty_store_has_pages_too(tmp_path: Path) -> None:
    settings = ServerSettings(store_path=tmp_path / "empty.db", no_auth=True, embedder="hash")
    with _client(settings) as c:
        assert c.get("/ui/").status_code == 200
        assert "no memories yet" in c.get("/ui/search", params={"q": "x"}).text
        assert c.get("/ui/timeline").status_code == 200 and c.get("/ui/sources").status_code == 200
        assert c.get("/ui/memories/nope").status_code == 404
