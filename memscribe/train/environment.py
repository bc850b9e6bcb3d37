"""The memory RL environment: a rollout's text applied to a snapshot of a store, scored LLM-free.

One :class:`MemoryEnv` per scenario. On first use it writes the scenario chunk by chunk with the *reference*
writer (the pro protocol answered by the lite rules, unless another chat model is given) and keeps, per chunk:
the store as it was before the chunk (an SQLite snapshot taken with the backup API, so a copy costs one file
write), the pro request the writer sent for it (the prompt a policy is trained on), the reference answer
(the SFT target) and the reference's probe accuracy.

:meth:`MemoryEnv.step` copies snapshot ``k``, runs the real ``pro`` writer over a chat model that answers
with the rollout's text (so the text goes through the pro decoder and the engine's plan exactly as a served
model's would), runs the chunk's probes, and then replays the next ``horizon`` chunks with the reference
writer from the store the rollout left: a probe that fails there but passed in the reference trajectory is
charged to this write (``attributed``). Terms and weights: :mod:`memscribe.train.rewards`.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memscribe.bench.harness import result_rows, row_text
from memscribe.bench.metrics import Verdict, contains_value, judge_answer, normalize_answer
from memscribe.bench.pro import scripted_pro_chat
from memscribe.bench.scenarios import Chunk, Scenario
from memscribe.bench.writers.fake_model import bench_fake_chat
from memscribe.core.clock import FrozenClock
from memscribe.errors import ModelOutputError
from memscribe.providers.chat import ChatModel, InvalidModelOutput, parse_reply
from memscribe.testing.chat import FunctionChat
from memscribe.train.protocols import Call, Tap, check_protocols, parse_answer, protocol_writer
from memscribe.train.rewards import ChunkReward
from memscribe.write.llm.decode import flatten
from memscribe.write.prompts.pro_schema import PRO_SCHEMA

__all__ = ["MemoryEnv", "ReferenceStep", "parse_operations"]

TOP_K = 5
SOURCE = "train"
_EMPTY = '{"operations": []}'


@dataclass(frozen=True)
class _Open:
    """An open store with the writer and clock it was opened with."""

    memory: Any
    writer: Any
    clock: FrozenClock


@dataclass(frozen=True)
class ReferenceStep:
    """What the reference writer saw and answered for one chunk, and how its store fared."""

    messages: tuple[dict[str, Any], ...]  # the pro request (system + user)
    answer: str  # the reference model's text
    accuracy: float
    calls: tuple[Call, ...] = ()  # every call of the chunk (mem0 / hy: extract, then reconcile)


def parse_operations(text: str) -> list[dict[str, Any]] | None:
    """The operations (related ones flattened) in a pro answer, or None when it does not parse."""
    try:
        value = parse_reply(text, PRO_SCHEMA)
    except InvalidModelOutput:
        return None
    return [dict(item) for item in flatten(value["operations"])]


class MemoryEnv:
    """Scores writes of one scenario's chunks; stores live under ``workdir`` (created, kept)."""

    def __init__(
        self,
        scenario: Scenario,
        workdir: Path | str,
        *,
        reference: ChatModel | None = None,
        horizon: int = 1,
        embedder: str = "hash",
        protocol: str = "pro",
        carry: bool = False,
        prompt_style: str = "full",
    ) -> None:
        self.protocol = check_protocols([protocol])[0]
        self.prompt_style = prompt_style
        self.carry = carry
        self.scenario = scenario
        self.workdir = Path(workdir)
        self.reference = reference or (scripted_pro_chat() if protocol == "pro" else bench_fake_chat())
        self.horizon = horizon
        self.embedder = embedder
        self._steps: list[ReferenceStep] = []
        self._rollouts = 0

    # -- the reference trajectory ---------------------------------------------------------------------

    @property
    def steps(self) -> list[ReferenceStep]:
        if not self._steps and self.scenario.chunks:
            self._build_reference()
        return self._steps

    def snapshot(self, k: int) -> Path:
        """The store file as it was before chunk ``k`` (the reference wrote chunks ``< k``)."""
        self.steps  # noqa: B018 - builds the snapshots on first use
        return self.workdir / "snapshots" / f"before-{k:03d}.db"

    def start(self, k: int) -> Path:
        """The store a rollout of chunk ``k`` starts from: with ``carry``, the bank the latest rollout of chunk
        ``k - 1`` wrote (when there was one), else the reference's snapshot ``k``."""
        carried = self._carried(k)
        return carried if self.carry and carried.exists() else self.snapshot(k)

    def _carried(self, k: int) -> Path:
        return self.workdir / "carried" / f"before-{k:03d}.db"

    def _build_reference(self) -> None:
        if self.protocol != "pro":
            self._build_protocol_reference()
            return
        live = self.workdir / "reference" / "store.db"
        (self.workdir / "snapshots").mkdir(parents=True, exist_ok=True)
        (self.workdir / "carried").mkdir(parents=True, exist_ok=True)
        live.parent.mkdir(parents=True, exist_ok=True)
        calls: list[tuple[dict[str, Any], ...]] = []
        answers: list[str] = []

        def answer(messages: list[dict[str, Any]]) -> Any:
            result = self.reference.complete(messages, schema=PRO_SCHEMA)
            calls.append(tuple(messages))
            answers.append(result.text)
            return result

        with self._memory(live, FunctionChat(answer, model="reference")) as memory:
            for k, chunk in enumerate(self.scenario.chunks):
                _backup(live, self.workdir / "snapshots" / f"before-{k:03d}.db")
                before = len(calls)
                self._add(memory, chunk)
                accuracy = self._probe(memory, chunk)[0]
                first = calls[before] if len(calls) > before else ()
                text = answers[before] if len(answers) > before else _EMPTY
                self._steps.append(ReferenceStep(first, text, accuracy))

    def _build_protocol_reference(self) -> None:
        """The reference trajectory of a two-step protocol: every call kept; the step's prompt and answer are
        the chunk's last call (the one whose answer carries the operations)."""
        live = self.workdir / "reference" / "store.db"
        (self.workdir / "snapshots").mkdir(parents=True, exist_ok=True)
        (self.workdir / "carried").mkdir(parents=True, exist_ok=True)
        live.parent.mkdir(parents=True, exist_ok=True)
        tap = Tap(self.reference, model="reference")
        with self._memory(live, tap) as memory:
            for k, chunk in enumerate(self.scenario.chunks):
                _backup(live, self.workdir / "snapshots" / f"before-{k:03d}.db")
                before = len(tap.calls)
                self._add(memory, chunk)
                accuracy = self._probe(memory, chunk)[0]
                calls = tuple(tap.calls[before:])
                last = calls[-1] if calls else None
                self._steps.append(
                    ReferenceStep(last.messages if last else (), last.text if last else _EMPTY, accuracy, calls)
                )

    # -- one rollout ----------------------------------------------------------------------------------

    def step(self, k: int, text: str) -> ChunkReward:
        """The reward of writing chunk ``k`` with the model's ``text`` (one pro answer) from snapshot ``k``."""
        if not 0 <= k < len(self.scenario.chunks):
            raise ValueError(f"chunk {k} is outside scenario {self.scenario.scenario_id} (0..{len(self.steps) - 1})")
        chunk = self.scenario.chunks[k]
        self._rollouts += 1
        path = self.workdir / "rollouts" / f"r{self._rollouts:05d}.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.start(k), path)
        writer_chat: ChatModel
        if self.protocol == "pro":
            operations = parse_operations(text)
            writer_chat = FunctionChat(lambda messages: text if len(messages) <= 2 else _EMPTY, model="policy")
        else:
            operations = self.operations(k, text)
            writer_chat = Tap(self.reference, policy=text, at=len(self.steps[k].calls) - 1, model="policy")
        with self._memory(path, writer_chat) as memory:
            before = self._texts(memory)
            self._add(memory, chunk)
            accuracy, stale = self._probe(memory, chunk)
            after = self._texts(memory)
            rejected = memory.writer.stats.rejections
        if self.carry and k + 1 < len(self.scenario.chunks):
            _backup(path, self._carried(k + 1))  # the bank this rollout wrote starts chunk k + 1
        attributed = self._attribute(path, k)
        _unlink_store(path)
        return ChunkReward(
            probe_accuracy=accuracy,
            format_valid=_format_score(operations, rejected),
            over_storage=_over_storage(len(after), self._facts_known(k)),
            stale=stale,
            wrong_supersede=_lost_values(chunk, before, after),
            attributed=attributed,
            probes=len(chunk.probes),
            memories=len(after),
        )

    def operations(self, k: int, text: str) -> list[dict[str, Any]] | None:
        """The operations in ``text`` as chunk ``k``'s answer in this protocol, or None when it does not parse."""
        if self.protocol == "pro":
            return parse_operations(text)
        calls = self.steps[k].calls
        return _listed(parse_answer(text, calls[-1].schema if calls else None))

    def _attribute(self, path: Path, k: int) -> float:
        later = range(k + 1, min(k + 1 + self.horizon, len(self.scenario.chunks)))
        drops: list[float] = []
        with self._memory(path, self.reference) as memory:
            for j in later:
                chunk = self.scenario.chunks[j]
                self._add(memory, chunk)
                if chunk.probes:
                    drops.append(max(0.0, self.steps[j].accuracy - self._probe(memory, chunk)[0]))
        return sum(drops) / len(drops) if drops else 0.0

    def _facts_known(self, k: int) -> int:
        """Facts true after chunk ``k``, as the probes so far state them (the latest probe of each fact)."""
        latest: dict[str, int] = {}
        for chunk in self.scenario.chunks[: k + 1]:
            for probe in chunk.probes:
                latest[probe.fact] = len(probe.current)
        return sum(latest.values())

    # -- the store ------------------------------------------------------------------------------------

    @contextmanager
    def _memory(self, path: Path, chat: ChatModel) -> Iterator[_Open]:
        from memscribe import Memory

        # The rollout is judged as written: no lite rules fill in for unusable text.
        writer = protocol_writer(self.protocol, chat, prompt_style=self.prompt_style)
        clock = FrozenClock(self.scenario.chunks[0].timestamp if self.scenario.chunks else None)
        memory = Memory(path, writer=writer, embedder=self.embedder, clock=clock)
        try:
            yield _Open(memory, writer, clock)
        finally:
            memory.close()

    def _add(self, store: _Open, chunk: Chunk) -> None:
        store.clock.set(chunk.timestamp)
        # Unusable twice (ModelOutputError): nothing is written for this chunk, which the probes then score.
        with suppress(ModelOutputError):
            store.memory.add(chunk.messages(), user_id=self.scenario.user_id, timestamp=chunk.timestamp, source=SOURCE)

    def _probe(self, store: _Open, chunk: Chunk) -> tuple[float, float]:
        """(accuracy@1, stale@1) over the chunk's probes; (1, 0) for a chunk without probes."""
        if not chunk.probes:
            return 1.0, 0.0
        correct = stale = 0
        for probe in chunk.probes:
            rows = result_rows(store.memory.search(probe.question, user_id=self.scenario.user_id, limit=TOP_K))
            verdict = judge_answer(row_text(rows[0]) if rows else None, probe.current, probe.stale, probe.distractors)
            correct += verdict is Verdict.CORRECT
            stale += verdict in (Verdict.STALE, Verdict.MIXED)
        return correct / len(chunk.probes), stale / len(chunk.probes)

    def _texts(self, store: _Open) -> list[str]:
        rows = result_rows(store.memory.list(user_id=self.scenario.user_id))
        return [normalize_answer(row_text(r)) for r in rows]


