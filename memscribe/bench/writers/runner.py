"""The writer benchmark's loop: for each writer and data set a fresh store; each case's chunks added in
order; after each chunk its probes retrieved under every protocol, scored by the LLM-free evaluators and,
with a model configured, answered and judged.

Nothing is lost to a failure: an add, a search, an answer or a vote that raises is recorded in ``errors``
with its stage, case and message, the probes it affects are marked ``error`` (never scored as misses), and
the run goes on. ``on_progress`` gets the report so far after every (writer, data set), so an interrupted
run leaves a partial report.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memscribe.bench.harness import fresh_store_dir, provenance_of, result_rows
from memscribe.bench.metrics import OpTally
from memscribe.bench.writers import judge
from memscribe.bench.writers.cases import Case, Dataset, Probe
from memscribe.bench.writers.evaluators import EvaluatorContext, evaluate
from memscribe.bench.writers.protocols import Retriever
from memscribe.bench.writers.subjects import Row, Subject, SubjectFactory
from memscribe.providers.chat import ChatModel

__all__ = ["ProbeRecord", "RunSettings", "Tally", "run_dataset"]

_STORED = ("ADD", "UPDATE", "SUPERSEDE")
_CLOSING = ("SUPERSEDE", "UPDATE", "DELETE")


@dataclass(frozen=True)
class RunSettings:
    protocols: Mapping[str, Retriever]
    k: int = 5
    judge_chat: ChatModel | None = None
    judge_limit: int | None = None  # judge at most this many probes per (writer, data set, protocol)
    checkpoint: Callable[[Tally], None] | None = None  # called after every case, for partial reports


@dataclass
class ProbeRecord:
    writer: str
    dataset: str
    protocol: str
    case: str
    probe: str
    family: str
    status: str  # "ok" or "error"
    scores: dict[str, float | None] = field(default_factory=dict)
    judge: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class Tally:
    """What one writer did on one data set, beside the probe records."""

    writer: str
    dataset: str
    adds: int = 0
    add_errors: int = 0
    stored_nothing: int = 0
    closing: int = 0
    wrong_supersedes: int = 0
    memories: int = 0
    facts: int = 0
    turns: int = 0
    store_bytes: int = 0
    ops: OpTally = field(default_factory=OpTally)
    latency_ms: list[float] = field(default_factory=list)
    cost: dict[str, int] = field(default_factory=dict)
    judge_cost: dict[str, int] = field(default_factory=dict)
    records: list[ProbeRecord] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)

    def error(self, stage: str, where: str, exc: BaseException) -> str:
        message = f"{type(exc).__name__}: {exc}"[:300]
        self.errors.append({"writer": self.writer, "dataset": self.dataset, "stage": stage, "where": where,
                            "error": message})  # fmt: skip
        return message


class _Provenance:
    """Maps a retrieved memory back to the turn ids it cites (episode id or memory id → chunk)."""

    def __init__(self) -> None:
        self.by_episode: dict[str, tuple[str, ...]] = {}
        self.by_memory: dict[str, tuple[str, ...]] = {}

    def learn(self, answer: Mapping[str, Any], turn_ids: tuple[str, ...]) -> None:
        if answer.get("episode_id") is not None:
            self.by_episode[str(answer["episode_id"])] = turn_ids
        for row in result_rows(answer):
            if row.get("event") in _STORED and row.get("id") is not None:
                self.by_memory[str(row["id"])] = turn_ids

    def turns(self, row: Row) -> frozenset[str]:
        episode, indices = provenance_of(row)
        ids = self.by_episode.get(episode or "") or self.by_memory.get(str(row.get("id")))
        if ids is None:
            return frozenset()
        return frozenset(ids[i] for i in indices if 0 <= i < len(ids)) if indices else frozenset(ids)


def _text(row: Row) -> str:
    value = row.get("memory")
    return value if isinstance(value, str) else ""


def _closed(answer: Mapping[str, Any]) -> list[str]:
    out = []
    for row in result_rows(answer):
        if row.get("event") in ("SUPERSEDE", "UPDATE") and row.get("previous_memory"):
            out.append(str(row["previous_memory"]))
        elif row.get("event") == "DELETE" and row.get("memory"):
            out.append(str(row["memory"]))
    return out


def _holds(text: str, values: Sequence[str]) -> bool:
    low = text.casefold()
    return any(v.casefold() in low for v in values)


def _still_expected(text: str, index: int, probe: Probe) -> bool:
    return probe.after >= index and bool(probe.expect_any) and _holds(text, probe.expect_any) and not _holds(
        text, probe.stale
    )


def _wrong(closed: list[tuple[int, str]], case: Case) -> int:
    """Retired memories that held a value a probe at or after their retirement still expects."""
    return sum(1 for index, text in closed if any(_still_expected(text, index, p) for p in case.probes))


def _add_chunk(subject: Subject, case: Case, index: int, tally: Tally, prov: _Provenance) -> Mapping[str, Any] | None:
    chunk = case.chunks[index]
    began = time.perf_counter()
    try:
        answer = subject.add(chunk.messages, user_id=case.user, when=chunk.when)
    except Exception as exc:  # recorded per case; the run goes on
        tally.add_errors += 1
        tally.error("add", f"{case.case_id}#{index}", exc)
        return None
    finally:
        tally.latency_ms.append((time.perf_counter() - began) * 1000.0)
        tally.adds += 1
        tally.turns += len(chunk.messages)
    events = [str(r.get("event")) for r in result_rows(answer)]
    prov.learn(answer, chunk.turn_ids)
    if not any(e in _STORED for e in events):
        tally.stored_nothing += 1
    if chunk.expected_ops is not None:
        tally.ops.record(chunk.expected_ops, [e for e in events if e != "NOOP"])
    return answer


def _judge(settings: RunSettings, probe: Probe, texts: list[str], tally: Tally, where: str) -> dict[str, Any]:
    assert settings.judge_chat is not None
    try:
        answer = judge.answer_probe(settings.judge_chat, probe, texts)
        verdict = judge.judge_answer(settings.judge_chat, probe, answer)
    except Exception as exc:  # a model error is the probe's judge error, not a wrong answer
        return {"status": "error", "error": tally.error("judge", where, exc)}
    return {"status": "ok", "answer": verdict.answer, "votes": list(verdict.votes), "correct": verdict.correct}


def _probe(subject: Subject, case: Case, probe: Probe, ctx: tuple[Tally, _Provenance, RunSettings, bool]) -> None:
    tally, prov, settings, broken = ctx
    for name, retrieve in settings.protocols.items():
        record = ProbeRecord(tally.writer, tally.dataset, name, case.case_id, probe.probe_id, probe.family, "ok")
        tally.records.append(record)
        if broken:
            record.status, record.error = "error", "an add of this case failed before the probe"
            continue
        try:
            rows = retrieve(subject, probe.query, case.user, settings.k)
        except Exception as exc:
            record.status, record.error = "error", tally.error("search", f"{probe.probe_id}/{name}", exc)
            continue
        texts = [_text(r) for r in rows]
        record.scores = evaluate(EvaluatorContext(probe, tuple(texts), tuple(prov.turns(r) for r in rows), settings.k))
        judged = sum(1 for r in tally.records if r.protocol == name and r.judge is not None)
        if settings.judge_chat is not None and (settings.judge_limit is None or judged < settings.judge_limit):
            record.judge = _judge(settings, probe, texts, tally, f"{probe.probe_id}/{name}")


def _run_case(subject: Subject, case: Case, tally: Tally, settings: RunSettings) -> None:
    prov, closed, failed_at = _Provenance(), [], None
    for index in range(len(case.chunks)):
        answer = _add_chunk(subject, case, index, tally, prov)
        if answer is None and failed_at is None:
            failed_at = index
        closed += [(index, t) for t in _closed(answer or {})]
        for probe in case.probes_after(index):
            _probe(subject, case, probe, (tally, prov, settings, failed_at is not None))
    tally.closing += len(closed)
    tally.wrong_supersedes += _wrong(closed, case)
    try:
        tally.memories += len(subject.current(case.user))
    except Exception as exc:
        tally.error("list", case.case_id, exc)
    tally.facts += case.facts or 0


def run_dataset(
    make: SubjectFactory, writer: str, dataset: Dataset, workdir: Path, settings: RunSettings
) -> Tally:
    """One writer over one data set, in a fresh store under ``workdir``."""
    tally = Tally(writer, dataset.name)
    try:
        subject = make(writer, fresh_store_dir(workdir, f"{writer}-{dataset.name}"))
    except Exception as exc:  # a writer that cannot start: every probe is an error, the run goes on
        message = tally.error("start", writer, exc)
        for case in dataset.cases:
            for probe in case.probes:
                for name in settings.protocols:
                    tally.records.append(ProbeRecord(writer, dataset.name, name, case.case_id, probe.probe_id,
                                                     probe.family, "error", error=message))  # fmt: skip
        return tally
    judge_before = _count(settings.judge_chat)
    try:
        for case in dataset.cases:
            _run_case(subject, case, tally, settings)
            tally.cost = subject.cost()
            if settings.checkpoint is not None:
                settings.checkpoint(tally)
        tally.cost = subject.cost()
        tally.store_bytes = subject.store_bytes()
    finally:
        subject.close()
    tally.judge_cost = {k: v - judge_before.get(k, 0) for k, v in _count(settings.judge_chat).items()}
    return tally


def _count(chat: object) -> dict[str, int]:
    count = getattr(chat, "count", None)
    as_dict: Callable[[], dict[str, int]] | None = getattr(count, "as_dict", None)
    return as_dict() if as_dict is not None else {}
