"""The hub as a whole: one store from several tools, idempotent and incremental import, the entry-point
registry, loud failure on unreadable files, secret redaction, a crash mid-import, and a live watch."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_hub_support import FIXTURES, episodes, fixture_env, materialize, open_hub, store_bytes, turns_by_session

from memscribe import ConfigError, Memory
from memscribe.hub import Hub, HubEnv, ReadResult, Session, SourceFile, Turn, available_sources, register_source
from memscribe.hub.bench import write_history
from memscribe.hub.places import project_of
from memscribe.hub.ports import load_source

BUILT_INS = {
    "aider",
    "claude-code",
    "cline",
    "codebuddy",
    "codex",
    "cursor",
    "deepseek-harness",
    "gemini-cli",
    "hermes",
    "openclaw",
    "opencode",
    "pi",
    "qwen-code",
    "workbuddy",
}


def test_entry_point_registry_lists_every_built_in() -> None:
    from importlib.metadata import entry_points

    names = {ep.name for ep in entry_points(group="memscribe.hub_sources")}
    assert names >= BUILT_INS
    assert set(available_sources()) >= BUILT_INS
    for name in BUILT_INS:
        source = load_source(name)
        assert source.name == name and source.title
    with pytest.raises(ConfigError, match="unknown hub source 'nope'"):
        load_source("nope")


class _NotesSource:
    """A third-party source: plain-text notes, one turn per line."""

    name = "notes-test"
    title = "Notes"

    def __init__(self, root: Path) -> None:
        self.root = root

    def discover(self, env: HubEnv) -> list[SourceFile]:
        return [SourceFile(self.name, p) for p in sorted(self.root.glob("*.txt"))]

    def read(self, item: SourceFile) -> ReadResult:
        result = ReadResult()
        session = Session(id=item.path.stem, cwd=str(self.root))
        for n, line in enumerate(item.path.read_text().splitlines()):
            result.saw("line")
            session.turns.append(Turn(f"L{n}", "user", line))
        result.sessions.append(session)
        return result


def test_a_third_party_source_plugs_into_the_same_port(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "monday.txt").write_text("I switched my editor to Helix.\n")
    register_source(_NotesSource(tmp_path / "notes"))
    assert "notes-test" in available_sources()
    memory, hub = open_hub(tmp_path, [], env=HubEnv(home=tmp_path))
    assert hub.import_(["notes-test"]).turns == 1
    assert episodes(memory)[0]["source"] == "notes-test"
    hub.close()
    memory.close()


def test_several_tools_into_one_store_searched_across(tmp_path: Path) -> None:
    names = ["claude-code", "codex", "gemini-cli", "hermes", "opencode"]
    memory, hub = open_hub(tmp_path, names, writer="lite")
    report = hub.import_(names)
    assert report.errors == [] and report.turns > 30
    sources = {e["source"] for e in episodes(memory)}
    assert sources == set(names)
    found = {
        r["source"]
        for q in ("Terraform state lock", "Automerge CRDT", "frost Zone 7b", "checkout empty cart", "Sentry DSN")
        for r in memory.search(q, user_id="ada", limit=3)["results"]
    }
    assert len(found) >= 4, found
    projects = {r["project"] for r in memory.search("Terraform", user_id="ada", limit=3)["results"]}
    assert "/home/ada/infra" in projects
    before = memory.stats(user_id="ada")
    assert hub.import_(names).turns == 0
    assert memory.stats(user_id="ada")["episodes"] == before["episodes"]
    assert memory.stats(user_id="ada")["memories"] == before["memories"]
    status = hub.status()
    assert status["codex"]["turns"] == 14 and status["codex"]["sessions"] == 3 and status["codex"]["errors"] == []
    hub.close()
    memory.close()


def test_dry_run_counts_and_writes_nothing(tmp_path: Path) -> None:
    memory, hub = open_hub(tmp_path, ["pi"])
    report = hub.import_(["pi"], dry_run=True)
    assert report.turns == 8 and report.dry_run
    assert episodes(memory) == [] and hub.status() == {}
    assert hub.import_(["pi"]).turns == 8
    hub.close()
    memory.close()


def test_unreadable_file_is_a_loud_error_naming_its_record_types(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["codex"])
    day = env.paths["codex"][0] / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    renamed = day / "rollout-2026-11-30T09-00-00-0199aaaa-0000-7000-8000-000000000000.jsonl"
    renamed.write_text(
        "\n".join(
            json.dumps({"timestamp": "2026-11-30T09:00:00Z", "type": t, "payload": {}})
            for t in ("thread_header", "turn_item", "turn_item")
        )
        + "\n"
    )
    memory, hub = open_hub(tmp_path, [], env=env)
    report = hub.import_(["codex"])
    (error,) = report.errors
    assert str(renamed) in error["error"] and "turn_item×2" in error["error"] and "thread_header×1" in error["error"]
    assert report.turns == 14  # the other files still imported
    assert hub.status()["codex"]["errors"][0]["path"] == str(renamed)
    hub.close()
    memory.close()


def test_twenty_kinds_of_secrets_leave_no_byte_in_the_store(tmp_path: Path) -> None:
    root = materialize("secrets", tmp_path / "fixtures")
    secrets = [
        line.split("\t", 1)[1]
        for line in (FIXTURES / "secrets" / "SECRETS.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(secrets) == 20
    memory = Memory(tmp_path / "store.db", writer="lite", embedder="hash")
    hub = Hub(memory, tmp_path / "store.hub.db", HubEnv(home=tmp_path, paths={"claude-code": (root,)}), user="ada")
    report = hub.import_(["claude-code"])
    assert report.turns == 8
    redactions = report.redactions()
    assert sum(r["count"] for r in redactions) >= 20
    assert not any(s in json.dumps(redactions) for s in secrets)
    assert "rotate it and redeploy" in json.dumps(turns_by_session(memory))
    memory.close()
    hub.close()
    blob = store_bytes(tmp_path)
    leaked = [s for s in secrets if s.encode() in blob]
    assert leaked == []


_CHILD = """
import sys
from pathlib import Path
from memscribe import Memory
from memscribe.hub import Hub, HubEnv
from memscribe.hub.bench import HoldWriter
root, store = Path(sys.argv[1]), Path(sys.argv[2])
memory = Memory(store, writer=HoldWriter(), embedder="hash")
hub = Hub(memory, store.with_name("store.hub.db"), HubEnv(home=root, paths={"claude-code": (root,)}), user="ada",
          count_secrets=False)
