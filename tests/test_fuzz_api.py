"""Schemathesis against the served OpenAPI spec: generated requests for every operation, bounded so the
run stays well under a minute. Nothing may answer 5xx, and every answer must match the documented status
codes, content types and response schemas."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from _server_support import ADMIN_KEY, bearer
from memscribe.server import KeyStore, ServerSettings, create_app

EXAMPLES_PER_OPERATION = 25
schemathesis.serializer.alias("application/x-ndjson", "text/plain")  # the import body is plain text lines
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    home: Path = tmp_path_factory.mktemp("fuzz")
    cfg = ServerSettings(store_path=home / "store.db", embedder="hash", admin_key=ADMIN_KEY, max_body_bytes=256_000)
    app = create_app(cfg)
    key = KeyStore(cfg.resolved_keys_path).create("fuzz").token
    yield app, bearer(key)
    app.state.memscribe.pool.close()


def test_generated_requests_never_fail_the_contract(
    served: tuple[Any, dict[str, str]], pytestconfig: pytest.Config
) -> None:
    app, tenant_headers = served
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    count = 0
    started = time.monotonic()
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25
    for operation in operations:
        headers = bearer(ADMIN_KEY) if "admin" in operation.path or operation.path == "/metrics" else tenant_headers

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        def run(case: Any) -> None:
            nonlocal count
            count += 1
            response = case.call(headers=headers)
            case.validate_response(response, checks=CHECKS, headers=headers)

        run()
    elapsed = time.monotonic() - started
    reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
    line = f"schemathesis: {count} generated cases over {len(operations)} operations in {elapsed:.1f}s"
    if reporter is not None:
        reporter.write_line(line)
    print(line)
    assert count >= len(operations)
