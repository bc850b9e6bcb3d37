"""The answerer and the strict judge: prompts written for this benchmark and versioned like every prompt.

The answerer sees only the memories a protocol retrieved and answers the probe's question. The judge sees
the question, the gold answer, the values that are no longer true, and the answer, and votes three times
(temperatures 0, 0.7, 0.7); a probe is correct when at least two votes say CORRECT. Stating a stale value
as current, hedging between values, or answering a forget probe with the forgotten value is WRONG. A model
error is raised to the caller, which records it per case: it is never counted as a wrong answer.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memscribe.bench.writers.cases import Probe
from memscribe.providers.chat import ChatModel

__all__ = [
    "ANSWER_PROMPT_VERSION",
    "JUDGE_PROMPT_VERSION",
    "VOTES",
    "Verdict",
    "answer_probe",
    "bootstrap_ci",
    "judge_answer",
]

ANSWER_PROMPT_VERSION = "writers-answer-1"
JUDGE_PROMPT_VERSION = "writers-judge-1"
VOTES = (0.0, 0.7, 0.7)  # one temperature per vote
ANSWER_MARK = "[memscribe-answerer]"
JUDGE_MARK = "[memscribe-judge]"
MEMORIES_HEADER = "Memories:\n"
QUESTION_HEADER = "\n\nQuestion:"
CASE_HEADER = "Case:\n"
NO_MEMORIES = "(none)"

ANSWER = ANSWER_MARK + """ Answer the question about the user from these memories only. Give the current \
value in a few words. If the memories do not say, answer "I don't know".
Answer as JSON: {{"answer": "..."}}

""" + MEMORIES_HEADER + "{memories}" + QUESTION_HEADER + " {question}"

JUDGE = JUDGE_MARK + """ You grade an answer strictly. CORRECT only if the answer states the gold answer \
(or an equivalent wording, date or number) as the current value. WRONG if it states a value from "stale" \
as current, hedges between values, adds a contradicting value, or misses the gold answer. When "gold" is \
empty the user asked to forget: CORRECT only if the answer states no value from "stale".
Answer as JSON: {{"verdict": "CORRECT" | "WRONG", "reason": "..."}}

""" + CASE_HEADER + "{case}"

ANSWER_SCHEMA: dict[str, Any] = {
    "title": "answer",
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
JUDGE_SCHEMA: dict[str, Any] = {
    "title": "verdict",
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["CORRECT", "WRONG"]}, "reason": {"type": "string"}},
    "required": ["verdict"],
}


@dataclass(frozen=True)
class Verdict:
    answer: str
    votes: tuple[bool, ...]

    @property
    def correct(self) -> bool:
        return sum(self.votes) * 2 > len(self.votes)


def answer_probe(chat: ChatModel, probe: Probe, texts: Sequence[str]) -> str:
    """The answerer's reply to ``probe`` from the retrieved memory texts (best first)."""
    lines = "\n".join(f"{n}. {t}" for n, t in enumerate(texts, 1)) or NO_MEMORIES
    prompt = ANSWER.format(memories=lines, question=probe.query)
    result = chat.complete([{"role": "user", "content": prompt}], schema=ANSWER_SCHEMA, max_tokens=96)
    parsed = result.parsed if isinstance(result.parsed, dict) else {}
    return str(parsed.get("answer", result.text)).strip()


def judge_answer(chat: ChatModel, probe: Probe, answer: str) -> Verdict:
    """Three strict votes on ``answer`` against the probe's gold and stale values."""
    gold = "" if probe.forget else (probe.answer or probe.expect_any[0])
    case = json.dumps({"question": probe.query, "gold": gold, "stale": list(probe.stale), "answer": answer},
                      ensure_ascii=False)  # fmt: skip
    prompt = JUDGE.format(case=case)
    votes = []
    for temperature in VOTES:
        result = chat.complete([{"role": "user", "content": prompt}], schema=JUDGE_SCHEMA, temperature=temperature,
                               max_tokens=64)  # fmt: skip
        parsed = result.parsed if isinstance(result.parsed, dict) else {}
        votes.append(str(parsed.get("verdict", "")).upper() == "CORRECT")
    return Verdict(answer, tuple(votes))


def bootstrap_ci(outcomes: Sequence[bool], seed: int, resamples: int = 1000) -> tuple[float, float] | None:
    """A 95 % percentile bootstrap interval of the mean of ``outcomes`` (seeded: the same input gives the
    same interval); ``None`` when there is nothing to resample."""
    if not outcomes:
        return None
    rng = random.Random(seed)
    n = len(outcomes)
    values = [float(v) for v in outcomes]
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(resamples))
    return round(means[int(0.025 * resamples)], 4), round(means[int(0.975 * resamples) - 1], 4)
