"""Crash safety, concurrent writers and purge verification on the SQLite store."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memscribe import Memory

pytestmark = pytest.mark.slow

WRITER = textwrap.dedent(
    """
    import sys
    from memscribe import Memory
    path, ack = sys.argv[1], sys.argv[2]
    m = Memory(path, writer="raw", embedder="hash")
    with open(ack, "a", buffering=1) as out:
        for i in range(100000):
            r = m.add([{"role": "user", "content": f"episode {i} says the number {i * 7}"},
                       {"role": "assistant", "content": f"noted {i}"}], user_id="u", idempotency_key=f"k{i}")
            out.write(r["episode_id"] + "\\n")  # acknowledged: add returned
    """
)


def test_sigkill_during_ingest_loses_no_acknowledged_episode(tmp_path: Path) -> None:
    db, ack = tmp_path / "crash.db", tmp_path / "acks.txt"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(ack)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if ack.exists() and len(ack.read_text().splitlines()) >= 300:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acked = [line for line in ack.read_text().splitlines() if len(line) == 32]
    assert len(acked) >= 300

    m = Memory(db, writer="raw", embedder="hash")
    assert m._core.store.check() == []
    m.process_pending()  # the outbox: episodes stored but not yet written
    conn = sqlite3.connect(db)
    done = {r[0] for r in conn.execute("SELECT id FROM episodes WHERE status = 'done'")}
    assert set(acked) <= done
    # No half-applied write: every episode is done and has exactly its two memories and journal lines.
    per_episode = conn.execute(
        "SELECT e.id, (SELECT COUNT(*) FROM memories m WHERE m.episode_id = e.id), "
        "(SELECT COUNT(*) FROM journal j WHERE j.episode_id = e.id) FROM episodes e"
    ).fetchall()
    assert all(n_mem == 2 and n_journal == 2 for _, n_mem, n_journal in per_episode), per_episode[:5]
    assert conn.execute("SELECT COUNT(*) FROM episodes WHERE status != 'done'").fetchone()[0] == 0
    assert m.search("number", user_id="u")["results"]
    m.close()


CONCURRENT = textwrap.dedent(
    """
    import sys, threading
    from memscribe import Memory
    path, proc_id = sys.argv[1], sys.argv[2]
    m = Memory(path, writer="raw", embedder="hash", config=None)
    errors = []
    def work(t):
        try:
            for i in range(25):
                m.add(f"process {proc_id} thread {t} write {i} about topic{i % 5}", user_id=f"user{t % 2}")
                if i % 5 == 0:
                    m.search(f"topic{i % 5}", user_id=f"user{t % 2}")
        except Exception as exc:
            errors.append(repr(exc))
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    print("ERRORS", errors)
    sys.exit(1 if errors else 0)
    """
)


def test_four_processes_by_four_threads_write_one_store(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(db), str(p)], stdout=subprocess.PIPE, text=True
        )
        for p in range(4)
    ]
    outputs = [p.communicate(timeout=240)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert not any("locked" in o for o in outputs)
    m = Memory(db, writer="raw", embedder="hash")
    texts = {h["memory"] for u in ("user0", "user1") for h in m.list(user_id=u, limit=1000)["results"]}
    expected = {
        f"process {p} thread {t} write {i} about topic{i % 5}"
        for p in range(4)
        for t in range(4)
        for i in range(25)
    }
    assert texts == expected
    assert m._core.store.check() == []
    m.close()


def test_purge_leaves_no_bytes_in_any_file(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    m = Memory(db, writer="raw", embedder="hash")
    secret_lines = [f"Zanzibar-{i} is where my hidden diary number {i} lives quietly" for i in range(200)]
    for i, line in enumerate(secret_lines):
        m.add([{"role": "user", "content": line}], user_id="victim")
        if i % 20 == 0:
            m.search(f"diary {i}", user_id="victim")  # builds and updates the vector index
        m.add(f"Bob's ordinary note {i} about the weather", user_id="bob")
    m._core.store.vectors.save_all()  # index files on disk hold the victim's vectors too
    report = m.purge("victim")
    assert report["verified"] and report["memories"] == 200 and report["episodes"] == 200
    for path in tmp_path.iterdir():
        if path.is_file():
            blob = path.read_bytes()
            assert b"Zanzibar" not in blob and b"hidden diary" not in blob, path
        elif path.is_dir():
            for inner in path.iterdir():
                assert b"Zanzibar" not in inner.read_bytes()
    assert m.list(user_id="victim")["results"] == []
    assert len(m.list(user_id="bob", limit=1000)["results"]) == 200
    assert m.search("weather", user_id="bob")["results"]
    m.close()


def test_read_only_store_gives_a_clear_error_and_no_corruption(tmp_path: Path) -> None:
    from memscribe.errors import StoreError

    db = tmp_path / "ro.db"
    m = Memory(db, writer="raw", embedder="hash")
    m.add("before read only", user_id="u")
    m.close()
    os.chmod(db, 0o444)
    # Root writes through any mode: make the file immutable instead (tests/adversarial checks a read-only
    # directory as root too, through setpriv when chattr is not allowed).
    immutable = os.geteuid() == 0 and shutil.which("chattr") is not None
    if os.geteuid() == 0 and not (immutable and subprocess.run(["chattr", "+i", str(db)]).returncode == 0):
        pytest.skip("as root a read-only file needs chattr +i (CAP_LINUX_IMMUTABLE), refused here")
    try:
        m2 = Memory(db, writer="raw", embedder="hash")
        with pytest.raises(StoreError):
            m2.add("after", user_id="u")
        assert [r["memory"] for r in m2.list(user_id="u")["results"]] == ["before read only"]
        m2.close()
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(db)], check=False)


FULL_DISK = textwrap.dedent(
    """
    import json, resource, signal, sys
    from memscribe import Memory
    from memscribe.errors import StoreError
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    path, ack, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    m = Memory(path, writer="raw", embedder="hash")
    acked, error = [], None
    for i in range(100000):
        try:
            m.add(f"filler note {i} " + "lorem ipsum " * 40, user_id="u")
            acked.append(i)
        except StoreError as exc:
            error = type(exc).__name__ + ": " + str(exc)
            break
    json.dump({"acked": acked, "error": error}, open(ack, "w"))
    """
)


def test_full_disk_gives_a_clear_error_and_no_corruption(tmp_path: Path) -> None:
    import json

    db, ack = tmp_path / "full.db", tmp_path / "result.json"
    subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(db), str(ack), str(3 * 1024 * 1024)], timeout=120, check=True
    )
    result = json.loads(ack.read_text())
    assert result["error"] and ("full" in result["error"].lower() or "store" in result["error"].lower())
    assert len(result["acked"]) > 10
    m = Memory(db, writer="raw", embedder="hash")
    assert m._core.store.check() == []
    texts = {h["memory"] for h in m.list(user_id="u", limit=1000)["results"]}
    assert {f"filler note {i} " + "lorem ipsum " * 40 for i in result["acked"]} <= {
        t + " " for t in texts
    } | texts
    m.close()
