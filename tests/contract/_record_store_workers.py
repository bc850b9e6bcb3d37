"""Work run in child processes by the record-store contract suite (importable by a spawned interpreter)."""

from __future__ import annotations

import threading

from memscribe.core.records import Scope
from memscribe.stores.factory import open_store
from memscribe.testing.contract import changeset, make_entry, make_record


def write_facts(spec: str, process: int, threads: int, writes: int) -> list[str]:
    """``threads`` threads each writing ``writes`` one-fact changesets (with a journal line) into its own
    partition and a shared one; returns the version ids acknowledged, raising the first error seen."""
    store = open_store(spec)
    done: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def work(thread: int) -> None:
        try:
            for i in range(writes):
                scope = Scope(f"p{process}t{thread}" if i % 2 else "shared", tenant="acme")
                fact = make_record(scope, f"fact {i} of process {process} thread {thread}")
                assert store.apply(changeset(scope.partition, [fact], journal=(make_entry(scope, fact.id),)))
                with lock:
                    done.append(fact.version_id)
        except BaseException as exc:  # raised again below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    store.close()
    if errors:
        raise errors[0]
    return done
