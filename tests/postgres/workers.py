"""Writer processes for the PostgreSQL load tests (importable by a spawned interpreter)."""

from __future__ import annotations

import threading
from typing import Any

from memscribe.core.records import Scope
from memscribe.stores.postgres import PostgresStore
from memscribe.testing.contract import changeset, make_entry, make_record


def write_facts(url: str, process: int, threads: int, writes: int, acked: Any, results: Any) -> None:
    """``threads`` threads each apply ``writes`` one-fact changesets (a record and its journal line), half in
    the thread's own partition and half in one shared by every writer; each acknowledged version id is put on
    ``results`` and counted in ``acked``. A raised error is put on ``results`` as ``("error", text)``."""
    store = PostgresStore(url, max_connections=threads, retry_seconds=90.0)

    def work(thread: int) -> None:
        try:
            for i in range(writes):
                scope = Scope(f"p{process}t{thread}" if i % 2 else "shared", tenant="acme")
                fact = make_record(scope, f"fact {i} of process {process} thread {thread}")
                assert store.apply(changeset(scope.partition, [fact], journal=(make_entry(scope, fact.id),)))
                results.put(("ok", fact.version_id))
                with acked.get_lock():
                    acked.value += 1
        except BaseException as exc:  # reported to the test, which fails on it
            results.put(("error", f"{type(exc).__name__}: {exc}"))

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    store.close()
