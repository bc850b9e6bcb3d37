"""Browser tests (marker ``ui``) run only when asked for with ``-m ui`` (``make test-ui``), and skip with the
reason when Chromium or Playwright's Python package is missing."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "ui" in str(config.getoption("markexpr") or "").split():
        return
    skip = pytest.mark.skip(reason="browser test: run with make test-ui (pytest -m ui)")
    for item in items:
        if item.get_closest_marker("ui"):
            item.add_marker(skip)
