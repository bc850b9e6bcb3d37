"""The web UI in a real headless Chromium (Debian's ``chromium``, driven by Playwright's Python API), against
``memscribe serve`` spawned on 127.0.0.1 with a fixture store and a tenant key. Any console error or page
error fails the test. Screenshots go to ``.artifacts/ui/`` (or ``$MEMSCRIBE_UI_ARTIFACTS``).

Run with ``make test-ui``; ``make test`` skips these (see conftest.py)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from memscribe.server.keys import KeyStore
from tests._server_support import serve
from tests.ui.fixture_store import MARKUP, build

pytestmark = pytest.mark.ui

playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
CHROMIUM = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None)
if CHROMIUM is None:
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)
ARTIFACTS = Path(os.environ.get("MEMSCRIBE_UI_ARTIFACTS") or Path(__file__).parents[2] / ".artifacts" / "ui")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    home = tmp_path_factory.mktemp("ui-browser") / "ms"
    home.mkdir()
    ids = build(home / "memscribe.db")
    token = KeyStore(home / "keys.db").create("default", "browser test").token
    with serve(["memscribe", "serve"], home, "/healthz") as served:
        yield {"served": served, "ids": ids, "token": token}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, server: dict[str, Any], request: pytest.FixtureRequest) -> Iterator[Any]:
    """A signed-in page; the test fails on any console error or uncaught page error."""
    context = browser.new_context(base_url=server["served"].url)
    tab = context.new_page()
    problems: list[str] = []
    tab.on(
        "console",
        lambda msg: (
            problems.append(f"console {msg.type}: {msg.text} at {msg.location}") if msg.type == "error" else None
        ),
    )
    tab.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    tab.goto("/ui/")
    assert "/ui/login" in tab.url  # keys are required: the sign-in form first
    tab.fill("#key", server["token"])
    tab.keyboard.press("Enter")
    tab.wait_for_url("**/ui/")
    yield tab
    context.close()
    assert not problems, "\n".join(problems)


def _shot(tab: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    assert (ARTIFACTS / f"{name}.png").stat().st_size > 1000


def test_search_open_a_memory_and_see_its_history(page: Any, server: dict[str, Any]) -> None:
    _shot(page, "01-overview")
    page.keyboard.press("/")  # the search shortcut
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("Sydney")
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/search?**")
    assert "Whose memory?" in page.inner_text("main")  # two users in the store
    page.click("text=ana")
    live = page.locator("#search-q")
    live.fill("moved Sydney")  # htmx: results come as you type, no submit
    page.wait_for_selector("#results ol.hits li")
    assert "I moved to Sydney in May 2024." in page.inner_text("#results")
    assert parse_qs(urlsplit(page.url).query)["q"] == ["moved Sydney"]  # pushed into the address bar
    _shot(page, "02-search")
    page.click("#results a:has-text('I moved to Sydney')")
    page.wait_for_url(f"**/ui/memories/{server['ids']['sydney']}**")
    chain = page.inner_text("table:has(caption:text('Version chain'))")
    assert "I live in Seattle." in chain and "superseded" in chain and "2024-05-01 00:00" in chain
    why = page.inner_text("table:has(caption:text('What changed it'))")
    assert "SUPERSEDE" in why and "residence of user changed from 'seattle' to 'sydney'" in why
    assert "I moved to Sydney last month." in page.inner_text("section.episode >> nth=1")
    _shot(page, "03-memory-history")
    page.click(f"a[href*='/ui/memories/{server['ids']['seattle']}']:has-text('01a')>>nth=0")
    assert "I live in Seattle." in page.inner_text("blockquote.memory")  # the superseded version's page


def test_markup_in_a_memory_is_shown_as_text(page: Any, server: dict[str, Any]) -> None:
    page.goto(f"/ui/memories/{server['ids']['markup']}?user=ana")
    assert page.inner_text("blockquote.memory") == MARKUP
    assert page.locator("main b").count() == 0 and page.locator("main script").count() == 0
    _shot(page, "04-markup-as-text")


def test_forget_a_memory_and_it_is_gone(page: Any, server: dict[str, Any]) -> None:
    target = server["ids"]["postgres"]
    page.goto("/ui/search?user=ana&q=PostgreSQL+orders")
    page.click("#results a:has-text('PostgreSQL 16')")
    page.click("text=Forget this memory…")
    page.wait_for_selector("[role=alertdialog]")
    assert "PostgreSQL 16" in page.inner_text("[role=alertdialog]")
    _shot(page, "05-forget-confirm")
    page.focus("button[value=yes]")  # keyboard: the confirmation is an ordinary form
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/search?user=ana&done=forgot")
    assert "erased" in page.inner_text("[role=status]")
    page.fill("#search-q", "PostgreSQL orders")
    page.keyboard.press("Enter")
    page.wait_for_selector("#results [role=status]")
    assert "PostgreSQL 16" not in page.inner_text("#results")
    _shot(page, "06-forgotten")
    gone = page.request.get(f"/ui/memories/{target}?user=ana")  # not a navigation: a 404 page is no console error
    assert gone.status == 404 and "PostgreSQL" not in gone.text()


def test_purge_a_user_with_confirmation(page: Any, server: dict[str, Any]) -> None:
    page.click("a[href='/ui/purge?user=bob']")
    page.wait_for_selector("[role=alertdialog]")
    page.fill("#typed", "bo")  # a wrong confirmation purges nothing
    page.click("button[value=yes]")
    assert "nothing was purged" in page.inner_text("[role=alert]")
    page.fill("#typed", "bob")  # the confirmation, asked again
    _shot(page, "07-purge-confirm")
    page.click("button[value=yes]")
    assert re.search(r"Purged bob: 1 memories, 1 episodes, \d+ journal entries; verified", page.inner_text("main"))
    _shot(page, "08-purged")
    page.goto("/ui/")
    assert page.locator("a[href='/ui/purge?user=bob']").count() == 0


def test_timeline_and_sources(page: Any, server: dict[str, Any]) -> None:
    page.goto("/ui/timeline?user=ana")
    page.select_option("#project", "/work/orders")
    page.click("form.picker button")
    page.wait_for_url("**project=%2Fwork%2Forders**")
    days = page.locator("main section h2").all_inner_texts()
    assert days == sorted(days, reverse=True) and "2024-05-01" in days
    _shot(page, "09-timeline")
    page.goto("/ui/sources")
    assert "claude-code" in page.inner_text("table")
    _shot(page, "10-sources")
