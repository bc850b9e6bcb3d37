"""Chat layers: the L0 profile view, L7 intentions and their expiry, L3 summaries, and chat routing cost."""

from __future__ import annotations

from datetime import timedelta

from test_scenes_support import T0, apply_ops, episode, record, scene_memory

from memscribe.core.clock import FrozenClock
from memscribe.core.records import Layer, OpKind, Owner, Status
from memscribe.scenes import derive_profile, expire_intentions, normalize_intention, profile, summarize_episode
from memscribe.scenes.profile import profile_ops
from memscribe.stores.ports import RecordFilter
from memscribe.testing import ScriptedChat


def test_profile_from_current_slot_memories(clock: FrozenClock) -> None:
    chat = ScriptedChat()  # chat episodes must never call it
    mem = scene_memory(clock, chat)
    mem.add("I live in Seattle and I work at Google.", user_id="priya", timestamp="2024-05-01T10:00:00Z")
    moved = mem.add("I moved to Sydney.", user_id="priya", timestamp="2024-06-01T10:00:00Z")["results"][0]
    assert chat.calls == []
    now = profile(mem._core.store, ("default", "priya"))
    assert now.get("user", "employer") == "google"
    residence = now.subjects["user"]["residence"]
    assert [v.value for v in residence] == ["sydney"] and residence[0].memory_id == moved["id"]
    before = profile(mem._core.store, ("default", "priya"), as_of=T0 - timedelta(days=10))
    assert before.get("user", "residence") == "seattle"


def test_derive_profile_ignores_agent_history_and_other_scenes() -> None:
    records = [
        record("Priya lives in Oslo", slot="priya/residence", value="Oslo"),
        record("Priya lived in Rome", slot="priya/residence", value="Rome", retired_at=T0, status=Status.SUPERSEDED),
        record("Agent suggests Bergen", slot="priya/residence", value="Bergen", owner=Owner.AGENT),
        record("Edited app.py", slot="app.py/file", value="modified", scene="coding"),
        record("Priya has a cat", slot="priya/pets", value="cat"),
        record("Priya has a dog", slot="priya/pets", value="dog", valid_from=T0),
    ]
    derived = derive_profile(records)
    assert derived.as_dict().keys() == {"priya"}
    assert derived.get("priya", "residence") == "Oslo"
    assert [v.value for v in derived.subjects["priya"]["pets"]] == ["dog", "cat"]
    (op,) = profile_ops(records)
    assert op.kind is OpKind.ADD and op.draft is not None and op.draft.layer is Layer.PROFILE
    assert op.draft.text == "Profile of priya: pets: dog, cat; residence: Oslo."


def test_intentions_carry_their_deadline_and_expire_into_history(clock: FrozenClock) -> None:
    mem = scene_memory(clock)
    mem.add("I'm going to run a marathon next Sunday.", user_id="u1", timestamp="2024-06-01T10:00:00Z")
    store = mem._core.store
    (plan,) = store.query(("default", "u1"), RecordFilter(layers=("L7",)))
    assert plan.valid_to is not None and plan.metadata["valid_until"]
    assert expire_intentions([plan], plan.valid_to - timedelta(seconds=1)) == []
    clock.set(plan.valid_to + timedelta(days=1))
    assert store.query(("default", "u1"), RecordFilter(layers=("L7",), now=clock.now())) == []  # hidden once past
    ops = expire_intentions([plan], clock.now())
    assert [op.kind for op in ops] == [OpKind.SUPERSEDE] and "intention expired" in ops[0].reason
    apply_ops(mem, "u1", ops)
    (history,) = store.query(("default", "u1"), RecordFilter(layers=("L2",)))
    assert history.text.startswith("Past plan (until") and history.supersedes == plan.id
    assert history.metadata["expired_intention"] == plan.id and history.valid_from == plan.valid_to
    closed = store.versions(("default", "u1"), plan.id)[-1]
    assert closed.status is Status.SUPERSEDED and closed.valid_to == plan.valid_to


def test_normalize_intention_fills_valid_to_from_valid_until() -> None:
    from memscribe.core.records import MemoryDraft

    draft = MemoryDraft("Priya plans to fly to Rome", layer=Layer.INTENTION, metadata={"valid_until": "2024-07-02"})
    assert normalize_intention(draft).valid_to is not None
    assert normalize_intention(MemoryDraft("fact")).valid_to is None


def test_session_summary_is_one_call_with_a_versioned_prompt() -> None:
    chat = ScriptedChat({"summary": "Priya planned a trip to Japan with Tom in October 2024.", "topics": ["Travel"]})
    ep = episode(
        [
            {"role": "user", "content": "Tom and I are planning Japan in October."},
            {"role": "assistant", "content": "Great, Kyoto is lovely then."},
        ]
    )
    op = summarize_episode(ep, chat)
    assert op is not None and op.draft is not None and len(chat.calls) == 1
    assert op.draft.layer is Layer.SUMMARY and op.draft.tags == ("summary", "travel")
    assert op.usage.prompt_version == "session-summary-1" and op.usage.calls == 1


def test_summaries_in_the_writer_only_when_enabled_and_long(clock: FrozenClock) -> None:
    from memscribe import Memory
    from memscribe.scenes import SceneWriter
    from memscribe.stores.memory import InMemoryStore
    from memscribe.write.lite import LiteWriter

    chat = ScriptedChat({"summary": "Priya talked about her week.", "topics": []})
    writer = SceneWriter(LiteWriter(), chat, summaries=True, summary_min_messages=2)
    mem = Memory(store=InMemoryStore(), writer=writer, embedder="hash", clock=clock)
    mem.add("hi", user_id="u1")  # one turn: too short for a summary
    mem.add(
        [{"role": "user", "content": "I adopted a cat."}, {"role": "assistant", "content": "Lovely!"}], user_id="u1"
    )
    summaries = mem.list(user_id="u1", filters={"layers": "L3"})["results"]
    assert [s["memory"] for s in summaries] == ["Priya talked about her week."] and len(chat.calls) == 1


def test_tool_episode_the_model_calls_chat_goes_through_the_inner_writer(clock: FrozenClock) -> None:
    from test_scenes_support import assistant, call, tool

    from memscribe.testing import FunctionChat

    chat = FunctionChat(lambda messages: {"scene": "chat"})
    mem = scene_memory(clock, chat)
    messages = [
        {"role": "user", "content": "I live in Oslo now. Will it rain tomorrow?"},
        assistant(call("get_weather", city="Oslo")),
        tool("rain, 12C"),
    ]
    added = mem.add(messages, user_id="u1")["results"]
    assert len(chat.calls) == 1 and added
    rows = mem.list(user_id="u1")["results"]
    assert {r["scene"] for r in rows} == {"chat"} and any(r["slot"] == "user/residence" for r in rows)
    journal = mem._core.store.journal(("default", "u1"), episode_id=mem.add(messages, user_id="u1")["episode_id"])
    assert journal[0].usage.calls == 1 and "the model chose chat" in journal[0].reason
    assert "rain, 12C" not in " ".join(r["memory"] for r in rows)