def _listed(value: Any) -> list[dict[str, Any]] | None:
    """The operations list of a parsed protocol answer (its one list field), or None."""
    if not isinstance(value, dict):
        return None
    lists = [v for v in value.values() if isinstance(v, list)]
    return [dict(item) for item in lists[0] if isinstance(item, dict)] if lists else None


def _over_storage(memories: int, facts: int) -> float:
    """Active memories per known fact, above 1; 0 while no probe has stated a fact (nothing to compare)."""
    return max(0.0, memories / facts - 1.0) if facts else 0.0


def _format_score(operations: list[dict[str, Any]] | None, rejected: int) -> float:
    if operations is None:
        return 0.0
    if not operations:
        return 1.0
    return max(0.0, 1.0 - rejected / len(operations))


def _lost_values(chunk: Chunk, before: list[str], after: list[str]) -> float:
    """Current values a memory held before the write and none holds after, per probe."""
    if not chunk.probes:
        return 0.0
    lost = 0
    for probe in chunk.probes:
        for value in probe.current:
            held = any(contains_value(t, value) for t in before)
            lost += held and not any(contains_value(t, value) for t in after)
    return lost / len(chunk.probes)


def _backup(source: Path, target: Path) -> None:
    """A consistent copy of an SQLite store (WAL included) while it is open elsewhere."""
    target.unlink(missing_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def _unlink_store(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(f"{path}.ann", ignore_errors=True)
