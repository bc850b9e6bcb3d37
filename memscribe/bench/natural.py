"""``bench natural``: do a writer's memories hold the current truth on conversations people wrote?

The data is JSON Lines, one scenario per line (the ``updates-natural`` format)::

    {"id": "d001-employer", "user": "omar",
     "episodes": [{"t": "2023-01-10T08:12:00", "messages": [{"role": "user", "content": "..."}, ...]}, ...],
     "probes": [{"after": 1, "query": "...", "expect_any": ["Shopify"], "stale": []}, ...]}

Episodes are added in list order, one ``add()`` each, with ``t`` as the timestamp (and the clock moved to it,
so "now" is the conversation's time). After episode ``after`` each of its probes searches the user's memory.
Matching is case-insensitive substring matching on the returned texts:

* ``expect_any`` non-empty: the top-1 result must contain one of ``expect_any`` and none of ``stale``;
* ``expect_any`` empty (a forget request): none of the top five may contain a ``stale`` value.

``stale@1`` counts the probes whose top-1 result holds a stale value. The id's family part names the family
("d131-zh-employer" → family ``employer``, language ``zh``; no prefix means English).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from memscribe.bench.harness import (
    MemoryFactory,
    MemoryLike,
    RunClock,
    SimClock,
    close_quietly,
    fresh_store_dir,
    result_rows,
    row_text,
)
from memscribe.bench.variants import VARIANTS, typed_as
from memscribe.errors import InvalidInput

__all__ = [
    "TOP_K",
    "NaturalProbe",
    "NaturalScenario",
    "judge_probe",
    "load_natural",
    "run_natural",
    "select_scenarios",
]

TOP_K = 5
SOURCE = "bench"
_LANGUAGES = frozenset({"zh", "es", "fr", "de", "pt", "it", "ja", "ko", "ru", "nl"})


@dataclass(frozen=True)
class NaturalProbe:
    after: int
    query: str
    expect_any: tuple[str, ...]
    stale: tuple[str, ...]


@dataclass(frozen=True)
class NaturalScenario:
    scenario_id: str
    user: str
    family: str
    language: str
    episodes: tuple[tuple[datetime, tuple[dict[str, str], ...]], ...]
    probes: tuple[NaturalProbe, ...]


def _family(scenario_id: str) -> tuple[str, str]:
    """(family, language) from an id such as "d131-zh-employer"."""
    _, _, rest = scenario_id.partition("-")
    head, _, tail = rest.partition("-")
    if head in _LANGUAGES and tail:
        return tail, head
    return rest or scenario_id, "en"


def _strings(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"{where}: expected a list of strings")
    return tuple(value)


def _episode(raw: object, where: str) -> tuple[datetime, tuple[dict[str, str], ...]]:
    if not isinstance(raw, dict) or not isinstance(raw.get("t"), str) or not isinstance(raw.get("messages"), list):
        raise InvalidInput(f"{where}: an episode needs 't' (ISO time) and 'messages'")
    try:
        when = datetime.fromisoformat(raw["t"])
    except ValueError as exc:
        raise InvalidInput(f"{where}: bad time {raw['t']!r}") from exc
    messages = []
    for m in raw["messages"]:
        role, content = (m.get("role"), m.get("content")) if isinstance(m, dict) else (None, None)
        if role not in ("user", "assistant") or not isinstance(content, str):
            raise InvalidInput(f"{where}: a message needs role user/assistant and string content")
        messages.append({"role": str(role), "content": content})
    return when, tuple(messages)


def _scenario(raw: object, where: str) -> NaturalScenario:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected a JSON object")
    for key in ("id", "user", "episodes", "probes"):
        if key not in raw:
            raise InvalidInput(f"{where}: missing {key!r}")
    episodes = tuple(_episode(e, f"{where} episode {i}") for i, e in enumerate(raw["episodes"]))
    probes = []
    for i, p in enumerate(raw["probes"]):
        at = f"{where} probe {i}"
        if not isinstance(p, dict) or not isinstance(p.get("after"), int) or not isinstance(p.get("query"), str):
            raise InvalidInput(f"{at}: a probe needs an integer 'after' and a 'query'")
        if not 0 <= p["after"] < len(episodes):
            raise InvalidInput(f"{at}: 'after' {p['after']} is out of range")
        probe = NaturalProbe(
            p["after"], p["query"], _strings(p.get("expect_any", []), at), _strings(p.get("stale", []), at)
        )
        if not probe.expect_any and not probe.stale:
            raise InvalidInput(f"{at}: a probe needs expect_any or stale values")
        probes.append(probe)
    family, language = _family(str(raw["id"]))
    return NaturalScenario(str(raw["id"]), str(raw["user"]), family, language, episodes, tuple(probes))


def load_natural(path: Path | str) -> list[NaturalScenario]:
    """Scenarios of a JSONL file; a malformed line raises :class:`InvalidInput` naming its line."""
    scenarios = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            scenarios.append(_scenario(raw, f"{path}:{number}"))
    if not scenarios:
        raise InvalidInput(f"{path}: no scenarios")
    return scenarios


def _holds(text: str, values: Sequence[str]) -> bool:
    low = text.lower()
    return any(v.lower() in low for v in values)


def judge_probe(probe: NaturalProbe, texts: Sequence[str]) -> tuple[bool, bool]:
    """(passed, stale at top-1) for the ranked result texts of one probe."""
    top = texts[0] if texts else ""
    stale_top = bool(texts) and _holds(top, probe.stale)
    if not probe.expect_any:
        return not any(_holds(t, probe.stale) for t in texts[:TOP_K]), stale_top
    return bool(texts) and _holds(top, probe.expect_any) and not stale_top, stale_top


class _Tally:
    def __init__(self, trace: bool = False) -> None:
        self.counts: dict[str, Counter[str]] = {}
        self.failures: list[dict[str, Any]] = []
        self.trace = trace

    def add(self, groups: Sequence[str], passed: bool, stale: bool) -> None:
        for group in groups:
            c = self.counts.setdefault(group, Counter())
            c["probes"] += 1
            c["passed"] += passed
            c["stale_top1"] += stale

    def table(self, prefix: str) -> dict[str, dict[str, float | int]]:
        out = {}
        for name in sorted(g for g in self.counts if g.startswith(prefix)):
            c = self.counts[name]
            out[name.removeprefix(prefix)] = {
                "probes": c["probes"],
                "accuracy": round(c["passed"] / c["probes"], 4),
                "stale_top1": c["stale_top1"],
            }
        return out


def _run_scenario(
    memory: MemoryLike, scenario: NaturalScenario, clock: RunClock, tally: _Tally, sim_clock: SimClock | None
) -> None:
    journal: list[str] = []
    for index, (when, messages) in enumerate(scenario.episodes):
        if sim_clock is not None:
            sim_clock.set(when)
        with clock.adding(len(messages)):
            answer = memory.add(list(messages), user_id=scenario.user, timestamp=when, source=SOURCE)
        if tally.trace:
            journal.extend(_journal_lines(index, answer))
        for probe in (p for p in scenario.probes if p.after == index):
            with clock.searching():
                rows = result_rows(memory.search(probe.query, user_id=scenario.user, limit=TOP_K))
            texts = [row_text(r) for r in rows]
            passed, stale = judge_probe(probe, texts)
            tally.add(["all", f"family:{scenario.family}", f"language:{scenario.language}"], passed, stale)
            if not passed:
                failure: dict[str, Any] = {
                    "scenario": scenario.scenario_id, "after": index, "query": probe.query,
                    "expect_any": list(probe.expect_any), "stale": list(probe.stale),
                    "top": texts[: TOP_K if tally.trace else 3], "stale_top1": stale,
                }  # fmt: skip
                if tally.trace:
                    failure["journal"] = list(journal)
                tally.failures.append(failure)


def _journal_lines(index: int, answer: Mapping[str, Any]) -> list[str]:
    """One line per operation of an add answer: episode, event, text and the writer's reason."""
    lines = []
    for row in result_rows(answer):
        reason = row.get("reason", "")
        lines.append(f"e{index} {row.get('event', '?')}: {row_text(row)[:160]} ({reason})")
    return lines


