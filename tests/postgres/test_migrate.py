"""``memscribe migrate``: SQLite → PostgreSQL → SQLite keeps every version, vector, journal line and episode
of every tenant, and the verification catches a copy that differs from its source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memscribe import Memory
from memscribe.cli.main import cli
from memscribe.stores.copy import CopyReport, verify_copy
from memscribe.stores.factory import open_store

pytestmark = pytest.mark.postgres

FACTS = {
    "caroline": ["I moved from Seattle to Sydney in May 2023.", "I work at Atlassian as a designer.",
                 "Actually I moved to Melbourne last week."],
    "dmitri": ["My dog Pushkin loves the beach.", "I stopped drinking coffee, I only drink green tea now."],
}  # fmt: skip
TENANTS = ("default", "globex")


def _listing(m: Memory) -> dict[str, list[str]]:
    return {u: sorted(r["memory"] for r in m.list(user_id=u)["results"]) for u in FACTS}


def _fill(path: Path) -> dict[str, dict[str, list[str]]]:
    listed = {}
    for tenant in TENANTS:
        with Memory(path, writer="lite", embedder="hash", tenant=tenant) as m:
            for user, facts in FACTS.items():
                for fact in facts:
                    m.add(fact, user_id=user)
            listed[tenant] = _listing(m)
    return listed


def _migrate(source: str, target: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["--json", "migrate", "--from", source, "--to", target])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_sqlite_to_postgres_to_sqlite(tmp_path: Path, pg_cluster: Any) -> None:
    first, url, back = tmp_path / "first.db", pg_cluster.create_database(), tmp_path / "back.db"
    listed = _fill(first)
    there = _migrate(str(first), url)
    assert there["verified"] and there["problems"] == [] and there["partitions"] == 4
    assert there["episodes"] == 10 and there["versions"] >= 10 and there["journal"] >= 10 and there["searches"] > 0
    again = _migrate(url, str(back))
    assert again["verified"]
    assert {k: again[k] for k in ("partitions", "versions", "journal", "episodes")} == {
        k: there[k] for k in ("partitions", "versions", "journal", "episodes")
    }
    for spec in (url, str(back)):
        for tenant in TENANTS:
            with Memory(store=spec, writer="lite", embedder="hash", tenant=tenant) as m:
                assert _listing(m) == listed[tenant]
                hits = m.search("Where does Caroline live?", user_id="caroline")["results"]
                assert hits and "Melbourne" in hits[0]["memory"]
                assert len(m.history(hits[0]["id"])) >= 1


def test_migrate_refuses_a_target_that_is_not_empty_and_verify_reports_a_drift(
    tmp_path: Path, pg_cluster: Any
) -> None:
    first, url = tmp_path / "first.db", pg_cluster.create_database()
    _fill(first)
    _migrate(str(first), url)
    result = CliRunner().invoke(cli, ["--json", "migrate", "--from", str(first), "--to", url])
    assert result.exit_code != 0 and "not empty" in result.output
    with Memory(store=url, writer="lite", embedder="hash") as m:  # the copy drifts from its source
        m.add("I took up the cello.", user_id="caroline")
    source, target = open_store(first), open_store(url)
    report = verify_copy(source, target, CopyReport())
    assert not report.verified and any("counts differ" in p for p in report.problems)
    assert any("versions checksum differs" in p for p in report.problems)
    source.close()
    target.close()
