"""``memscribe doctor`` on a PostgreSQL store URL: the connection, the schema's migrations, row-level security,
the vector index and the counts, each with its verdict; nothing is migrated or written by the doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memscribe.cli.doctor import run_checks
from memscribe.core.records import Scope
from memscribe.settings import resolve_settings
from memscribe.stores.ports import RecordFilter
from memscribe.stores.postgres import PostgresStore
from memscribe.testing.contract import EMBEDDER, changeset, make_record

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

pytestmark = pytest.mark.postgres

ALICE = Scope("alice", tenant="acme")


def _verdicts(url: str, tmp_path: Path) -> dict[str, tuple[str, str]]:
    env = {"MEMSCRIBE_STORE": url, "MEMSCRIBE_HOME": str(tmp_path / "home"), "MEMSCRIBE_EMBEDDER": "hash:32",
           "MEMSCRIBE_WRITER": "raw"}  # fmt: skip
    return {c.name: (c.verdict, c.detail) for c in run_checks(resolve_settings({}, env))}


def test_doctor_reads_a_fresh_database_without_migrating_it(pg_cluster: Any, tmp_path: Path) -> None:
    url = pg_cluster.create_database()
    checks = _verdicts(url, tmp_path)
    assert checks["store"][0] == "ok" and "role memscribe" in checks["store"][1]
    assert checks["migrations"][0] == "warn" and "not created yet" in checks["migrations"][1]
    assert checks["row-level security"][0] == checks["integrity and counts"][0] == "skip"
    assert pg_cluster.psql("SELECT to_regclass('memories') IS NULL").strip() == "t"  # still empty
    assert not (tmp_path / "home").exists()


def test_doctor_on_a_store_in_use_then_with_row_security_off(pg_cluster: Any, tmp_path: Path) -> None:
    url = pg_cluster.create_database()
    store = PostgresStore(url)
    records = [make_record(ALICE, f"Alice note {i}") for i in range(3)]
    assert store.apply(changeset(ALICE.partition, records))
    assert _verdicts(url, tmp_path)["vector index"][0] == "warn"  # the HNSW index comes with the first search
    assert store.vector_search(ALICE.partition, EMBEDDER.embed(["note"])[0], EMBEDDER.model_id, RecordFilter(), 3)
    store.close()
    checks = _verdicts(url, tmp_path)
    assert {name: verdict for name, (verdict, _) in checks.items()} == {
        "store": "ok", "migrations": "ok", "row-level security": "ok", "vector index": "ok",
        "integrity and counts": "ok", "writer": "ok", "model": "skip", "embedder": "ok",
    }  # fmt: skip
    assert checks["integrity and counts"][1].startswith("3 current memories (3 versions)")
    assert "enabled and forced on episodes, journal, memories" in checks["row-level security"][1]
    database = url.rsplit("/", 1)[1]
    pg_cluster.psql("ALTER TABLE journal NO FORCE ROW LEVEL SECURITY", database=database)
    pg_cluster.psql("DROP INDEX memories_keywords", database=database)
    checks = _verdicts(url, tmp_path)
    assert checks["row-level security"] == ("fail", "row-level security not enabled and forced on: journal")
    assert checks["vector index"][0] == "fail" and "keyword index MISSING" in checks["vector index"][1]


def test_doctor_fails_an_unreachable_server(tmp_path: Path) -> None:
    checks = _verdicts("postgresql://memscribe@127.0.0.1:9/memscribe", tmp_path)
    assert checks["store"][0] == "fail" and "unreachable" in checks["store"][1]
    assert "migrations" not in checks
