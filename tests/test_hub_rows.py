"""Databases read from where the last read stopped: Hermes and OpenCode by row id / update time, Cursor's
key-value rows by content digest, the cursor-agent store by blob id; appended and rewritten rows, and a
SIGKILL in the middle of a database import."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_hub_support import fixture_env, open_hub, turns_by_session

from memscribe import Memory
from memscribe.hub import Hub, HubEnv

GARDEN = "hermes:20261109_081500_a1b2c3"


def _contents(memory: Memory) -> Counter[tuple[str, str, str]]:
    """Every imported message once per occurrence: (session, role, content + tool calls + time)."""
    return Counter(
        (s, m["role"], m["content"] + json.dumps([m.get("tool_calls"), m.get("timestamp")], default=str))
        for s, ms in turns_by_session(memory).items()
        for m in ms
    )


def test_hermes_reads_only_messages_past_the_last_row_id(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["hermes"])
    db = env.paths["hermes"][0] / "state.db"
    memory, hub = open_hub(tmp_path, [], env=env)
    first = hub.import_(["hermes"])
    imported = first.turns
    assert imported > 0 and first.sources["hermes"].records > 10
    tool = sqlite3.connect(db)  # the tool appends while it keeps its own connection
    with tool:
        tool.execute(
            "INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES (?, 'assistant', '', ?, ?)",
            ("20261109_083000_d4e5f6", '[{"id":"call_new","function":{"name":"web_search","arguments":"{}"}}]', 1.8e9),
        )
        tool.execute(
            "INSERT INTO messages (session_id, role, content, tool_call_id, timestamp) VALUES (?, 'tool', ?, ?, ?)",
            ("20261109_083000_d4e5f6", "Frost dates for Zone 7b: April 15.", "call_new", 1.8e9 + 1),
        )
    second = hub.import_(["hermes"])
    sessions = len(tool.execute("SELECT id FROM sessions").fetchall())
    assert second.turns == 2
    assert second.sources["hermes"].records == sessions + 2  # the session rows and the two new messages only
    with tool:
        tool.execute(
            "INSERT INTO messages (session_id, role, content, tool_call_id, timestamp) VALUES (?, 'tool', ?, ?, ?)",
            ("20261109_083000_d4e5f6", "A second answer to the same call.", "call_new", 1.8e9 + 2),
        )
    assert hub.import_(["hermes"]).turns == 1
    tool.close()
    assert hub.import_(["hermes"]).turns == 0  # nothing changed: not even read
    counts = _contents(memory)
    assert all(n == 1 for n in counts.values()), [k for k, n in counts.items() if n > 1]
    tools = [m for m in turns_by_session(memory)[GARDEN] if m["role"] == "tool"]
    assert [m["name"] for m in tools if "Zone 7b: April" in m["content"] or "second answer" in m["content"]] == [
        "web_search",
        "web_search",
    ]  # the call was read earlier: its tool name still reaches the new result rows
    assert sum(counts.values()) == imported + 3
    hub.close()
    memory.close()


def test_a_rebuilt_hermes_database_is_read_again_without_doubling(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["hermes"])
    db = env.paths["hermes"][0] / "state.db"
    memory, hub = open_hub(tmp_path, [], env=env)
    imported = hub.import_(["hermes"]).turns
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT * FROM messages ORDER BY id").fetchall()
    conn.execute("DELETE FROM messages")
    conn.execute("DELETE FROM sqlite_sequence WHERE name = 'messages'")
    conn.executemany(f"INSERT INTO messages VALUES ({', '.join('?' * len(rows[0]))})", rows[:3])
    conn.commit()
    conn.close()
    assert hub.import_(["hermes"]).turns == 0  # fewer rows than the mark: read from the start, all known
    assert sum(_contents(memory).values()) == imported
    hub.close()
    memory.close()


def test_opencode_rereads_only_sessions_with_rows_updated_since(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["opencode"])
    db = env.paths["opencode"][0] / "opencode.db"
    memory, hub = open_hub(tmp_path, [], env=env)
    everything = hub.import_(["opencode"]).sources["opencode"].records
    sid, now = "ses_5e1a0c3f2ffeQk2mWbZx1yN7aP", int(time.time() * 1000)
    tool = sqlite3.connect(db)
    with tool:  # a reply starts streaming: the message is written unfinished, then completed in place
        tool.execute(
            "INSERT INTO message VALUES ('msg_a09', ?, ?, ?, ?)",
            (sid, now, now, json.dumps({"role": "assistant", "time": {"created": now}})),
        )
        tool.execute(
            "INSERT INTO part VALUES ('prt_a09a', 'msg_a09', ?, ?, ?, ?)",
            (sid, now, now, json.dumps({"type": "text", "text": "Redis is reachable; the limiter is in place."})),
        )
    streaming = hub.import_(["opencode"])
    assert streaming.turns == 0  # the streaming reply waits until it is complete
    # the session written to, and the one updated within the mark's few seconds of slack; not the third
    assert streaming.sources["opencode"].records < everything - 4
    with tool:
        done = json.dumps({"role": "assistant", "time": {"created": now, "completed": now + 900}})
        tool.execute("UPDATE message SET data = ?, time_updated = ? WHERE id = 'msg_a09'", (done, now + 900))
    assert hub.import_(["opencode"]).turns == 1  # rewritten in place, so row ids alone would have missed it
    tool.close()
    texts = [m["content"] for m in turns_by_session(memory)[f"opencode:{sid}"]]
    assert texts.count("Redis is reachable; the limiter is in place.") == 1
    assert all(n == 1 for n in _contents(memory).values())
    hub.close()
    memory.close()


def test_cursor_rereads_a_rewritten_key_value_row_once_and_skips_unchanged_ones(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["cursor"])
    db = env.paths["cursor"][0] / "User" / "globalStorage" / "state.vscdb"
    memory, hub = open_hub(tmp_path, [], env=env)
    hub.import_(["cursor"])
    tool = sqlite3.connect(db)
    key = "bubbleId:c0mp-0001-aaaa:b-04"
    bubble = json.loads(tool.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()[0])
    bubble["toolFormerData"] = {
        "name": "run_terminal_cmd",
        "toolCallId": "toolu_cu9",
        "status": "completed",
        "rawArgs": '{"command": "cargo test"}',
        "result": "test result: ok. 12 passed",
    }
    head = "composerData:c0mp-0001-aaaa"
    header = json.loads(tool.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (head,)).fetchone()[0])
    header["lastUpdatedAt"] += 1000
    with tool:  # Cursor rewrites a finished bubble and its chat's header in place
        tool.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(bubble), key))
        tool.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(header), head))
    changed = hub.import_(["cursor"])
    assert changed.turns == 2  # the call and its result, from the one rewritten bubble
    assert changed.sources["cursor"].records == 2  # that chat's header and the rewritten bubble, nothing else
    with tool:  # an unrelated row of the same database changes: no chat is read again
        tool.execute("INSERT INTO ItemTable VALUES ('workbench.view', '{}')")
    untouched = hub.import_(["cursor"])
    assert untouched.turns == 0 and untouched.sources["cursor"].records == 0
    with tool:  # a bubble rewritten with its header unchanged (replaced on conflict: a new row id)
        tool.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", ("bubbleId:c0mp-0002-sub:s-02", json.dumps(
            {"type": 2, "bubbleId": "s-02", "text": "Box, Sphere, Capsule and Mesh colliders."})))  # fmt: skip
    assert hub.import_(["cursor"]).sources["cursor"].records == 2
    tool.close()
    counts = _contents(memory)
    assert all(n == 1 for n in counts.values())
    assert any(k[:2] == ("cursor:c0mp-0001-aaaa", "tool") and "12 passed" in k[2] for k in counts)
    hub.close()
    memory.close()


def test_cursor_sees_a_bubble_updated_in_place_in_a_recent_chat(tmp_path: Path) -> None:
    """A plain UPDATE keeps the row id and the header may stay as it was: for a chat active in the last hour
    the bubbles' sizes tell; an older chat's same rewrite waits for its header's next change."""
    env = fixture_env(tmp_path, ["cursor"])
    db = env.paths["cursor"][0] / "User" / "globalStorage" / "state.vscdb"
    tool = sqlite3.connect(db)
    head = "composerData:c0mp-0001-aaaa"
    header = json.loads(tool.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (head,)).fetchone()[0])
    header["lastUpdatedAt"] = int(time.time() * 1000)
    with tool:
        tool.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(header), head))
    memory, hub = open_hub(tmp_path, [], env=env)
    hub.import_(["cursor"])
    assert hub.import_(["cursor"]).sources["cursor"].records == 0
    def row(key: str) -> tuple[int, dict[str, Any]]:
        found = tool.execute("SELECT rowid, value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()
        return found[0], json.loads(found[1])

    rowid, bubble = row("bubbleId:c0mp-0001-aaaa:b-04")
    bubble["toolFormerData"] = {"name": "run_terminal_cmd", "toolCallId": "toolu_up1", "status": "completed",
                                "rawArgs": '{"command": "cargo bench"}', "result": "tick: 16.6 ms"}  # fmt: skip
    old_id, old = row("bubbleId:c0mp-0002-sub:s-02")
    old["text"] += " And Heightfield."
    with tool:  # both rows keep their row ids; neither chat's header changes
        tool.execute("UPDATE cursorDiskKV SET value = ? WHERE rowid = ?", (json.dumps(bubble), rowid))
        tool.execute("UPDATE cursorDiskKV SET value = ? WHERE rowid = ?", (json.dumps(old), old_id))
    assert row("bubbleId:c0mp-0001-aaaa:b-04")[0] == rowid
    report = hub.import_(["cursor"])
    assert report.sources["cursor"].records == 2  # the recent chat's header and its one rewritten bubble
    assert report.turns == 2  # the call and its result; the older chat's rewrite is not seen yet
    found = turns_by_session(memory)
    assert any(m["role"] == "tool" and m["content"] == "tick: 16.6 ms" for m in found["cursor:c0mp-0001-aaaa"])
    assert "Heightfield" not in json.dumps(found["cursor:c0mp-0002-sub"])  # a turn once read is not re-read
    assert hub.import_(["cursor"]).turns == 0
    tool.close()
    hub.close()
    memory.close()


def _pb(field: int, data: bytes) -> bytes:
    out, size = bytearray([field << 3 | 2]), len(data)
    while True:
        byte, size = size & 0x7F, size >> 7
        out.append(byte | (0x80 if size else 0))
        if not size:
            return bytes(out) + data


def test_cursor_agent_store_fetches_only_new_message_blobs(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["cursor"])
    db = next((env.paths["cursor"][0] / "chats").glob("*/*/store.db"))
    memory, hub = open_hub(tmp_path, [], env=env)
    hub.import_(["cursor"])
    tool = sqlite3.connect(db)
    (meta_hex,) = tool.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    meta = json.loads(bytes.fromhex(meta_hex))
    root = tool.execute("SELECT data FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)).fetchone()[0]
    reply = json.dumps({"role": "user", "content": "<user_query>Also cap the GC pause at 2 ms.</user_query>"}).encode()
    reply_id = hashlib.sha256(reply).digest()
    new_root = bytes(root)[: bytes(root).rfind(b"\x12")] + _pb(1, reply_id) + bytes(root)[bytes(root).rfind(b"\x12") :]
    root_id = hashlib.sha256(new_root).hexdigest()
    with tool:
        tool.execute("INSERT INTO blobs VALUES (?, ?)", (reply_id.hex(), reply))
        tool.execute("INSERT INTO blobs VALUES (?, ?)", (root_id, new_root))
        meta["latestRootBlobId"] = root_id
        tool.execute("UPDATE meta SET value = ? WHERE key = '0'", (json.dumps(meta).encode().hex(),))
    tool.close()
    again = hub.import_(["cursor"])
    assert again.turns == 1 and again.sources["cursor"].records == 2  # the meta row and the one new message
    session = turns_by_session(memory)["cursor:ag-91c2e7d4"]
    assert session[-1]["content"] == "Also cap the GC pause at 2 ms."
    assert all(n == 1 for n in _contents(memory).values())
    hub.close()
    memory.close()


def write_hermes(db: Path, sessions: int, per: int, start: int = 0) -> int:
    """A Hermes state.db with ``sessions`` sessions of ``per`` user/assistant messages (appended to)."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, source TEXT, parent_session_id TEXT, "
                 "end_reason TEXT, model_config TEXT, cwd TEXT, title TEXT, started_at REAL)")  # fmt: skip
    conn.execute("CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, "
                 "role TEXT, content TEXT, tool_calls TEXT, tool_call_id TEXT, tool_name TEXT, "
                 "timestamp REAL)")  # fmt: skip
    for s in range(start, start + sessions):
        sid = f"s{s:05d}"
        conn.execute("INSERT OR IGNORE INTO sessions VALUES (?, 'cli', NULL, NULL, '{}', ?, NULL, ?)",
                     (sid, f"/home/ada/p{s % 7}", 1.79e9 + s))  # fmt: skip
        conn.executemany(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
            [(sid, ("user", "assistant")[i % 2], f"message {i} of session {s}", 1.79e9 + s + i) for i in range(per)],
        )
    conn.commit()
    conn.close()
    return sessions * per


_CHILD = """
import sys
from pathlib import Path
from typing import Any
from memscribe import Memory
from memscribe.hub import Hub, HubEnv
from memscribe.hub.bench import HoldWriter
root, store = Path(sys.argv[1]), Path(sys.argv[2])
memory = Memory(store, writer=HoldWriter(), embedder="hash")
hub = Hub(memory, store.with_name("store.hub.db"), HubEnv(home=root, paths={"hermes": (root,)}), user="ada",
          count_secrets=False)
hub.import_(["hermes"])
print("finished")
"""


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_sigkill_mid_database_import_then_rerun_has_every_turn_exactly_once(tmp_path: Path) -> None:
    root = tmp_path / "hermes"
    root.mkdir()
    expected = write_hermes(root / "state.db", 800, 8)
    store, hub_db = tmp_path / "store.db", tmp_path / "store.hub.db"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(root), str(store)], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
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
    assert child.poll() is None, "the import finished before it could be killed; make the database larger"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    from memscribe.hub.bench import HoldWriter

    expected += write_hermes(root / "state.db", 10, 8, start=800)  # the tool kept writing meanwhile
    memory = Memory(store, writer=HoldWriter(), embedder="hash")
    hub = Hub(memory, hub_db, HubEnv(home=root, paths={"hermes": (root,)}), user="ada")
    hub.import_(["hermes"])
    seen = _contents(memory)
    assert sum(seen.values()) == expected and all(n == 1 for n in seen.values())
    expected += write_hermes(root / "state.db", 5, 8, start=810)
    assert hub.import_(["hermes"]).turns == 40
    assert sum(_contents(memory).values()) == expected
    hub.close()
    memory.close()


def test_twenty_kinds_of_secrets_in_database_tool_output_leave_no_byte_in_the_store(tmp_path: Path) -> None:
    from test_hub_support import FIXTURES, store_bytes

    secrets = [
        line.split("\t", 1)[1]
        for line in (FIXTURES / "secrets" / "SECRETS.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    transcript = next((FIXTURES / "secrets").rglob("*.jsonl")).read_text()
    output = "\n".join(  # the tool calls and output the Claude Code fixture carries them in, in real context
        str(block.get("content") or (block.get("input") or {}).get("command") or "")
        for line in transcript.splitlines()
        for block in (json.loads(line).get("message") or {}).get("content") or []
        if isinstance(block, dict) and block.get("type") in ("tool_result", "tool_use")
    )
    assert all(s in output for s in secrets)
    env = fixture_env(tmp_path, ["hermes", "opencode", "cursor"])
    hermes = sqlite3.connect(env.paths["hermes"][0] / "state.db")
    with hermes:
        hermes.execute(
            "INSERT INTO messages (session_id, role, content, tool_call_id, tool_name, timestamp) "
            "VALUES ('20261109_083000_d4e5f6', 'tool', ?, 'call_env', 'terminal', 1.8e9)",
            (output,),
        )
    hermes.close()
    opencode = sqlite3.connect(env.paths["opencode"][0] / "opencode.db")
    part = {"type": "tool", "callID": "call_env", "tool": "bash", "state": {"status": "completed",
            "input": {"command": "cat .env"}, "output": output}}  # fmt: skip
    with opencode:
        opencode.execute(
            "INSERT INTO part VALUES ('prt_b02z', 'msg_b02', 'ses_5e2b7d11affeM3nBvCx8zL0qWe', 1, 1, ?)",
            (json.dumps(part),),
        )
    opencode.close()
    cursor = sqlite3.connect(env.paths["cursor"][0] / "User" / "globalStorage" / "state.vscdb")
    bubble = {"type": 2, "bubbleId": "b-04", "text": "", "toolFormerData": {"name": "run_terminal_cmd",
              "toolCallId": "t-env", "rawArgs": '{"command": "env"}', "result": output}}  # fmt: skip
    with cursor:
        cursor.execute(
            "UPDATE cursorDiskKV SET value = ? WHERE key = 'bubbleId:c0mp-0001-aaaa:b-04'", (json.dumps(bubble),)
        )
    cursor.close()
    memory, hub = open_hub(tmp_path, [], env=env)
    report = hub.import_(["hermes", "opencode", "cursor"])
    printed = json.dumps(report.as_dict(with_redactions=True))  # what `hub import --report --json` prints
    assert report.errors == []
    assert {r["source"] for r in report.redactions()} == {"hermes", "opencode", "cursor"}
    per = Counter[str]()
    for r in report.redactions():
        per[r["source"]] += r["count"]
    assert min(per.values()) >= 20, per
    hub.close()
    memory.close()
    blob = store_bytes(tmp_path) + printed.encode()
    assert [s for s in secrets if s.encode() in blob] == []
