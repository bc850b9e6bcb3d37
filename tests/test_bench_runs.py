"""The benchmark runners against in-test fake memories, with hand-computed expected numbers."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe.bench.harness import MemoryLike, sdk_factory
from memscribe.bench.locomo import Turn, is_filler, load_locomo, run_locomo, session_messages
from memscribe.bench.report import render_text, write_json
from memscribe.bench.scenarios import Scenario, generate_scenarios
from memscribe.bench.updates import QUICK_SCENARIOS, run_updates

FIXTURE = Path(__file__).parent / "fixtures" / "locomo_tiny.json"
_STOP = frozenset(
    re.findall(
        r"\w+", "a an the and is what when where did does do of to in at for i my how many would on s m him me have it"
    )
)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if w not in _STOP}


class WordMemory:
    """Stores every message as one memory (event ADD); search ranks by shared words, ties oldest first."""

    def __init__(self, path: Path, *, announce_episode: bool = True) -> None:
        self.file = path / "store.jsonl"
        self.announce_episode = announce_episode
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.episodes = 0

    def add(
        self,
        messages: str | Sequence[Mapping[str, str]],
        *,
        user_id: str,
        timestamp: datetime | str | None = None,
        session_id: str | None = None,
        source: str | None = None,
    ) -> Mapping[str, Any]:
        items = [{"role": "user", "content": messages}] if isinstance(messages, str) else list(messages)
        episode = f"ep{self.episodes}"
        self.episodes += 1
        rows = self.rows.setdefault(user_id, [])
        added = []
        for index, message in enumerate(items):
            row = {
                "id": f"{user_id}:{len(rows)}",
                "memory": message["content"],
                "provenance": {"episode_id": episode, "message_indices": [index]},
                "metadata": {},
            }
            rows.append(row)
            added.append({"id": row["id"], "memory": row["memory"], "event": "ADD"})
        with self.file.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(added) + "\n")
        return {"results": added, **({"episode_id": episode} if self.announce_episode else {})}

    def search(self, query: str, *, user_id: str, limit: int = 10) -> Mapping[str, Any]:
        wanted = _words(query)
        scored = [(len(wanted & _words(r["memory"])), i, r) for i, r in enumerate(self.rows.get(user_id, []))]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        return {"results": [{**row, "score": float(score)} for score, _, row in ranked[:limit]]}

    def list(self, *, user_id: str) -> Mapping[str, Any]:
        return {"results": list(self.rows.get(user_id, []))}

    def stats(self) -> Mapping[str, Any]:
        return {"memories": sum(len(rows) for rows in self.rows.values())}


class ScriptedMemory:
    """Knows the scenarios: reports the labelled operations and answers probes from the ground truth.

    ``answer="current"`` is an oracle; ``answer="stale"`` always names a stale value when there is one.
    """

    def __init__(self, scenarios: list[Scenario], answer: str) -> None:
        self.scenarios = {s.user_id: s for s in scenarios}
        self.answer = answer
        self.ingested: Counter[str] = Counter()

    def _chunk(self, user_id: str) -> Any:
        return self.scenarios[user_id].chunks[self.ingested[user_id] - 1]

    def add(
        self,
        messages: str | Sequence[Mapping[str, str]],
        *,
        user_id: str,
        timestamp: datetime | str | None = None,
        session_id: str | None = None,
        source: str | None = None,
    ) -> Mapping[str, Any]:
        self.ingested[user_id] += 1
        ops = self._chunk(user_id).expected_ops()
        return {"results": [{"id": f"m{i}", "memory": "", "event": op} for i, op in enumerate(ops)]}

    def search(self, query: str, *, user_id: str, limit: int = 10) -> Mapping[str, Any]:
        probe = next(p for p in self._chunk(user_id).probes if p.question == query)
        values = probe.current if self.answer == "current" else probe.stale or ("no idea",)
        return {"results": [{"id": "x", "memory": f"It is {values[0]}.", "score": 1.0}]}

    def list(self, *, user_id: str) -> Mapping[str, Any]:
        probes = [p for p in self._chunk(user_id).probes if not p.fact.endswith("/whereabouts")]
        return {"results": [{"id": v, "memory": v} for p in probes for v in p.current]}

    def stats(self) -> Mapping[str, Any]:
        return {}


def _ops(results: Mapping[str, Any]) -> dict[str, Any]:
    per_kind: dict[str, Any] = results["operations"]["per_kind"]
    return per_kind


def test_oracle_scores_perfectly(tmp_path: Path) -> None:
    scenarios = generate_scenarios(QUICK_SCENARIOS, 3)
    oracle = ScriptedMemory(scenarios, "current")

    def make(writer: str, path: Path) -> MemoryLike:
        return oracle

    results = run_updates(make, "oracle", QUICK_SCENARIOS, 3, tmp_path)
    metrics = results["metrics"]
    assert metrics["accuracy@1"] == 1.0 and metrics["hit@5"] == 1.0
    assert metrics["stale@1"] == 0.0 and metrics["mixed@1"] == 0.0 and metrics["miss@1"] == 0.0
    assert metrics["forget_leak"] == 0.0 and metrics["memories_per_fact"] == 1.0
    for kind, row in _ops(results).items():
        assert row["fp"] == 0 and row["fn"] == 0, kind
    assert _ops(results)["all"]["f1"] == 1.0
    assert results["counts"]["probes"] == sum(len(c.probes) for s in scenarios for c in s.chunks)
    assert results["counts"]["families"] == dict(Counter(s.family for s in scenarios))


def test_a_memory_that_answers_stale_gets_stale_rate_one(tmp_path: Path) -> None:
    scenarios = generate_scenarios(QUICK_SCENARIOS, 3)
    stale = ScriptedMemory(scenarios, "stale")
    results = run_updates(lambda w, p: stale, "stale", QUICK_SCENARIOS, 3, tmp_path)
    assert results["metrics"]["stale@1"] == 1.0
    assert results["metrics"]["accuracy@1"] == 0.0
    assert results["verdicts"]["stale"] == results["counts"]["probes_with_stale"]


def test_raw_word_memory_on_quick_updates(tmp_path: Path) -> None:
    scenarios = generate_scenarios(QUICK_SCENARIOS, 7)
    results = run_updates(lambda w, p: WordMemory(p), "raw", QUICK_SCENARIOS, 7, tmp_path / "work")
    turns = sum(len(c.turns) for s in scenarios for c in s.chunks)
    expected = Counter(op for s in scenarios for c in s.chunks for op in c.expected_ops())
    ops = _ops(results)
    # Every turn is an ADD event: all labelled ADDs are found, every other event is a false ADD.
    assert ops["ADD"]["tp"] == expected["ADD"] and ops["ADD"]["fp"] == turns - expected["ADD"]
    assert ops["ADD"]["recall"] == 1.0 and ops["ADD"]["precision"] == round(expected["ADD"] / turns, 4)
    assert ops["SUPERSEDE"]["recall"] == 0.0 and ops["SUPERSEDE"]["fn"] == expected["SUPERSEDE"]
    assert results["operations"]["observed"] == {"ADD": turns}
    assert results["counts"]["turns"] == turns == results["cost"]["turns"]
    assert 0.0 < results["metrics"]["accuracy@1"] < 1.0
    assert results["metrics"]["forget_leak"] == 1.0  # raw text keeps what it was asked to forget
    assert results["metrics"]["memories_per_fact"] > 2.0  # chatter and history are all stored
    assert results["cost"]["store_bytes"] > 0 and results["cost"]["turns_per_second"] > 0
    assert Path(results["cost"]["store_path"]).parent == tmp_path / "work"
    assert results["writer"] == "raw" and results["seed"] == 7
    assert set(results["by_family"]) == {s.family for s in scenarios}


# LoCoMo fixture, hand-computed with WordMemory (one memory per turn, ties broken oldest first):
#   q1 cat4 "name of Ana's puppy"   top D1:1        all@1 1  contain "biscuit"      @1 1
#   q2 cat2 "when adopt puppy"      top D1:1        all@1 1  contain "7 may 2023"   never (session date is 8 May)
#   q3 cat1 gold {D2:1, D2:2}       D1:1 D1:2 D2:2  any@5 1, all@5 0, frac 0.5; parts "hiking, pottery" @5 0.5
#   q4 cat3 no evidence (recall skipped); gold "Yes" never contained
#   q5 cat5 gold D1:03 -> D1:3      D1:1 D1:2 D1:3  all@1 0, all@5 1; no containment
#   q6 cat4 gold D:1:3 (+ bad D9:9) top D1:3        all@1 1  contain "red blanket" (the caption) @1 1
#   q7 cat4 answer 3 (an int)       top D2:3        all@1 1  contain "3" @1 1
#   q8 cat4 conv-b "Dev move job"   D1:1 D2:1 D1:2  all@1 0, all@5 1; contain "lisbon" @1 0, @5 1
@pytest.mark.parametrize("announce_episode", [True, False])
def test_locomo_recall_and_containment_on_the_fixture(tmp_path: Path, announce_episode: bool) -> None:
    results = run_locomo(lambda w, p: WordMemory(p, announce_episode=announce_episode), "raw", FIXTURE, tmp_path)
    cats = results["by_category"]
    assert cats["4"]["n"] == 4 and cats["4"]["recall_all@1"] == 0.75 and cats["4"]["recall_all@5"] == 1.0
    assert cats["4"]["contain@1"] == 0.75 and cats["4"]["contain@5"] == 1.0
    assert cats["2"]["recall_all@1"] == 1.0 and cats["2"]["contain@10"] == 0.0
    assert cats["1"]["recall_any@1"] == 0.0 and cats["1"]["recall_any@5"] == 1.0
    assert cats["1"]["recall_all@10"] == 0.0 and cats["1"]["recall_frac@5"] == 0.5
    assert cats["1"]["contain@5"] == 0.0 and cats["1"]["contain_parts@5"] == 0.5
    assert cats["1"]["contain_parts@1"] == 0.0
    assert "recall_all@1" not in cats["3"] and cats["3"]["contain@10"] == 0.0 and cats["3"]["n_answer"] == 1
    assert cats["5"]["recall_all@1"] == 0.0 and cats["5"]["recall_all@5"] == 1.0 and "contain@1" not in cats["5"]
    overall = results["metrics"]  # categories 1-4: six questions with evidence, seven with an answer
    assert overall["recall_all@1"] == round(4 / 6, 4) and overall["recall_all@5"] == round(5 / 6, 4)
    assert overall["contain@1"] == round(3 / 7, 4) and overall["contain@5"] == round(4 / 7, 4)
    assert results["macro"]["recall_all@1"] == round((0 + 1 + 0.75) / 3, 4)
    counts = results["counts"]
    assert (counts["conversations"], counts["sessions"], counts["turns"], counts["questions"]) == (2, 4, 9, 8)
    assert (counts["scored_evidence"], counts["scored_answer"], counts["no_evidence"]) == (6, 7, 1)
    assert counts["unresolved_results"] == 0
    assert results["operations"]["observed"] == {"ADD": 9}
    assert results["cost"]["store_bytes"] > 0 and len(results["data"]["sha256"]) == 64


def test_locomo_loader_orders_sessions_and_inlines_captions() -> None:
    conv_a, conv_b = load_locomo(FIXTURE)
    assert [s.number for s in conv_b.sessions] == [1, 2]  # keys out of order in the file; empty session 3 skipped
    assert conv_b.sessions[1].timestamp is None  # "around 2 March 2022" is kept as text only
    assert conv_a.sessions[0].timestamp == datetime.fromisoformat("2023-05-08T13:56:00+00:00")
    messages, dia_ids = session_messages(conv_a.sessions[0])
    assert dia_ids == ["D1:1", "D1:2", "D1:3"]
    assert messages[2] == {
        "role": "user",
        "name": "Ana",
        "content": "Biscuit is a beagle. Look at him! [shares a photo: a small beagle puppy on a red blanket]",
    }
    adversarial = conv_a.questions[4]
    assert adversarial.category == 5 and adversarial.answer is None and adversarial.gold == {"D1:3"}
    assert conv_a.questions[6].answer == "3"


def test_locomo_limit_and_reports(tmp_path: Path) -> None:
    results = run_locomo(lambda w, p: WordMemory(p), "raw", FIXTURE, tmp_path, limit_conversations=1)
    assert results["counts"]["conversations"] == 1 and results["counts"]["questions"] == 7
    text = render_text(results)
    assert "bench locomo" in text and "single-hop" in text and "overall" in text
    path = write_json(results, tmp_path / "out" / "locomo.json")
    assert json.loads(path.read_text())["writer"] == "raw"

    updates = run_updates(lambda w, p: WordMemory(p), "raw", 10, 1, tmp_path)
    text = render_text(updates)
    for needle in ("bench updates", "accuracy@1", "SUPERSEDE", "out_of_order", "turns/s"):
        assert needle in text
    assert json.loads(write_json(updates, tmp_path / "u.json").read_text())["counts"]["scenarios"] == 10


def test_both_benchmarks_drive_the_real_sdk(tmp_path: Path) -> None:
    make = sdk_factory(embedder="hash")
    updates = run_updates(make, "raw", 5, 7, tmp_path)
    assert updates["counts"]["scenarios"] == 5 and updates["cost"]["store_bytes"] > 0
    assert updates["operations"]["observed"].get("ADD", 0) > 0
    locomo = run_locomo(make, "raw", FIXTURE, tmp_path)
    assert locomo["counts"]["unresolved_results"] == 0  # provenance maps back to turn ids
    assert locomo["by_category"]["4"]["recall_all@10"] == 1.0


def test_locomo_counts_turns_that_stored_nothing_with_fillers_apart(tmp_path: Path) -> None:
    stored_all = run_locomo(sdk_factory(embedder="hash"), "raw", FIXTURE, tmp_path)["coverage"]
    kinds = stored_all["memorable_turns"] + stored_all["filler_turns"] + stored_all["question_turns"]
    assert stored_all["turns"] == 9 == kinds
    assert stored_all["memorable_stored_nothing"] == 0 and stored_all["stored_nothing_share"] == 0.0

    class ForgetsEverything(WordMemory):
        def list(self, *, user_id: str) -> Mapping[str, Any]:
            return {"results": []}

    nothing = run_locomo(lambda w, p: ForgetsEverything(p), "raw", FIXTURE, tmp_path)["coverage"]
    assert nothing["memorable_stored_nothing"] == nothing["memorable_turns"] > 0
    assert nothing["stored_nothing_share"] == 1.0 and nothing["filler_stored_nothing"] == nothing["filler_turns"]
    assert "stored nothing" in render_text(run_locomo(lambda w, p: WordMemory(p), "raw", FIXTURE, tmp_path))


def test_greetings_and_reactions_are_fillers_and_facts_and_photos_are_not() -> None:
    assert is_filler(Turn("D1:1", "Mel", "Hey Caroline! Good to see you, how have you been?"))
    assert is_filler(Turn("D1:2", "Mel", "Thanks so much, that's awesome!"))
    assert not is_filler(Turn("D1:3", "Mel", "We adopted a cat too, her name is Pepper."))
    assert not is_filler(Turn("D1:4", "Mel", "Look!", caption="a photo of a dog on a beach"))
