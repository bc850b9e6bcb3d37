"""Negative fuzzing (``make test-slow``): schemathesis generates invalid requests (wrong types, missing and
extra fields, out-of-range values) for every operation. None may answer 5xx, and every error must be the one
error shape, ``{"error": {"code", "message"}}``, with a code from the error table or the HTTP refusals."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from memscribe.errors import ERROR_TABLE
from memscribe.server import KeyStore, ServerSettings, create_app
from memscribe.server.errors import _HTTP_CODES

PER_OPERATION = 85  # 25 of the 26 operations have something invalid to send: over 2,000 cases
ADMIN = "admin-key-0123456789abcdef"
CODES = {info.code for info in ERROR_TABLE.values()} | set(_HTTP_CODES.values()) | {"misdirected_request"}
schemathesis.serializer.alias("application/x-ndjson", "text/plain")


@pytest.mark.soak
@pytest.mark.timeout(1200)
def test_invalid_requests_never_get_a_5xx(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = ServerSettings(store_path=tmp_path / "s.db", embedder="hash", admin_key=ADMIN,
                         allowed_hosts=("testserver",))  # fmt: skip
    app = create_app(cfg)
    tenant = {"Authorization": f"Bearer {KeyStore(cfg.resolved_keys_path).create('fuzz').token}"}
    admin = {"Authorization": f"Bearer {ADMIN}"}
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    started = time.monotonic()
    operations = [result.ok() for result in schema.get_all_operations()]
    for operation in operations:
        headers = admin if "admin" in operation.path or operation.path == "/metrics" else tenant
        try:
            _fuzz(operation, headers, statuses, failures)
        except Unsatisfiable:  # nothing invalid to send: an operation without parameters or body
            continue
    app.state.memscribe.pool.close()
    count = sum(statuses.values())
    with capsys.disabled():
        print(f"\nnegative fuzzing: {count} cases over {len(operations)} operations in "
              f"{time.monotonic() - started:.0f}s; statuses {dict(sorted(statuses.items()))}")  # fmt: skip
    assert count >= 2_000
    assert failures == []


def _fuzz(operation: Any, headers: dict[str, str], statuses: Counter[int], failures: list[str]) -> None:
    @given(case=operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    @settings(max_examples=PER_OPERATION, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def run(case: Any) -> None:
        response = case.call(headers=headers)
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.path}: {response.status_code} {response.text[:200]}")
        elif response.status_code >= 400:
            error = response.json().get("error", {})
            if error.get("code") not in CODES or not error.get("message"):
                failures.append(f"{case.method} {case.path}: error body {response.text[:200]}")

    run()