hub.import_(["claude-code"])
print("finished")
"""


@pytest.mark.slow
def test_sigkill_mid_import_then_rerun_has_every_turn_exactly_once(tmp_path: Path) -> None:
    root = tmp_path / "history"
    expected = write_history(root, 2000, 8)
    store = tmp_path / "store.db"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(root), str(store)], stdout=subprocess.PIPE, text=True)
    hub_db = tmp_path / "store.hub.db"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.2)
        if hub_db.exists():
            conn = sqlite3.connect(hub_db, timeout=5)
            try:
                done = conn.execute("SELECT count(*) FROM turns WHERE done = 1").fetchone()[0]
            except sqlite3.OperationalError:
                done = 0
            conn.close()
            if done > expected // 4:
                break
    assert child.poll() is None, "the import finished before it could be killed; make the history larger"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    from memscribe.hub.bench import HoldWriter

    memory = Memory(store, writer=HoldWriter(), embedder="hash")
    hub = Hub(memory, hub_db, HubEnv(home=root, paths={"claude-code": (root,)}), user="ada")
    hub.import_(["claude-code"])
    sessions = turns_by_session(memory)
    assert len(sessions) == 2000
    seen = [(s, m["role"], m["timestamp"], m["content"]) for s, ms in sessions.items() for m in ms]
    assert len(seen) == expected
    assert len(set(seen)) == expected  # nothing doubled
    assert hub.import_(["claude-code"]).turns == 0
    hub.close()
    memory.close()


def _append(path: Path, record: dict[str, object]) -> None:
    with path.open("a") as fh:
        fh.write(json.dumps(record) + "\n")


def test_watch_imports_a_live_history_once_without_locking_the_tools_database(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["claude-code", "hermes"])
    memory, hub = open_hub(tmp_path, [], env=env)
    path = env.paths["claude-code"][0] / "projects" / "-home-ada-live" / "live.jsonl"
    path.parent.mkdir(parents=True)
    db = env.paths["hermes"][0] / "state.db"
    tool = sqlite3.connect(db, timeout=0)  # the tool keeps its connection; a lock by the hub would fail it
    stop = threading.Event()
    watcher = threading.Thread(
        target=hub.watch, kwargs={"names": ["claude-code", "hermes"], "interval": 0.05, "stop": stop}
    )
    watcher.start()
    base = {"sessionId": "live", "cwd": "/home/ada/live", "isSidechain": False}
    parent = None
    for i in range(30):
        uuid = f"live-{i}"
        record = {
            **base,
            "type": "user",
            "uuid": uuid,
            "parentUuid": parent,
            "timestamp": f"2026-11-30T10:00:{i:02d}.000Z",
            "message": {"role": "user", "content": f"live prompt number {i}"},
        }
        text = json.dumps(record) + "\n"
        with path.open("a") as fh:  # half a line first: the watcher must wait for the rest
            fh.write(text[: len(text) // 2])
            fh.flush()
            time.sleep(0.02)
            fh.write(text[len(text) // 2 :])
        parent = uuid
        with tool:
            tool.execute(
                "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                ("20261109_083000_d4e5f6", f"live row number {i}", 1794214000.0 + i),
            )
        time.sleep(0.01)

    def imported() -> tuple[int, int]:
        sessions = turns_by_session(memory)
        rows = [m for m in sessions.get("hermes:20261109_081500_a1b2c3", []) if m["content"].startswith("live row")]
        return len(sessions.get("claude-code:live", [])), len(rows)

    deadline = time.monotonic() + 30  # the watcher polls every 0.05 s; a busy machine may need more than that
    while imported() != (30, 30) and time.monotonic() < deadline:
        time.sleep(0.1)
    stop.set()
    watcher.join(10)
    assert not watcher.is_alive()
    tool.close()
    sessions = turns_by_session(memory)
    live = [m["content"] for m in sessions["claude-code:live"]]
    assert live == [f"live prompt number {i}" for i in range(30)]
    rows = [m["content"] for m in sessions["hermes:20261109_081500_a1b2c3"] if m["content"].startswith("live row")]
    assert rows == [f"live row number {i}" for i in range(30)]
    hub.close()
    memory.close()


def test_project_is_the_git_root_of_the_recorded_cwd(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "pkg").mkdir(parents=True)
    assert project_of(str(repo / "src" / "pkg")) == str(repo.resolve())
    assert project_of("/nowhere/like/this") == "/nowhere/like/this"
    assert project_of(None) is None


def test_sessions_without_a_user_id_are_refused(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "store.db", writer="raw", embedder="hash")
    with pytest.raises(ConfigError):
        Hub(memory, tmp_path / "store.hub.db", HubEnv(home=tmp_path), user="")
    memory.close()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files through /proc")
def test_a_deferred_import_of_many_sessions_keeps_its_open_files_bounded(tmp_path: Path) -> None:
    """Each burst of deferred adds runs on a fresh background writer thread: the store must not keep a
    connection (three file descriptors) open for every thread that has ended."""
    from memscribe.hub.bench import HoldWriter

    root = tmp_path / "history"
    write_history(root, 1, 8)
    memory = Memory(tmp_path / "store.db", writer=HoldWriter(), embedder="hash")
    hub = Hub(memory, tmp_path / "store.hub.db", HubEnv(home=root, paths={"claude-code": (root,)}), user="ada",
              defer=True)  # fmt: skip
    try:
        hub.import_(["claude-code"])
        memory.flush()
        before = len(os.listdir("/proc/self/fd"))
        for seed in range(40):  # forty more sessions, one import each
            write_history(root, 1, 8, seed=100 + seed)
            assert hub.import_(["claude-code"]).episodes == 1
            memory.flush()  # the writer thread ends before the next one starts
        assert len(episodes(memory, "ada")) == 41
        assert len(os.listdir("/proc/self/fd")) - before < 12
    finally:
        hub.close()
        memory.close()
