"""``bench natural``: the JSONL loader, the scoring rule, a run of two writers and the CLI command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memscribe.bench.harness import sdk_factory
from memscribe.bench.natural import NaturalProbe, judge_probe, load_natural, run_natural
from memscribe.cli.main import cli
from memscribe.core.clock import FrozenClock
from memscribe.errors import InvalidInput

FIXTURE = Path(__file__).parent / "fixtures" / "natural_tiny.jsonl"


def test_loader_reads_families_languages_and_probes() -> None:
    scenarios = load_natural(FIXTURE)
    assert [(s.family, s.language) for s in scenarios] == [
        ("employer", "en"), ("home-city", "zh"), ("forget", "en"),
    ]  # fmt: skip
    assert scenarios[0].probes[1].stale == ("Initech", "Globex") and len(scenarios[1].episodes) == 2


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "not valid JSON"),
        ('{"id": "d1-x", "user": "u", "episodes": []}', "missing 'probes'"),
        (
            '{"id": "d1-x", "user": "u", "episodes": [{"t": "2024-01-01", "messages": []}],'
            ' "probes": [{"after": 3, "query": "q", "expect_any": ["a"], "stale": []}]}',
            "out of range",
        ),
    ],
)
def test_loader_names_the_bad_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=message):
        load_natural(path)


def test_scoring_rule_top1_and_forget_top5() -> None:
    probe = NaturalProbe(0, "q", ("Stripe",), ("Shopify",))
    assert judge_probe(probe, ["now at stripe", "was at Shopify"]) == (True, False)
    assert judge_probe(probe, ["moved from Shopify to Stripe"]) == (False, True)
    assert judge_probe(probe, ["at Shopify", "at Stripe"]) == (False, True)
    assert judge_probe(probe, []) == (False, False)
    forget = NaturalProbe(0, "q", (), ("4471",))
    assert judge_probe(forget, ["a", "b", "c", "d", "e", "code 4471"]) == (True, False)
    assert judge_probe(forget, ["a", "code 4471"]) == (False, False)


def test_run_reports_accuracy_per_family_and_language(tmp_path: Path) -> None:
    clock = FrozenClock()
    results = run_natural(sdk_factory(embedder="hash", clock=clock), "raw", FIXTURE, tmp_path, sim_clock=clock)
    assert results["counts"] == {"scenarios": 3, "probes": 4}
    assert results["metrics"]["probes"] == 4 and 0.0 <= results["metrics"]["accuracy"] <= 1.0
    assert set(results["by_family"]) == {"employer", "home-city", "forget"}
    assert set(results["by_language"]) == {"en", "zh"} and results["by_language"]["zh"]["probes"] == 1
    passed = round(results["metrics"]["accuracy"] * 4)
    assert len(results["failures"]) == 4 - passed
    # raw keeps the first message, so the employer probe after the change has Initech somewhere in the store
    assert results["by_family"]["employer"]["probes"] == 2


@pytest.mark.parametrize("flag", ["-o", "--json"])
def test_cli_runs_writers_side_by_side_and_writes_json(tmp_path: Path, flag: str) -> None:
    out = tmp_path / "n.json"
    args = [
        "bench",
        "natural",
        "--data",
        str(FIXTURE),
        "--writer",
        "raw,lite",
        "--embedder",
        "hash",
        flag,
        str(out),
    ]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    runs = json.loads(out.read_text(encoding="utf-8"))["runs"]
    assert [r["writer"] for r in runs] == ["raw", "lite"]
    assert all(set(r["by_language"]) == {"en", "zh"} for r in runs)
    assert "per family" in done.output and "employer" in done.output


def test_halves_split_the_scenarios_by_position_and_trace_lists_operations(tmp_path: Path) -> None:
    from memscribe.bench.natural import select_scenarios

    scenarios = load_natural(FIXTURE)
    even, odd = select_scenarios(scenarios, "even"), select_scenarios(scenarios, "odd")
    assert [s.scenario_id for s in even + odd] == [scenarios[i].scenario_id for i in (0, 2, 1)]
    with pytest.raises(InvalidInput, match="even or odd"):
        select_scenarios(scenarios, "third")
    clock = FrozenClock()
    factory = sdk_factory(embedder="hash", clock=clock)
    results = run_natural(factory, "raw", FIXTURE, tmp_path, sim_clock=clock, scenarios_subset="odd", trace=True)
    assert results["counts"]["scenarios"] == 1 and results["scenarios"] == "odd"
    for failure in results["failures"]:
        assert failure["journal"] and all(line.startswith("e") for line in failure["journal"])


def test_cli_trace_prints_failing_probes(tmp_path: Path) -> None:
    out = CliRunner().invoke(
        cli, ["bench", "natural", "--data", str(FIXTURE), "--writer", "raw", "--embedder", "hash", "--trace"]
    )
    assert out.exit_code == 0, out.output
    # raw keeps every message, so the old employer still answers first: a stale probe, listed with its operations
    assert "--- raw STALE d001-employer after e1" in out.output
    assert "expect ['Vandelay']" in out.output and "e0 ADD: quick one before standup" in out.output


def test_variants_retype_only_the_peoples_messages(tmp_path: Path) -> None:
    from memscribe.bench.variants import VARIANTS, typed_as

    said = "I'm in Lisbon now. Loving it! 🎉 we didn't plan this"
    assert VARIANTS["lowercase"](said) == "i'm in lisbon now. loving it! 🎉 we didn't plan this"
    assert VARIANTS["no-apostrophes"](said) == "Im in Lisbon now. Loving it! 🎉 we didnt plan this"
    assert VARIANTS["run-on"](said) == "I'm in Lisbon now Loving it 🎉 we didn't plan this"
    assert VARIANTS["no-emoji"](said) == "I'm in Lisbon now. Loving it!  we didn't plan this"
    scenarios = load_natural(FIXTURE)
    retyped = typed_as(scenarios, "lowercase")
    for before, after in zip(scenarios, retyped, strict=True):
        assert after.probes == before.probes
        for (_, old), (_, new) in zip(before.episodes, after.episodes, strict=True):
            for o, n in zip(old, new, strict=True):
                assert n["content"] == (o["content"].lower() if o["role"] == "user" else o["content"])
    with pytest.raises(InvalidInput, match="variant"):
        typed_as(scenarios, "shouting")
    out = tmp_path / "v.json"
    args = ["bench", "natural", "--data", str(FIXTURE), "--writer", "lite", "--embedder", "hash",
            "--variant", "no-apostrophes", "-o", str(out)]  # fmt: skip
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    assert json.loads(out.read_text(encoding="utf-8"))["runs"][0]["variant"] == "no-apostrophes"


CHAT_CHANGES = Path(__file__).parent / "fixtures" / "chat_changes.jsonl"


def test_the_lite_writer_keeps_the_changes_typed_as_in_chat_current(tmp_path: Path) -> None:
    """A regression set (written for memscribe, not evidence of quality): 198 pairs of statements — a value and
    its change as people type it, or a control that changes nothing of the speaker's — each probed once. With
    the offline hash embedder lite answered 157 and showed 28 stale values when this was written, raw 80 / 91."""
    results = {}
    for writer in ("raw", "lite"):
        clock = FrozenClock()
        runs = run_natural(sdk_factory(embedder="hash", clock=clock), writer, CHAT_CHANGES, tmp_path / writer,
                           sim_clock=clock)  # fmt: skip
        results[writer] = runs["metrics"]
    assert results["lite"]["probes"] == 198
    assert results["lite"]["accuracy"] >= 0.76 and results["lite"]["stale_top1"] <= 32
    assert results["lite"]["accuracy"] >= results["raw"]["accuracy"] + 0.3
