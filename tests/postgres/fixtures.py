"""pytest fixtures for the PostgreSQL-backed suites: one throwaway cluster per test session, a fresh
database per store. Tests using them carry the ``postgres`` marker (``make test-postgres``) and skip, with the
reason, where the server binaries, pgvector or the ``postgres`` extra are missing."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from postgres.cluster import Cluster, missing_reason

__all__ = ["pg_cluster", "skip_reason"]


def skip_reason() -> str | None:
    if importlib.util.find_spec("psycopg") is None or importlib.util.find_spec("psycopg_pool") is None:
        return "the postgres extra is not installed: pip install -e '.[postgres]'"
    return missing_reason()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    cluster = Cluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()
