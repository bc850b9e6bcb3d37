"""A store holding memories whose vectors are still to be computed, opened read-only: a search finds them by
keyword, nothing is written, nothing fails."""

from __future__ import annotations

import json

import pytest

from memscribe import Memory

from .readonly import methods, read_only_home, run_read_only

CHECK = """
import hashlib, json, sys
from memscribe import Memory
store = sys.argv[1]
before = hashlib.sha256(open(store, "rb").read()).hexdigest()
with Memory(store, writer="raw", embedder="hash") as m:
    found = [r["memory"] for r in m.search("green tea", user_id="u")["results"]]
after = hashlib.sha256(open(store, "rb").read()).hexdigest()
print(json.dumps({"found": found, "unchanged": before == after}))
"""


def test_a_read_only_store_finds_memories_not_yet_embedded_by_keyword() -> None:
    available = methods()
    if not available:
        pytest.skip("running as root without chattr +i (CAP_LINUX_IMMUTABLE) or setpriv: no read-only store")
    for method in available:
        with read_only_home() as home:
            m = Memory(home / "store.db", writer="raw", embedder="hash")
            m.add("The first memory records the model.", user_id="u")
            m._indexer.close()
            m.add("I like green tea", user_id="u")  # stored, its vector left to the indexer
            m._core.store.close()  # gone before the indexer ran: the mark stays
            for p in home.rglob("*"):
                if p.suffix == ".lock" or p.name.endswith(("-wal", "-shm")):
                    p.unlink()
            proc = run_read_only(home, method, CHECK, home / "store.db")
            assert proc.returncode == 0 and "Traceback" not in proc.stderr, (method, proc.stderr[-2000:])
            probe, report = proc.stdout.splitlines()[0], json.loads(proc.stdout.splitlines()[-1])
            assert probe == "writable: no", method
            assert "I like green tea" in report["found"] and report["unchanged"], (method, report)
