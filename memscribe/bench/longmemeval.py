"""``bench longmemeval``: session and turn recall and answer containment on LongMemEval-format data, LLM-free.

The official format is a JSON list of questions ``{question_id, question_type, question, answer,
question_date, haystack_session_ids, haystack_dates, haystack_sessions, answer_session_ids}``; each session is
a list of turns ``{role, content, has_answer?}``, ``has_answer`` marking the evidence turns. Each question's
haystack is ingested under its own ``user_id``, one ``add()`` per session with the session date as the
timestamp (questions sharing one haystack share one ingest). Then the question is searched (top 10) and
scored from the provenance and text of the returned memories:

* session ``recall_any@k`` / ``recall_all@k`` over ``answer_session_ids``;
* turn ``turn_recall_any@k`` / ``turn_recall_all@k`` / ``turn_recall_frac@k`` over the ``has_answer`` turns;
* ``contain@k``: the normalised answer occurs in the top-k texts joined with their session dates. Answers
  written for a judge ("7 days. 8 days (including the last day) is also acceptable.") are cut at the first
  sentence end or parenthesis, the way LoCoMo's category-3 answers are cut at ``;``.

Abstention questions (``question_id`` ending in ``_abs``) have no evidence: they are counted apart and
scored on nothing. Results are given overall and per ``question_type``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memscribe.bench.harness import (
    MemoryFactory,
    MemoryLike,
    RunClock,
    close_quietly,
    fresh_store_dir,
    json_safe,
    provenance_of,
    result_rows,
    row_text,
    store_bytes,
)
from memscribe.bench.metrics import MeanTable, answer_containment, evidence_recall, normalize_answer

__all__ = ["KS", "LongMemQuestion", "LongMemSession", "load_longmemeval", "parse_haystack_date", "run_longmemeval"]

KS = (1, 5, 10)
SOURCE = "bench"
_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\(\w+\))?\s*(\d{1,2}):(\d{2})")
_ANSWER_END = re.compile(r"\.\s|\s\(")


@dataclass(frozen=True)
class LongMemSession:
    session_id: str
    date: str  # as written, e.g. "2023/05/20 (Sat) 02:21"
    timestamp: datetime | None
    turns: tuple[tuple[str, str, bool], ...]  # (role, content, has_answer)


@dataclass(frozen=True)
class LongMemQuestion:
    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: str
    sessions: tuple[LongMemSession, ...]
    answer_sessions: frozenset[str]

    @property
    def abstention(self) -> bool:
        return self.question_id.endswith("_abs")

    @property
    def evidence_turns(self) -> frozenset[str]:
        """``has_answer`` turns of the answer sessions (a haystack shared by several questions marks the
        evidence of all of them)."""
        return frozenset(
            f"{s.session_id}#{i}"
            for s in self.sessions
            if s.session_id in self.answer_sessions
            for i, (_, _, has) in enumerate(s.turns)
            if has
        )


def parse_haystack_date(text: str) -> datetime | None:
    """``"2023/05/20 (Sat) 02:21"`` as a UTC datetime; ``None`` when the format is not recognised."""
    match = _DATE.search(text)
    if match is None:
        return None
    year, month, day, hour, minute = (int(g) for g in match.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError:
        return None


def load_longmemeval(path: Path | str) -> list[LongMemQuestion]:
    """Read a LongMemEval-format file (a JSON list of questions); a malformed one is a clear ``ValueError``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of LongMemEval questions")
    return [_question(item, index, path) for index, item in enumerate(data)]


def _question(item: Any, index: int, path: Path | str) -> LongMemQuestion:
    required = ("question_id", "question", "answer", "haystack_sessions", "haystack_session_ids")
    missing = [k for k in required if not isinstance(item, Mapping) or k not in item]
    if missing:
        raise ValueError(f"{path}: question {index} lacks {', '.join(missing)}")
    ids, raw_sessions = item["haystack_session_ids"], item["haystack_sessions"]
    dates = item.get("haystack_dates") or [""] * len(ids)
    if not (len(ids) == len(raw_sessions) == len(dates)):
        raise ValueError(f"{path}: question {index} has unequal haystack ids, dates and sessions")
    sessions = tuple(
        LongMemSession(str(sid), str(date), parse_haystack_date(str(date)), _turns(turns))
        for sid, date, turns in zip(ids, dates, raw_sessions, strict=True)
    )
    return LongMemQuestion(
        question_id=str(item["question_id"]),
        question_type=str(item.get("question_type") or "unknown"),
        question=str(item["question"]),
        answer=str(item["answer"]),
        question_date=str(item.get("question_date") or ""),
        sessions=sessions,
        answer_sessions=frozenset(str(s) for s in item.get("answer_session_ids") or ()),
    )


def _turns(raw: Sequence[Any]) -> tuple[tuple[str, str, bool], ...]:
    return tuple(
        (str(t.get("role") or "user"), str(t.get("content") or ""), bool(t.get("has_answer")))
        for t in raw
        if isinstance(t, Mapping)
    )


def gold_answer(answer: str) -> str | None:
    """The part of a judge-oriented answer to look for: up to the first sentence end or parenthesis."""
    head = _ANSWER_END.split(answer.strip(), maxsplit=1)[0].strip().rstrip(".")
    return head if normalize_answer(head) else None


