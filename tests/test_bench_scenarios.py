"""The update-scenario generator: determinism, label consistency, wording invariants."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

from memscribe.bench import phrasing as ph
from memscribe.bench.metrics import OP_KINDS, contains_value, normalize_answer
from memscribe.bench.scenarios import FAMILIES, Scenario, generate_scenarios, make_scenario, scenario_dict
from memscribe.bench.updates import DEFAULT_SCENARIOS


@cache
def _default() -> tuple[Scenario, ...]:
    return tuple(generate_scenarios(DEFAULT_SCENARIOS, 7))


def test_same_seed_same_scenarios_and_each_scenario_depends_only_on_seed_and_index() -> None:
    assert generate_scenarios(30, 7) == list(_default()[:30])
    assert make_scenario(7, 12) == _default()[12]
    assert generate_scenarios(10, 8) != list(_default()[:10])


def test_default_size_covers_every_family_equally() -> None:
    families = Counter(s.family for s in _default())
    assert set(families) == set(FAMILIES)
    assert set(families.values()) == {DEFAULT_SCENARIOS // len(FAMILIES)}
    assert len({s.scenario_id for s in _default()}) == DEFAULT_SCENARIOS


def test_every_probe_has_a_current_value_distinct_from_stale_and_distractor_values() -> None:
    for scenario in _default():
        assert scenario.chunks and any(chunk.probes for chunk in scenario.chunks), scenario.scenario_id
        for chunk in scenario.chunks:
            questions = [p.question for p in chunk.probes]
            assert len(questions) == len(set(questions)), chunk.session_id
            for probe in chunk.probes:
                assert probe.current and all(probe.current), probe
                wrong = probe.stale + probe.distractors
                for right in probe.current:
                    norm = normalize_answer(right)
                    assert not any(contains_value(norm, w) or contains_value(normalize_answer(w), right) for w in wrong)
                assert not set(probe.stale) & set(probe.distractors)


def test_operation_labels_sit_on_user_statements_only() -> None:
    kinds: Counter[str] = Counter()
    for scenario in _default():
        for chunk in scenario.chunks:
            assert chunk.turns[0].role == "user"
            for turn in chunk.turns:
                assert turn.content.strip()
                if turn.role == "assistant":
                    assert turn.op is None
                if turn.op is not None:
                    assert turn.op in OP_KINDS and turn.fact and "/" in turn.fact
                    kinds[turn.op] += 1
            assert chunk.expected_ops() == [t.op for t in chunk.turns if t.op]
            assert [m["content"] for m in chunk.messages()] == [t.content for t in chunk.turns]
    assert set(kinds) == set(OP_KINDS)  # every kind is exercised
    assert kinds["ADD"] > kinds["SUPERSEDE"] > kinds["NOOP"] > 0


def test_families_carry_their_phenomena() -> None:
    by_family: dict[str, list[Scenario]] = {}
    for scenario in _default():
        by_family.setdefault(scenario.family, []).append(scenario)

    def ops(family: str) -> Counter[str]:
        return Counter(op for s in by_family[family] for c in s.chunks for op in c.expected_ops())

    assert ops("correction")["UPDATE"] >= 2 * len(by_family["correction"])
    assert ops("forget")["DELETE"] >= len(by_family["forget"])
    assert ops("duplicate")["NOOP"] >= 2 * len(by_family["duplicate"])
    assert ops("multi_value")["SUPERSEDE"] >= len(by_family["multi_value"])
    for scenario in by_family["out_of_order"]:
        times = [c.timestamp for c in scenario.chunks]
        assert times != sorted(times), scenario.scenario_id
    # An older statement ingested after a newer one is labelled NOOP, and its value counts as stale.
    assert ops("out_of_order")["NOOP"] > 0
    for scenario in by_family["forget"]:
        assert scenario.chunks[-1].forgotten
    temporary = [p for s in by_family["temporary"] for c in s.chunks for p in c.probes if "whereabouts" in p.fact]
    assert temporary and all(p.distractors for p in temporary)
    third = {p.fact.split("/")[0] for s in by_family["third_person"] for c in s.chunks for p in c.probes}
    assert len(third) > 5


def test_forgotten_values_are_never_probed_again() -> None:
    for scenario in _default():
        for chunk in scenario.chunks:
            for probe in chunk.probes:
                assert not set(probe.current) & set(chunk.forgotten)


def test_chatter_and_replies_name_no_fact_value() -> None:
    values = [v for pool in ph.POOLS.values() for v in pool if not v.isdigit()]
    lines = [*ph.CHATTER["user"], *ph.CHATTER["assistant"], *ph.ACKS, *ph.FORGET_ACKS]
    for line in lines:
        norm = normalize_answer(line)
        assert not [v for v in values if contains_value(norm, v)], line


def test_pool_values_never_contain_one_another() -> None:
    values = sorted({v for name, pool in ph.POOLS.items() for v in pool if name not in ("age", "year")})
    for a in values:
        for b in values:
            assert a == b or not contains_value(normalize_answer(a), b), (a, b)


def test_every_statement_template_names_its_value() -> None:
    for spec in ph.ATTRIBUTES.values():
        for key, templates in spec.templates.items():
            mode = key.split(":")[1]
            for template in templates:
                if mode in ("state", "change", "dup", "add", "drop"):
                    assert any(f in template for f in ("{v}", "{av}", "{plan}")), (spec.name, template)
                if mode == "done":
                    assert "{done}" in template
    for plan in ph.PLANS:
        assert plan.value in plan.plan and plan.value in plan.done


def test_scenarios_serialise_to_json() -> None:
    data = json.loads(json.dumps(scenario_dict(_default()[5])))
    assert data["family"] == "out_of_order" and data["chunks"][0]["timestamp"].startswith("20")
    assert {"role", "content", "op", "fact"} == set(data["chunks"][0]["turns"][0])
