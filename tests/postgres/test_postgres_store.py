"""PostgreSQL-specific behaviour: tenancy enforced by row-level security (not only by the store's own
WHERE clauses), the store selected by URL, and many writer processes through a server restart."""

from __future__ import annotations

import multiprocessing
import queue
import time
from typing import Any

import pytest

from memscribe import Memory
from memscribe.core.records import Scope
from memscribe.settings import open_memory, resolve_settings
from memscribe.stores.factory import open_store
from memscribe.stores.ports import RecordFilter
from memscribe.stores.postgres import PostgresStore
from memscribe.testing.contract import changeset, make_episode, make_record
from postgres.workers import write_facts

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")

pytestmark = pytest.mark.postgres

ALICE, BOB, EVE = Scope("alice", tenant="acme"), Scope("bob", tenant="acme"), Scope("eve", tenant="globex")


def _filled(url: str) -> PostgresStore:
    store = PostgresStore(url)
    for scope in (ALICE, BOB, EVE):
        store.put_episode(make_episode(scope, f"{scope.user_id} said something"))
        assert store.apply(changeset(scope.partition, [make_record(scope, f"{scope.user_id} likes tea")]))
    return store


def _count(conn: Any, sql: str, tenant: str | None, user: str | None) -> int:
    with conn.transaction():
        if tenant is not None:
            conn.execute("SELECT set_config('memscribe.tenant', %s, true), set_config('memscribe.user_id', %s, true)",
                         (tenant, user))  # fmt: skip
        return int(conn.execute(sql).fetchone()[0])  # type: ignore[index]


def test_row_level_security_confines_a_query_without_a_partition_clause(pg_cluster: Any) -> None:
    url = pg_cluster.create_database()
    store = _filled(url)
    with psycopg.connect(url) as conn:  # the store's own role, with no WHERE clause of the store's
        for table in ("memories", "episodes"):
            sql = f"SELECT count(*) FROM {table}"
            assert _count(conn, sql, None, None) == 0  # no partition set: nothing at all
            assert _count(conn, sql, "acme", "alice") == 1
            assert _count(conn, sql, "acme", "*") == 2  # every user of the tenant, never another tenant's
            assert _count(conn, sql, "globex", "*") == 1
            assert _count(conn, sql, "*", "*") == 3
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():  # WITH CHECK
            conn.execute("SELECT set_config('memscribe.tenant', 'acme', true), "
                         "set_config('memscribe.user_id', 'alice', true)")  # fmt: skip
            conn.execute("UPDATE memories SET user_id = 'bob'")
    assert store.check() == []
    admin = PostgresStore(url.replace("memscribe@", "postgres@"))
    assert any("bypasses row-level security" in p for p in admin.check())
    admin.close()
    store.close()


def test_memory_opens_a_postgres_store_by_url(pg_cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    url = pg_cluster.create_database()
    with Memory(store=url, writer="lite", embedder="hash") as m:
        m.add("I moved from Seattle to Sydney in May 2023.", user_id="caroline")
        found = m.search("Where does Caroline live?", user_id="caroline")["results"]
        assert found and "Sydney" in found[0]["memory"]
        assert m.search("Sydney", user_id="someone-else")["results"] == []
    monkeypatch.setenv("MEMSCRIBE_STORE", url)
    monkeypatch.setenv("MEMSCRIBE_EMBEDDER", "hash")
    settings = resolve_settings({})
    assert settings.store.source == "env"
    with open_memory(settings) as m:
        assert m.search("Sydney", user_id="caroline")["results"]
        assert m.purge("caroline")["verified"]
        assert m.search("Sydney", user_id="caroline")["results"] == []
    assert isinstance(open_store(url), PostgresStore)


def _run_writers(url: str, processes: int, threads: int, writes: int, restart: Any) -> tuple[set[str], list[str]]:
    ctx = multiprocessing.get_context("spawn")
    acked, results = ctx.Value("i", 0), ctx.Queue()
    workers = [ctx.Process(target=write_facts, args=(url, p, threads, writes, acked, results))
               for p in range(processes)]  # fmt: skip
    for worker in workers:
        worker.start()
    total, restarted = processes * threads * writes, False
    deadline = time.monotonic() + 400
    while any(w.is_alive() for w in workers) and time.monotonic() < deadline:
        if restart is not None and not restarted and acked.value >= total // 3:
            restart()
            restarted = True
        time.sleep(0.05)
    done, errors = set(), []
    while True:
        try:
            kind, value = results.get(timeout=1)
        except queue.Empty:
            break
        (done.add(value) if kind == "ok" else errors.append(value))
    for worker in workers:
        worker.join(timeout=5)
    assert restart is None or restarted, f"the writers finished before the restart ({acked.value}/{total})"
    return done, errors


@pytest.mark.parametrize("restart", [False, True], ids=["steady", "server-restart"])
def test_eight_processes_of_four_threads_lose_no_write(pg_cluster: Any, restart: bool) -> None:
    """8 processes x 4 threads writing one store: every acknowledged write is there, no error reached a
    writer; with a fast shutdown and restart of the server a third of the way through, the writers retry."""
    url = pg_cluster.create_database()
    PostgresStore(url).stats()  # migrate once up front: the restart should hit writes, not migrations
    processes, threads, writes = 8, 4, 30
    done, errors = _run_writers(url, processes, threads, writes,
                                (lambda: pg_cluster.restart(down_seconds=2.0)) if restart else None)  # fmt: skip
    assert errors == []
    assert len(done) == processes * threads * writes
    store = PostgresStore(url)
    partitions = [("acme", "shared")] + [("acme", f"p{p}t{t}") for p in range(processes) for t in range(threads)]
    stored = {r.version_id for part in partitions for r in store.query(part, RecordFilter(), limit=10_000)}
    assert stored == done  # nothing acknowledged is lost, and nothing was applied twice
    assert store.stats()["journal"] == len(done) and store.check() == []
    store.close()


def test_keyword_search_ranks_on_the_rarer_words_of_a_large_partition(pg_cluster: Any) -> None:
    from memscribe.stores.postgres.search import MATCHED_ROWS_BUDGET

    store = PostgresStore(pg_cluster.create_database())
    common = [make_record(ALICE, f"note {i} about the garden") for i in range(MATCHED_ROWS_BUDGET + 50)]
    rare = [make_record(ALICE, f"the garden gnome Quuxley number {i}") for i in range(2)]
    assert store.apply(changeset(ALICE.partition, common + rare))
    flt = RecordFilter()
    for analyzed in (False, True):  # bounded counts before the first ANALYZE, the column's statistics after
        if analyzed:
            store.run(lambda conn: conn.execute("ANALYZE memories"), ("*", "*"))
        hits = store.keyword_search(ALICE.partition, ["garden", "quuxley"], flt, 10)
        assert {v for v, _ in hits} == {r.version_id for r in rare}  # "garden" is left out: too many matches
        newest = store.keyword_search(ALICE.partition, ["garden"], flt, 5)
        expected = [r.version_id for r in (rare[1], rare[0], common[-1], common[-2], common[-3])]
        assert [v for v, _ in newest] == expected
    assert store.keyword_search(BOB.partition, ["garden"], flt, 5) == []
    store.close()
