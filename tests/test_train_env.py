"""The memory RL environment on hand-made chunks: each reward term is exactly what the write deserves."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memscribe.bench.scenarios import Chunk, Probe, Scenario, Turn
from memscribe.train import MemoryEnv, RewardWeights, parse_operations

T0 = datetime(2024, 3, 1, 10, 0, tzinfo=UTC)
T1 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
WHERE = "Where does the user live?"


def _scenario() -> Scenario:
    paris = Probe("user/residence", WHERE, ("Paris",))
    berlin = Probe("user/residence", WHERE, ("Berlin",), stale=("Paris",))
    return Scenario(
        "hand-0",
        "change",
        (
            Chunk("s0", T0, (Turn("user", "I live in Paris.", "ADD", "user/residence"),), (paris,)),
            Chunk("s1", T1, (Turn("user", "I moved to Berlin last week.", "SUPERSEDE", "user/residence"),), (berlin,)),
        ),
        final_facts=1,
    )


def _add(text: str, value: str) -> dict[str, object]:
    return {
        "op": "ADD",
        "reason": "new fact",
        "text": text,
        "subject": "user",
        "owner": "user",
        "msgs": [0],
        "slot": "user/residence",
        "value": value,
    }


def _answer(*ops: dict[str, object]) -> str:
    return json.dumps({"operations": list(ops)})


@pytest.fixture
def env(tmp_path: Path) -> MemoryEnv:
    return MemoryEnv(_scenario(), tmp_path, horizon=1)


def test_the_reference_trajectory_passes_its_probes_and_scores_itself_clean(env: MemoryEnv) -> None:
    assert [step.accuracy for step in env.steps] == [1.0, 1.0]
    assert "I live in Paris." in env.steps[0].messages[-1]["content"]
    reward = env.step(1, env.steps[1].answer)
    assert (reward.probe_accuracy, reward.stale, reward.format_valid, reward.attributed) == (1.0, 0.0, 1.0, 0.0)
    assert reward.memories == 1 and reward.over_storage == 0.0 and reward.wrong_supersede == 0.0
    assert reward.total() == pytest.approx(1.2)


def test_a_write_that_leaves_the_old_value_answers_stale(env: MemoryEnv) -> None:
    reward = env.step(1, _answer({"op": "NOOP", "reason": "nothing new", "target": 1}))
    assert reward.probe_accuracy == 0.0
    assert reward.stale == 1.0
    assert reward.format_valid == 1.0
    assert reward.total() == pytest.approx(0.2 - 0.5)


def test_over_storage_counts_memories_per_fact(env: MemoryEnv) -> None:
    copies = [_add(f"User lives in Paris{mark}", "paris") for mark in (".", "!", " (France).")]
    reward = env.step(0, _answer(*copies))
    assert reward.memories == 3
    assert reward.over_storage == pytest.approx(2.0)
    assert reward.probe_accuracy == 1.0
    # The reference's SUPERSEDE at chunk 1 retires one copy; another still answers "Paris" there.
    assert reward.attributed == 1.0
    assert reward.total(RewardWeights(over_storage=0.25)) == pytest.approx(1.0 + 0.2 - 0.5 - 0.5)


def test_a_wrong_write_that_the_next_chunk_repairs_is_charged_only_where_it_failed(env: MemoryEnv) -> None:
    """Chunk 0 stores the wrong city: its own probe fails; chunk 1's reference write supersedes it, so no charge."""
    reward = env.step(0, _answer(_add("User lives in Lyon.", "lyon")))
    assert reward.probe_accuracy == 0.0
    assert reward.attributed == 0.0  # the reference still supersedes Lyon with Berlin at chunk 1

    deleted = MemoryEnv(_scenario(), env.workdir / "second", horizon=1)
    reward = deleted.step(0, _answer())  # nothing stored: chunk 1's reference write still answers Berlin
    assert (reward.probe_accuracy, reward.attributed) == (0.0, 0.0)


def test_wrong_supersede_and_attribution_of_a_lost_fact(tmp_path: Path) -> None:
    where = Probe("user/residence", WHERE, ("Paris",))
    pets = Probe("user/pets", "What is the name of the user's dog?", ("Rex",))
    later = Probe("user/residence", WHERE, ("Paris",), fresh=False)
    scenario = Scenario(
        "hand-1",
        "multi_value",
        (
            Chunk("s0", T0, (Turn("user", "I live in Paris.", "ADD", "user/residence"),), (where,)),
            Chunk("s1", T1, (Turn("user", "I have a dog named Rex.", "ADD", "user/pets"),), (pets, where)),
            Chunk("s2", T1.replace(day=9), (Turn("user", "I love long walks.", None, None),), (later,)),
        ),
        final_facts=2,
    )
    env = MemoryEnv(scenario, tmp_path, horizon=1)
    assert [step.accuracy for step in env.steps] == [1.0, 1.0, 1.0]
    rex = {"op": "SUPERSEDE", "reason": "pets", "target": 1, "text": "User has a dog named Rex.", "subject": "user"}
    reward = env.step(1, _answer(rex))  # retires the Paris memory to store the dog
    assert reward.wrong_supersede == pytest.approx(0.5)  # one current value lost, two probes
    assert reward.probe_accuracy == pytest.approx(0.5)
    assert reward.attributed == 1.0  # chunk 2's residence probe fails because of this write


def test_text_that_does_not_parse_scores_no_format_and_writes_nothing(env: MemoryEnv) -> None:
    assert parse_operations("sure! here are the ops") is None
    reward = env.step(0, "sure! here are the ops")
    assert reward.format_valid == 0.0 and reward.memories == 0 and reward.probe_accuracy == 0.0
    unknown = env.step(0, _answer({"op": "UPDATE", "reason": "x", "target": 9, "text": "User lives in Paris."}))
    assert unknown.format_valid == 0.0 and unknown.memories == 0


def test_a_chunk_outside_the_scenario_is_refused(env: MemoryEnv) -> None:
    with pytest.raises(ValueError, match="outside scenario"):
        env.step(5, _answer())


EMPTY = '{"operations": []}'


def test_with_carry_a_bad_write_at_chunk_k_lowers_chunk_k_plus_1s_reward(tmp_path: Path) -> None:
    from memscribe.bench.scenarios import make_scenario

    scenario = make_scenario(0, 4)
    good, bad = MemoryEnv(scenario, tmp_path / "good", carry=True), MemoryEnv(scenario, tmp_path / "bad", carry=True)
    probe = MemoryEnv(scenario, tmp_path / "probe")
    # A chunk whose facts the next chunk's probes ask about: writing nothing there is charged later.
    k = next(j for j in range(len(scenario.chunks) - 1) if probe.step(j, EMPTY).attributed > 0)
    assert good.start(k + 1) == good.snapshot(k + 1)  # nothing carried yet: the reference's bank
    good.step(k, good.steps[k].answer)
    bad.step(k, EMPTY)  # writes nothing for chunk k
    assert bad.start(k + 1) != bad.snapshot(k + 1)
    after_good, after_bad = good.step(k + 1, good.steps[k + 1].answer), bad.step(k + 1, bad.steps[k + 1].answer)
    assert after_bad.probe_accuracy < after_good.probe_accuracy and after_bad.total() < after_good.total()
    # Without carry, chunk k + 1 starts from the reference's bank whatever was written at chunk k.
    plain = MemoryEnv(scenario, tmp_path / "plain")
    plain.step(k, EMPTY)
    assert plain.step(k + 1, plain.steps[k + 1].answer).probe_accuracy == plain.steps[k + 1].accuracy
