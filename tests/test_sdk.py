"""The Memory SDK end to end on the SQLite store with the hash embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memscribe import InvalidInput, Memory, NotFound, ScopeError
from memscribe.core.clock import FrozenClock


def test_add_returns_mem0_shape_and_search_finds_it(mem: Memory) -> None:
    out = mem.add("I live in Seattle and work at Boeing.", user_id="alice")
    assert [r["event"] for r in out["results"]] == ["ADD"]
    assert set(out["results"][0]) >= {"id", "memory", "event"}
    hits = mem.search("Seattle", user_id="alice")["results"]
    assert hits[0]["memory"] == "I live in Seattle and work at Boeing."
    for key in ("id", "memory", "score", "valid_from", "valid_to", "status", "provenance", "metadata"):
        assert key in hits[0]
    assert hits[0]["provenance"] == {"episode_id": out["episode_id"], "message_indices": [0]}


def test_memory_with_no_arguments_uses_memscribe_home_lazily(tmp_path: Path) -> None:
    home = tmp_path / "home"
    m = Memory(writer="raw", embedder="hash")
    assert not home.exists(), "constructing Memory must not create files"
    assert m.search("anything", user_id="u")["results"] == []
    assert not home.exists(), "a read of an empty store must not create files"
    m.add("first write creates the store", user_id="u")
    assert (home / "memscribe.db").exists()
    m.close()


def test_idempotent_re_add(mem: Memory) -> None:
    first = mem.add("I have a cat named Miso.", user_id="alice", timestamp="2024-01-01T00:00:00Z")
    again = mem.add("I have a cat named Miso.", user_id="alice", timestamp="2024-01-01T00:00:00Z")
    assert again["episode_id"] == first["episode_id"]
    assert [r["id"] for r in again["results"]] == [r["id"] for r in first["results"]]
    keyed = mem.add("Different text, same key", user_id="alice", idempotency_key="k1")
    keyed_again = mem.add("Other text again", user_id="alice", idempotency_key="k1")
    assert keyed_again["episode_id"] == keyed["episode_id"]
    assert mem.stats(user_id="alice")["current"] == 2


def test_identical_text_later_is_confirmed_not_duplicated(mem: Memory, clock: FrozenClock) -> None:
    mem.add("I have a cat named Miso.", user_id="alice")
    clock.advance(days=1)
    out = mem.add("I have a cat named Miso.", user_id="alice")
    assert [r["event"] for r in out["results"]] == ["NOOP"]
    assert mem.stats(user_id="alice")["current"] == 1


@pytest.mark.parametrize(
    "bad",
    ["", "   ", [], [{"role": "wizard", "content": "x"}], [{"role": "user", "content": 5}], 42, b"bytes",
     [{"role": "user", "content": "a\x00b"}], "x" * 1_000_001, [{"role": "user", "content": "x"}] * 2001],
)  # fmt: skip
def test_bad_input_is_refused_and_changes_nothing(mem: Memory, bad: object) -> None:
    mem.add("keep me", user_id="alice")
    before = mem.stats()
    with pytest.raises(InvalidInput):
        mem.add(bad, user_id="alice")
    assert mem.stats() == before


@pytest.mark.parametrize("user", ["", None, 5, "x" * 300])
def test_bad_scope_is_refused(mem: Memory, user: object) -> None:
    with pytest.raises(ScopeError):
        mem.add("hello there friend", user_id=user)


def test_bad_search_arguments(mem: Memory) -> None:
    with pytest.raises(InvalidInput):
        mem.search("", user_id="a")
    with pytest.raises(InvalidInput):
        mem.search("x", user_id="a", limit=0)
    with pytest.raises(InvalidInput):
        mem.search("x", user_id="a", filters={"colour": "red"})
    with pytest.raises(InvalidInput):
        mem.search("x", user_id="a", as_of="not a date")


def test_scopes_never_leak_across_users_or_tenants(tmp_path: Path, clock: FrozenClock) -> None:
    path = tmp_path / "shared.db"
    a = Memory(path, writer="raw", embedder="hash", clock=clock, tenant="acme")
    b = Memory(path, writer="raw", embedder="hash", clock=clock, tenant="globex")
    alice = a.add("Alice's secret garden is in Kyoto", user_id="alice")["results"][0]["id"]
    a.add("Bob likes Kyoto too", user_id="bob")
    b.add("Globex alice also loves Kyoto", user_id="alice")
    assert [h["memory"] for h in a.search("Kyoto", user_id="alice")["results"]] == [
        "Alice's secret garden is in Kyoto"
    ]
    assert [h["memory"] for h in b.search("Kyoto", user_id="alice")["results"]] == [
        "Globex alice also loves Kyoto"
    ]
    assert len(a.list(user_id="bob")["results"]) == 1
    with pytest.raises(NotFound):
        b.get(alice)
    with pytest.raises(NotFound):
        a.get(alice, user_id="bob")
    with pytest.raises(NotFound):
        b.history(alice)
    exported = "\n".join(a.export("alice") or [])
    assert "Bob" not in exported and "Globex" not in exported
    a.purge("alice")
    assert a.list(user_id="bob")["results"] and b.list(user_id="alice")["results"]


def test_update_keeps_history_and_why_explains(mem: Memory, clock: FrozenClock) -> None:
    mid = mem.add("I work at Boeing", user_id="alice")["results"][0]["id"]
    clock.advance(days=30)
    out = mem.update(mid, "I work at Airbus")
    assert out["results"][0]["event"] == "UPDATE"
    assert mem.get(mid)["memory"] == "I work at Airbus"
    versions = mem.history(mid)
    assert [v["memory"] for v in versions] == ["I work at Boeing", "I work at Airbus"]
    assert versions[0]["retired_at"] is not None and versions[1]["retired_at"] is None
    why = mem.why(mid)
    assert [op["kind"] for op in why["operations"]] == ["ADD", "UPDATE"]
    assert why["episodes"][0]["messages"][0]["content"] == "I work at Boeing"


def test_delete_retracts_but_keeps_history(mem: Memory) -> None:
    mid = mem.add("I am allergic to peanuts", user_id="alice")["results"][0]["id"]
    mem.delete(mid)
    assert mem.search("peanuts", user_id="alice")["results"] == []
    assert mem.get(mid)["status"] == "deleted"
    assert [v["status"] for v in mem.history(mid)] == ["active", "deleted"]


def test_forget_erases_memory_and_source_text(mem: Memory) -> None:
    out = mem.add([{"role": "user", "content": "My phone number is 555-0199"},
                   {"role": "user", "content": "I enjoy chess"}], user_id="alice")  # fmt: skip
    gone = mem.forget("phone number", user_id="alice")
    assert len(gone["results"]) == 1
    assert [h["memory"] for h in mem.list(user_id="alice")["results"]] == ["I enjoy chess"]
    dump = "\n".join(mem.export("alice") or [])
    assert "555-0199" not in dump
    assert out["episode_id"] in dump  # the episode stays, its forgotten message blanked


def test_as_of_and_include_history(mem: Memory, clock: FrozenClock) -> None:
    from memscribe.core.records import MemoryDraft, Operation, OpKind
    from memscribe.engine import writing

    first = mem.add("I live in Seattle", user_id="alice", timestamp="2023-01-01T00:00:00Z")["results"][0][
        "id"
    ]
    episode = writing.prepare_episode(
        mem._core, "I moved to Sydney", user_id="alice", timestamp="2023-06-01T00:00:00Z"
    )
    mem._core.store.put_episode(episode)
    op = Operation(
        OpKind.SUPERSEDE, "moved", draft=MemoryDraft(text="I live in Sydney", subject="user"), target=first
    )
    proposal = (
        [op],
        __import__("memscribe.engine.candidates", fromlist=["EmbeddingCache"]).EmbeddingCache(mem._core),
        clock.now(),
    )
    writing.commit_ops(mem._core, episode, proposal)
    now = [h["memory"] for h in mem.search("live", user_id="alice")["results"]]
    assert now == ["I live in Sydney"]
    then = [h["memory"] for h in mem.search("live", user_id="alice", as_of="2023-03-01T00:00:00Z")["results"]]
    assert then == ["I live in Seattle"]
    hits = mem.search("Sydney", user_id="alice", include_history=True)["results"]
    assert [v["memory"] for v in hits[0]["history"]] == [
        "I live in Seattle",
        "I live in Seattle",
        "I live in Sydney",
    ]


def test_export_import_round_trip(mem: Memory, tmp_path: Path, clock: FrozenClock) -> None:
    mid = mem.add("I work at Boeing", user_id="alice")["results"][0]["id"]
    mem.update(mid, "I work at Airbus")
    mem.add([{"role": "user", "content": "I like tea"}, {"role": "assistant", "content": "Try oolong"}],
            user_id="alice")  # fmt: skip
    lines = mem.export("alice") or []
    other = Memory(tmp_path / "other.db", writer="raw", embedder="hash", clock=clock)
    counts = other.import_(lines)
    assert counts["memories"] == 4 and counts["episodes"] == 3
    assert other.export("alice") == lines
    assert other.import_(lines)["memories"] == 0  # idempotent
    assert other.search("Airbus", user_id="alice")["results"][0]["memory"] == "I work at Airbus"
    with pytest.raises(InvalidInput):
        other.import_(["{not json"])
    with pytest.raises(InvalidInput):
        other.import_([json.dumps({"kind": "memory"})])
    other.close()


def test_secrets_are_redacted_before_storage(mem: Memory, tmp_path: Path) -> None:
    secret = "sk-proj-abcdefghijklmnopqrstuvwxyz123456"
    mem.add(f"my openai key is {secret} and my password is hunter2hunter2", user_id="alice",
            metadata={"note": f"token={secret}"})  # fmt: skip
    mem.close()
    for path in tmp_path.glob("store.db*"):
        if path.is_file():
            blob = path.read_bytes()
            assert secret.encode() not in blob and b"hunter2hunter2" not in blob


def test_pack_fits_budget_and_frames_as_data(mem: Memory) -> None:
    for i in range(30):
        mem.add(f"Fact number {i} about gardening and tomatoes in the greenhouse", user_id="alice")
    block = mem.pack("gardening", user_id="alice", max_tokens=60)
    from memscribe.core.text import estimate_tokens

    assert block.startswith("Background memory") and "not instructions" in block
    assert sum(estimate_tokens(line) for line in block.splitlines()) <= 60
    assert block.count("\n- ") >= 1


def test_embedding_model_mismatch_is_a_clear_error(tmp_path: Path) -> None:
    from memscribe import EmbeddingMismatch

    path = tmp_path / "s.db"
    Memory(path, writer="raw", embedder="hash:64").add("one two three", user_id="u")
    other = Memory(path, writer="raw", embedder="hash:32")
    with pytest.raises(EmbeddingMismatch):
        other.search("one", user_id="u")
    with pytest.raises(EmbeddingMismatch):
        other.add("four five six", user_id="u")


def test_wait_false_returns_pending_then_processes(mem: Memory) -> None:
    out = mem.add("I am learning Rust", user_id="alice", wait=False)
    assert out["status"] == "pending" and out["results"] == []
    mem.flush()
    assert mem.stats(user_id="alice")["pending_episodes"] == 0
    assert mem.search("Rust", user_id="alice")["results"]


def test_writer_failure_keeps_episode_pending_then_recovers(tmp_path: Path, clock: FrozenClock) -> None:
    from memscribe import WriterError
    from memscribe.write.raw import RawWriter

    class Flaky(RawWriter):
        fail = True

        def propose(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            if Flaky.fail:
                raise RuntimeError("model down")
            return super().propose(*args, **kwargs)

    m = Memory(tmp_path / "f.db", embedder="hash", writer=Flaky(), clock=clock)
    with pytest.raises(WriterError):
        m.add("I bought a bicycle", user_id="alice")
    assert m.stats()["pending_episodes"] == 1
    Flaky.fail = False
    assert m.process_pending() == 1
    assert m.search("bicycle", user_id="alice")["results"]


def test_replay_rederives_with_another_writer(mem: Memory) -> None:
    mem.add("I like green tea", user_id="alice")
    mem.add("I like green tea", user_id="bob")
    report = mem.replay(user_id="alice", writer="raw")
    assert report["retracted"] == 1 and report["events"] == {"ADD": 1}
    assert [h["memory"] for h in mem.list(user_id="alice")["results"]] == ["I like green tea"]
    assert len(mem.list(user_id="bob")["results"]) == 1


def test_ancient_timestamps_round_trip(mem: Memory) -> None:
    out = mem.add("The city walls were rebuilt", user_id="historian", timestamp="0950-03-01T00:00:00Z")
    got = mem.get(out["results"][0]["id"])
    assert got["valid_from"].startswith("0950-03-01")
    assert mem.search("walls", user_id="historian", as_of="0951-01-01T00:00:00Z")["results"]


def test_stats_and_pending_work_stay_inside_the_tenant(tmp_path: Path, clock: FrozenClock) -> None:
    path = tmp_path / "t.db"
    a = Memory(path, writer="raw", embedder="hash", clock=clock, tenant="acme")
    b = Memory(path, writer="raw", embedder="hash", clock=clock, tenant="globex")
    a.add("acme fact one", user_id="u")
    b.add("globex fact one", user_id="u", wait=False)
    assert a.stats()["memories"] == 1 and a.stats()["pending_episodes"] == 0
    assert a.process_pending() == 0  # globex's pending episode is not acme's to process
    b.flush()
    assert b.stats()["memories"] == 1


def test_import_from_another_tenant_gets_fresh_ids(tmp_path: Path, clock: FrozenClock) -> None:
    path = tmp_path / "t.db"
    a = Memory(path, writer="raw", embedder="hash", clock=clock, tenant="acme")
    b = Memory(path, writer="raw", embedder="hash", clock=clock, tenant="globex")
    mid = a.add("I work at Boeing", user_id="u")["results"][0]["id"]
    a.update(mid, "I work at Airbus")
    counts = b.import_(a.export("u") or [])
    assert counts["memories"] == 2 and counts["episodes"] == 2  # two versions of one memory
    (copy,) = b.list(user_id="u")["results"]
    assert copy["id"] != mid and copy["memory"] == "I work at Airbus"
    assert [v["memory"] for v in b.history(copy["id"])] == ["I work at Boeing", "I work at Airbus"]
    assert a.get(mid)["memory"] == "I work at Airbus"
