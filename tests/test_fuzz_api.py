"""Schemathesis against the served OpenAPI spec: generated requests for every operation, bounded so the
run stays well under a minute. Nothing may answer 5xx, and every answer must match the documented status
codes, content types and response schemas."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from _server_support import ADMIN_KEY, bearer
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from memscribe.server import KeyStore, ServerSettings, create_app

EXAMPLES_PER_OPERATION = 30
schemathesis.serializer.alias("application/x-ndjson", "text/plain")  # the import body is plain text lines
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    home: Path = tmp_path_factory.mktemp("fuzz")
    cfg = ServerSettings(
        store_path=home / "store.db", embedder="hash", admin_key=ADMIN_KEY, max_body_bytes=256_000,
        allowed_hosts=("testserver",),  # the ASGI test client's Host
    )  # fmt: skip
    app = create_app(cfg)
    key = KeyStore(cfg.resolved_keys_path).create("fuzz").token
    yield app, bearer(key)
    app.state.memscribe.pool.close()


def fuzz(operation: Any, headers: dict[str, str], statuses: Counter[int]) -> None:
    """Generated cases for one operation, each sent and checked; statuses tallied."""

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def run(case: Any) -> None:
        response = case.call(headers=headers)
        statuses[response.status_code] += 1
        case.validate_response(response, checks=CHECKS, headers=headers)

    run()


def test_generated_requests_never_fail_the_contract(
    served: tuple[Any, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    app, tenant_headers = served
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25
    for operation in operations:
        admin = "admin" in operation.path or operation.path == "/metrics"
        fuzz(operation, bearer(ADMIN_KEY) if admin else tenant_headers, statuses)
    elapsed = time.monotonic() - started
    count = sum(statuses.values())
    line = (
        f"schemathesis: {count} generated cases over {len(operations)} operations in {elapsed:.1f}s; "
        f"statuses {dict(sorted(statuses.items()))}"
    )
    with capsys.disabled():  # shown in every run, not only with -s
        print(f"\n{line}")
    assert count >= len(operations) and statuses[200] > 0