class _Haystacks:
    """Ingests each distinct haystack once, and maps search provenance back to session and turn ids."""

    def __init__(self, memory: MemoryLike, clock: RunClock) -> None:
        self.memory, self.clock = memory, clock
        self.users: dict[tuple[str, ...], str] = {}
        self.by_episode: dict[str, tuple[LongMemSession, list[int]]] = {}
        self.by_memory: dict[str, tuple[LongMemSession, list[int]]] = {}
        self.events: Counter[str] = Counter()
        self.unresolved = 0

    def user_for(self, q: LongMemQuestion) -> str:
        key = tuple(s.session_id for s in q.sessions)
        if key not in self.users:
            user = f"longmemeval-{len(self.users)}"
            for session in q.sessions:
                self._ingest(user, session)
            self.users[key] = user
        return self.users[key]

    def _ingest(self, user: str, session: LongMemSession) -> None:
        messages, turn_of = [], []
        for i, (role, content, _) in enumerate(session.turns):
            if content.strip():
                messages.append({"role": role if role in ("user", "assistant") else "user", "content": content})
                turn_of.append(i)
        if not messages:
            return
        with self.clock.adding(len(messages)):
            answer = self.memory.add(messages, user_id=user, timestamp=session.timestamp, source=SOURCE)
        self.events.update(str(row.get("event", "")) for row in result_rows(answer))
        if answer.get("episode_id") is not None:
            self.by_episode[str(answer["episode_id"])] = (session, turn_of)
        for row in result_rows(answer):
            if row.get("event") in ("ADD", "UPDATE", "SUPERSEDE") and row.get("id") is not None:
                self.by_memory[str(row["id"])] = (session, turn_of)

    def resolve(self, row: Mapping[str, Any]) -> tuple[LongMemSession | None, set[str]]:
        episode, indices = provenance_of(row)
        found = self.by_episode.get(episode) if episode is not None else None
        found = found or self.by_memory.get(str(row.get("id")))
        if found is None:
            self.unresolved += 1
            return None, set()
        session, turn_of = found
        return session, {f"{session.session_id}#{turn_of[i]}" for i in indices if 0 <= i < len(turn_of)}


def run_longmemeval(
    make_memory: MemoryFactory,
    writer: str,
    data_path: Path | str,
    workdir: Path | str = Path(".bench"),
    limit_questions: int | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Ingest and score LongMemEval-format data with a fresh store of ``writer``; returns the results dict."""
    questions = load_longmemeval(data_path)[:limit_questions]
    store = fresh_store_dir(Path(workdir), f"longmemeval-{writer}")
    memory = make_memory(writer, store)
    clock, table = RunClock(), MeanTable()
    haystacks = _Haystacks(memory, clock)
    try:
        for done, q in enumerate(questions, 1):
            _score(memory, haystacks.user_for(q), q, haystacks, clock, table)
            if progress is not None:
                progress(done, len(questions))
        engine_stats = json_safe(memory.stats())
    finally:
        close_quietly(memory)
    return _results(writer, Path(data_path), questions, table, haystacks, clock, store, engine_stats)


def _score(
    memory: MemoryLike, user: str, q: LongMemQuestion, haystacks: _Haystacks, clock: RunClock, table: MeanTable
) -> None:
    with clock.searching():
        rows = result_rows(memory.search(q.question, user_id=user, limit=max(KS)))
    resolved = [haystacks.resolve(row) for row in rows]
    if q.abstention:
        table.add(["abstention"], results=float(len(rows)))
        return
    values: dict[str, float | None] = {}
    sessions = [{s.session_id} if s is not None else set() for s, _ in resolved]
    turns = [ids for _, ids in resolved]
    gold_turns = q.evidence_turns
    for k in KS:
        if q.answer_sessions:
            recall = evidence_recall(q.answer_sessions, sessions, k)
            values[f"recall_any@{k}"], values[f"recall_all@{k}"] = recall[f"recall_any@{k}"], recall[f"recall_all@{k}"]
        if gold_turns:
            recall = evidence_recall(gold_turns, turns, k)
            for name in ("recall_any", "recall_all", "recall_frac"):
                values[f"turn_{name}@{k}"] = recall[f"{name}@{k}"]
    gold = gold_answer(q.answer)
    if gold is not None:
        texts = [f"{row_text(row)} {s.date if s else ''}" for row, (s, _) in zip(rows, resolved, strict=True)]
        for k in KS:
            values[f"contain@{k}"] = answer_containment(gold, texts, k)
    table.add([q.question_type, "all"], **values)


def _results(
    writer: str,
    data_path: Path,
    questions: list[LongMemQuestion],
    table: MeanTable,
    haystacks: _Haystacks,
    clock: RunClock,
    store: Path,
    engine_stats: Any,
) -> dict[str, Any]:
    means = table.means()
    per_type = Counter(q.question_type for q in questions if not q.abstention)
    by_type = {name: {"n": n, **means.get(name, {})} for name, n in sorted(per_type.items())}
    return {
        "benchmark": "longmemeval",
        "writer": writer,
        "seed": None,  # deterministic: no sampling
        "data": {"path": str(data_path), "sha256": hashlib.sha256(data_path.read_bytes()).hexdigest()},
        "settings": {"ks": list(KS), "top_k": max(KS), "answer": "cut at the first sentence end or parenthesis"},
        "counts": {
            "questions": len(questions),
            "abstention": sum(1 for q in questions if q.abstention),
            "haystacks": len(haystacks.users),
            "sessions": sum(len(key) for key in haystacks.users),
            "turns_ingested": clock.turns,
            "unresolved_results": haystacks.unresolved,
        },
        "metrics": means.get("all", {}),
        "by_type": by_type,
        "operations": {"observed": dict(sorted(haystacks.events.items()))},
        "cost": {**clock.summary(), "store_bytes": store_bytes(store), "store_path": str(store)},
        "engine_stats": engine_stats,
    }
