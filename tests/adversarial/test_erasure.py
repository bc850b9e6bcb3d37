"""Forget and purge leave no byte behind: byte scans over every engine-owned file and output, while the process
lives, after a simulated crash, racing in-flight adds, and with another process holding the vector index."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from memscribe import Memory
from memscribe.errors import NotFound
from memscribe.stores.sqlite import SQLiteStore, erasure
from memscribe.stores.sqlite.vectors import partition_token

from .scan import engine_files, found

SECRET_FACT = "My locker code at the Zorblax gym is 90210-quux"
WORDS = ["Zorblax", "90210-quux"]  # what the keyword index holds of it, word by word


def _said_three_times(m: Memory) -> str:
    first = m.add(SECRET_FACT, user_id="u")["results"][0]["id"]
    m.add([{"role": "user", "content": "remind me later"}, {"role": "user", "content": SECRET_FACT}], user_id="u")
    m.add(f"as I said, {SECRET_FACT}", user_id="u")
    m.add("I like green tea", user_id="u")
    return str(first)


def _forget_everything_about_it(m: Memory) -> None:
    for hit in m.search("Zorblax locker code", user_id="u", limit=20)["results"]:
        if "Zorblax" in hit["memory"]:
            m.forget(hit["id"], user_id="u")


def test_forget_of_a_fact_said_in_several_episodes_leaves_no_byte(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(home / "store.db", writer="raw", embedder="hash") as m:
        _said_three_times(m)
        _forget_everything_about_it(m)
        outputs = ["\n".join(m.export("u") or [])]
        outputs += [json.dumps(m.why(r["id"])) for r in m.list(user_id="u", include_history=True)["results"]]
        live = found([SECRET_FACT, *WORDS], engine_files(home), outputs)  # while the process lives
        assert m.search("green tea", user_id="u")["results"]  # the rest is intact
    assert live == {}
    assert found([SECRET_FACT, *WORDS], engine_files(home)) == {}


def test_forget_in_a_lite_chain_scrubs_why_of_the_successor(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(home / "store.db", writer="lite", embedder="hash") as m:
        old = m.add("I live in Quuxville.", user_id="u")["results"][0]["id"]
        new = m.add("I moved to Sydney.", user_id="u")["results"]
        successor = next(r["id"] for r in new if r["event"] in ("SUPERSEDE", "UPDATE", "ADD"))
        m.forget(old, user_id="u")
        shown = json.dumps(m.why(successor))
    assert "Quuxville" not in shown
    assert found(["Quuxville"], engine_files(home)) == {}


def test_an_erasure_killed_before_its_clean_up_is_finished_on_open(tmp_path: Path, monkeypatch: Any) -> None:
    home, crashed = tmp_path / "home", tmp_path / "crashed"
    with Memory(home / "store.db", writer="raw", embedder="hash") as m:
        _said_three_times(m)
        monkeypatch.setattr(erasure, "finish_scrub", lambda store: None)  # the process dies right after commit
        _forget_everything_about_it(m)
        shutil.copytree(home, crashed)  # the files as kill -9 leaves them: WAL and all
        monkeypatch.undo()
        kept = m.stats()["memories"]
    assert found(WORDS, engine_files(crashed))  # the state a crash leaves before the clean-up
    store = SQLiteStore(crashed / "store.db")
    assert store.stats()["memories"] == kept  # opening it finishes the clean-up
    store.close()
    assert found([SECRET_FACT, *WORDS], engine_files(crashed)) == {}


def test_purge_of_an_unknown_user_touches_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Memory(path, writer="raw", embedder="hash") as m:
        m.add("I like green tea", user_id="u")
        # The -shm file is SQLite's shared-memory index of the WAL: readers update it; it holds no data.
        before = {p.name: p.read_bytes() for p in engine_files(tmp_path) if not p.name.endswith("-shm")}
        report = m.purge("nobody")
        after = {p.name: p.read_bytes() for p in engine_files(tmp_path) if not p.name.endswith("-shm")}
    assert report["verified"] and report["memories"] == 0
    assert after == before  # no VACUUM, no index merge, no checkpoint: other tenants are not held up


class _Gate:
    """A writer that waits inside propose until released, so a purge can run while the add is in flight."""

    name, version = "raw", "gated"

    def __init__(self) -> None:
        from memscribe.write.raw import RawWriter

        self.inner, self.entered, self.release = RawWriter(), threading.Event(), threading.Event()

    def propose(self, *args: Any) -> Any:
        self.entered.set()
        self.release.wait(10)
        return self.inner.propose(*args)


def test_purge_racing_an_in_flight_add_leaves_nothing(tmp_path: Path) -> None:
    gate = _Gate()
    path = tmp_path / "s.db"
    with Memory(path, writer=gate, embedder="hash") as m, Memory(path, writer="raw", embedder="hash") as admin:  # type: ignore[arg-type]
        errors: list[BaseException] = []

        def add() -> None:
            try:
                m.add("Quuxly private fact number one", user_id="victim")
            except BaseException as exc:  # collected for the assertion
                errors.append(exc)

        worker = threading.Thread(target=add)
        worker.start()
        assert gate.entered.wait(10)
        report = admin.purge("victim")
        gate.release.set()
        worker.join(10)
        assert report["verified"]
        assert [type(e) for e in errors] == [NotFound]  # the add learns its episode was erased
        assert admin.stats(user_id="victim") == {**admin.stats(user_id="victim"), "memories": 0, "episodes": 0}
    assert found(["Quuxly private fact"], engine_files(tmp_path)) == {}


def test_a_purge_elsewhere_is_not_undone_by_a_process_holding_the_index(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    server = Memory(path, writer="raw", embedder="hash")
    for i in range(12):
        server.add(f"victim note {i} about Quuxtown", user_id="victim")
    server.add("bob note", user_id="bob")
    assert server.search("Quuxtown", user_id="victim")["results"]  # the server now holds victim's index
    with Memory(path, writer="raw", embedder="hash") as cli:
        assert cli.purge("victim")["verified"]
    assert server.search("Quuxtown", user_id="victim")["results"] == []
    server.close()  # saving its indexes must not bring the victim's vectors back
    token = partition_token(("default", "victim"))
    assert list((tmp_path / "s.db.ann").glob(f"{token}*")) == []
    assert found(["Quuxtown"], engine_files(tmp_path)) == {}


@pytest.mark.parametrize("writer", ["raw", "lite"])
def test_purge_leaves_no_byte_in_any_file(tmp_path: Path, writer: str) -> None:
    with Memory(tmp_path / "s.db", writer=writer, embedder="hash") as m:
        texts = [f"Quux{i} moved to Zorbtown number {i} last spring." for i in range(40)]
        for text in texts:
            m.add(text, user_id="victim")
            m.add(f"ordinary note {text[-12:]}", user_id="bob")
        m.search("Zorbtown", user_id="victim")
        report = m.purge("victim")
        live = found(["Zorbtown", *texts], engine_files(tmp_path))
    assert report["verified"] and live == {}
    assert found(["Zorbtown", *texts], engine_files(tmp_path)) == {}