def select_scenarios(scenarios: Sequence[NaturalScenario], which: str) -> list[NaturalScenario]:
    """``all``, or the ``even`` / ``odd`` half by position in the file (0-based): two halves for a check."""
    if which == "all":
        return list(scenarios)
    if which not in ("even", "odd"):
        raise InvalidInput(f"scenarios: expected all, even or odd, not {which!r}")
    start = 0 if which == "even" else 1
    return list(scenarios[start::2])


def run_natural(
    make_memory: MemoryFactory,
    writer: str,
    data: Path | str,
    workdir: Path | str = Path(".bench"),
    *,
    sim_clock: SimClock | None = None,
    progress: Callable[[int, int], None] | None = None,
    scenarios_subset: str = "all",
    trace: bool = False,
    variant: str = "as-written",
) -> dict[str, Any]:
    """Run the scenarios of ``data`` (all, or the even/odd half) through one fresh store of ``writer``, the
    people's messages typed as ``variant`` says (:mod:`memscribe.bench.variants`).

    With ``trace`` each failure also lists the top five texts and every operation of its scenario so far.
    """
    scenarios = typed_as(select_scenarios(load_natural(data), scenarios_subset), variant)
    store = fresh_store_dir(Path(workdir), f"natural-{writer}")
    memory = make_memory(writer, store)
    clock, tally = RunClock(), _Tally(trace)
    try:
        for done, scenario in enumerate(scenarios, 1):
            _run_scenario(memory, scenario, clock, tally, sim_clock)
            if progress is not None:
                progress(done, len(scenarios))
    finally:
        close_quietly(memory)
    return {
        "benchmark": "natural",
        "writer": writer,
        "data": str(data),
        "scenarios": scenarios_subset,
        "variant": variant,
        "counts": {"scenarios": len(scenarios), "probes": sum(len(s.probes) for s in scenarios)},
        "metrics": tally.table("all").get("", {}),
        "by_family": tally.table("family:"),
        "by_language": tally.table("language:"),
        "cost": clock.summary(),
        "failures": tally.failures,
    }


