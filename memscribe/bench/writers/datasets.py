"""Loaders: the natural-scenario JSONL, LoCoMo, LongMemEval (official format) and the generated update
scenarios, each read into :class:`~memscribe.bench.writers.cases.Case` lists with per-chunk probes.

Per-chunk probes: every probe is asked right after the chunk that completes its evidence, so a writer is
scored on what was just said while the history still grows. The natural and generated sets carry their own
``after``; a LoCoMo question is asked after the session holding its last evidence turn, a LongMemEval
question after its last answer session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from memscribe.bench.writers.cases import Case, Chunk, Dataset, Probe
from memscribe.errors import InvalidInput

__all__ = ["DATASETS", "load_dataset", "locomo_cases", "longmemeval_cases", "natural_cases", "updates_cases"]

_EPOCH = datetime(2023, 1, 1, tzinfo=UTC)
_SESSION = re.compile(r"^D(\d+):")


def _stride(items: Sequence[Case], count: int | None) -> list[Case]:
    """Every ``len/count``-th item, in order: a fixed subset that stays comparable across runs."""
    if not count or count >= len(items):
        return list(items)
    step = max(1, len(items) // count)
    return list(items[::step][:count])


def natural_cases(path: Path | str, count: int | None = None) -> list[Case]:
    """The updates-natural JSONL; ``count`` keeps every ``len/count``-th scenario."""
    from memscribe.bench.natural import load_natural

    cases = []
    for s in load_natural(path):
        chunks = tuple(
            Chunk(when, messages, tuple(f"{i}:{j}" for j in range(len(messages))))
            for i, (when, messages) in enumerate(s.episodes)
        )
        probes = tuple(
            Probe(f"{s.scenario_id}/{n}", p.after, p.query, p.expect_any, p.stale, _first(p.expect_any),
                  family=s.family)
            for n, p in enumerate(s.probes)
        )
        facts = len({p.query for p in s.probes if p.expect_any})
        cases.append(Case(s.scenario_id, s.user, s.family, chunks, probes, facts or None, s.language))
    return _stride(cases, count)


def _first(values: Sequence[str]) -> str | None:
    return values[0] if values else None


def locomo_cases(path: Path | str, conversations: int | None = 1, sessions: int | None = None) -> list[Case]:
    """LoCoMo conversations (the first ``conversations``; ``sessions`` caps each), categories 1-4."""
    from memscribe.bench.locomo import CATEGORY_NAMES, load_locomo, session_messages
    from memscribe.bench.metrics import gold_answer

    cases = []
    for conv in load_locomo(path)[:conversations]:
        kept = conv.sessions[:sessions] if sessions else conv.sessions
        chunks, where = [], {}
        for index, session in enumerate(kept):
            messages, dia_ids = session_messages(session)
            chunks.append(Chunk(session.timestamp or _EPOCH, tuple(messages), tuple(dia_ids)))
            where[session.number] = index
        probes = []
        for n, q in enumerate(conv.questions):
            gold = gold_answer(q.answer, q.category) if q.category in (1, 2, 3, 4) else None
            after = _last_session(q.gold, where)
            if gold is None or after is None:
                continue
            name = CATEGORY_NAMES.get(q.category, str(q.category))
            probes.append(Probe(f"{conv.sample_id}/{n}", after, q.question, (gold,), (), gold, q.gold, name, True))
        cases.append(Case(conv.sample_id, f"locomo-{conv.sample_id}", "locomo", tuple(chunks), tuple(probes)))
    return cases


def _last_session(evidence: frozenset[str], where: dict[int, int]) -> int | None:
    """The chunk index of the latest session among ``evidence``; None when any of it was cut off."""
    numbers = [int(m.group(1)) for m in (_SESSION.match(e) for e in evidence) if m]
    if not numbers or any(n not in where for n in numbers):
        return None
    return max(where[n] for n in numbers)


def longmemeval_cases(path: Path | str, sessions: int | None = None) -> list[Case]:
    """LongMemEval: one case per distinct haystack; abstention questions are left out (no value to find)."""
    from memscribe.bench.longmemeval import gold_answer, load_longmemeval

    haystacks: dict[tuple[str, ...], list[Probe]] = {}
    first: dict[tuple[str, ...], Sequence[object]] = {}
    for q in load_longmemeval(path):
        key = tuple(s.session_id for s in q.sessions)
        first.setdefault(key, q.sessions)
        order = {s.session_id: i for i, s in enumerate(q.sessions[:sessions] if sessions else q.sessions)}
        gold = gold_answer(q.answer)
        spots = [order.get(sid) for sid in q.answer_sessions]
        if q.abstention or gold is None or not spots or None in spots:
            continue
        after = max(i for i in spots if i is not None)
        probe = Probe(q.question_id, after, q.question, (gold,), (), q.answer, q.evidence_turns, q.question_type, True)
        haystacks.setdefault(key, []).append(probe)
    return [_haystack_case(n, first[key], probes, sessions) for n, (key, probes) in enumerate(haystacks.items())]


def _haystack_case(n: int, raw: Sequence[object], probes: list[Probe], sessions: int | None) -> Case:
    chunks = []
    for s in list(raw)[:sessions] if sessions else raw:
        sid, when, turns = s.session_id, s.timestamp, s.turns  # type: ignore[attr-defined]
        messages = tuple({"role": role, "content": text} for role, text, _ in turns)
        chunks.append(Chunk(when or _EPOCH, messages, tuple(f"{sid}#{i}" for i in range(len(turns)))))
    return Case(f"lme-{n}", f"lme-{n}", "longmemeval", tuple(chunks), tuple(probes))


def updates_cases(count: int = 30, seed: int = 7) -> list[Case]:
    """The generated update scenarios, with the gold operations of every chunk."""
    from memscribe.bench.scenarios import generate_scenarios

    cases = []
    for s in generate_scenarios(count, seed):
        chunks, probes = [], []
        for i, chunk in enumerate(s.chunks):
            messages = tuple(chunk.messages())
            ids = tuple(f"{i}:{j}" for j in range(len(messages)))
            chunks.append(Chunk(chunk.timestamp, messages, ids, tuple(chunk.expected_ops())))
            for n, p in enumerate(chunk.probes):
                probe_id = f"{s.scenario_id}/{i}.{n}"
                probes.append(Probe(probe_id, i, p.question, p.current, p.stale, _first(p.current), family=s.family))
        cases.append(Case(s.scenario_id, s.user_id, s.family, tuple(chunks), tuple(probes), s.final_facts))
    return cases


DATASETS = ("natural", "locomo", "longmemeval", "updates")


def load_dataset(spec: str) -> Dataset:
    """``natural:PATH[:N]``, ``locomo:PATH[:CONVERSATIONS[:SESSIONS]]``, ``longmemeval:PATH[:SESSIONS]`` or
    ``updates[:N[:SEED]]``; a bad spec or file is an :class:`InvalidInput` naming it."""
    name, _, rest = spec.partition(":")
    parts = rest.split(":") if rest else []
    try:
        if name == "updates":
            count, seed = (_int(parts, 0) or 30), (_int(parts, 1) or 7)
            return Dataset("updates", f"updates:{count}:{seed}", tuple(updates_cases(count, seed)))
        if name not in DATASETS or not parts:
            raise InvalidInput(f"dataset {spec!r}: expected natural:PATH[:N], locomo:PATH[:C[:S]], "
                               "longmemeval:PATH[:S] or updates[:N[:SEED]]")  # fmt: skip
        path = Path(parts[0])
        if not path.is_file():
            raise InvalidInput(f"dataset {spec!r}: no file {path}")
        if name == "natural":
            cases = natural_cases(path, _int(parts, 1))
        elif name == "locomo":
            cases = locomo_cases(path, _int(parts, 1) or 1, _int(parts, 2))
        else:
            cases = longmemeval_cases(path, _int(parts, 1))
    except InvalidInput:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(f"dataset {spec!r}: {exc}") from exc
    return Dataset(name, spec, tuple(cases))


def _int(parts: Sequence[str], index: int) -> int | None:
    if index >= len(parts) or not parts[index]:
        return None
    if not parts[index].isdigit():
        raise InvalidInput(f"expected a number, got {parts[index]!r}")
    return int(parts[index])