def _tables(results: Sequence[dict[str, Any]]) -> list[Any]:
    from rich.table import Table

    tables = []
    for section, title in (("metrics", "overall"), ("by_family", "per family"), ("by_language", "per language")):
        table = Table(title=f"natural: {title} (accuracy / stale@1 / probes)")
        table.add_column(title)
        for r in results:
            table.add_column(str(r["writer"]), justify="right")
        rows = {"all": results[0]["metrics"]} if section == "metrics" else results[0][section]
        for name in rows:
            cells = []
            for r in results:
                cell = r["metrics"] if section == "metrics" else r[section].get(name, {})
                cells.append(f"{cell.get('accuracy', '—')} / {cell.get('stale_top1', '—')} / {cell.get('probes', '—')}")
            table.add_row(name, *cells)
        tables.append(table)
    return tables


def _print_trace(result: Mapping[str, Any]) -> None:
    for f in result["failures"]:
        mark = "STALE" if f.get("stale_top1") else "miss"
        click.echo(f"--- {result['writer']} {mark} {f['scenario']} after e{f['after']}: {f['query']}")
        click.echo(f"    expect {f['expect_any']} stale {f['stale']}")
        for rank, text in enumerate(f["top"], 1):
            click.echo(f"    {rank}. {text[:200]}")
        for line in f.get("journal", []):
            click.echo(f"      {line}")


def _factory(writer: str, embedder: str, clock: Any) -> MemoryFactory:
    from memscribe.bench.harness import sdk_factory
    from memscribe.engine.writers import LLM_WRITER_NAMES

    if writer not in LLM_WRITER_NAMES:
        return sdk_factory(embedder=embedder, clock=clock)
    from memscribe.bench.pro import scripted_pro_chat
    from memscribe.bench.writer_cmds import _configured_chat
    from memscribe.write.llm import make_llm_writer

    built = make_llm_writer(writer, _configured_chat() or scripted_pro_chat())

    def make(name: str, path: Path) -> MemoryLike:
        from memscribe import Memory

        memory: MemoryLike = Memory(path / "store.db", writer=built, embedder=embedder, clock=clock)
        return memory

    return make


@click.command("natural")
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--writer", "writers", default="raw,lite", show_default=True, help="Writers, comma-separated.")
@click.option("--embedder", default="local", show_default=True, help="Embedder spec (local or hash).")
@click.option("-o", "--output", "--json", "output", type=click.Path(path_type=Path), default=None,
              help="Write the JSON report here (--json is the earlier spelling).")
@click.option("--scenarios", "subset", type=click.Choice(["all", "even", "odd"]), default="all", show_default=True,
              help="All scenarios, or the even/odd half by position in the file.")  # fmt: skip
@click.option("--trace", is_flag=True, help="Print each failing probe with its top five and the operations so far.")
@click.option("--variant", type=click.Choice(list(VARIANTS)), default="as-written", show_default=True,
              help="The people's messages typed another way: lower case, no apostrophes, sentences run on, no emoji.")
def command(
    data_path: Path, writers: str, embedder: str, output: Path | None, subset: str, trace: bool, variant: str
) -> None:
    """Natural update scenarios (JSONL): current value at top-1, stale@1, per family and language."""
    import tempfile

    from rich.console import Console

    from memscribe.bench.report import write_json
    from memscribe.core.clock import FrozenClock

    names = [w.strip() for w in writers.split(",") if w.strip()]
    if not names:
        raise click.BadParameter("name at least one writer", param_hint="--writer")
    load_natural(data_path)  # a malformed file fails before any writer runs
    results = []
    with tempfile.TemporaryDirectory(prefix="memscribe-natural-") as work:
        for name in names:
            clock = FrozenClock()
            factory = _factory(name, embedder, clock)
            results.append(
                run_natural(
                    factory, name, data_path, work, sim_clock=clock, scenarios_subset=subset, trace=trace,
                    variant=variant,
                )
            )
    if trace:
        for result in results:
            _print_trace(result)
    console = Console()
    for table in _tables(results):
        console.print(table)
    if output is not None:
        write_json({"runs": results}, output)
        click.echo(f"wrote {output}")
