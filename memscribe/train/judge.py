"""A step-level teacher judge: a chat model scores each operation a student proposed, as a reward term.

The judge reads text, not logits, so teacher and student need not share a tokenizer: any chat model behind
the provider port (e.g. ``OpenAICompatChat`` on an OpenAI-compatible endpoint) can judge. It gets the
student's request (the conversation and memories the writer was shown) and the proposed operations, numbered,
and answers ``{"scores": [{"index": n, "score": 0..1, "why": "..."}]}`` with one score per operation.

A judge that fails (the endpoint errors, the answer does not parse, or it scores other operations than were
proposed) gives no score: :class:`Judgement` records the error and :class:`~memscribe.train.stages.EnvReward`
leaves the term out of that rollout's total (and counts it), instead of scoring the write as zero.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memscribe.errors import MemscribeError
from memscribe.providers.chat import ChatModel

__all__ = ["JUDGE_PROMPT", "JUDGE_PROMPT_VERSION", "JUDGE_SCHEMA", "Judgement", "StepJudge"]

JUDGE_PROMPT_VERSION = "step-judge/1"
JUDGE_PROMPT = """You review the operations a memory writer proposed for one conversation chunk.
Memories must hold durable facts about the people in the conversation: an ADD for a new fact, an UPDATE or
SUPERSEDE when a fact changed, a DELETE when the user asked to forget, NOOP (or NONE) when nothing changed.
Questions, small talk and duplicates of stored memories should not be stored; a fact still true must not be lost.

The writer was shown:
<request>
{request}
</request>

It proposed these operations:
{operations}

Score every operation from 0 (wrong or harmful) to 1 (exactly right), with a short reason.
Answer with only JSON: {{"scores": [{{"index": 1, "score": 0.5, "why": "..."}}, ...]}}, one entry per operation."""

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "scores": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "index": {"type": "integer"},
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                    "why": {"type": "string"},
                },
                "required": ["index", "score"],
            },
        }
    },
    "required": ["scores"],
}


@dataclass(frozen=True)
class Judgement:
    """One rollout's judgement: a score per operation and their mean, or the error that left it unscored."""

    scores: tuple[float, ...] = ()
    error: str | None = None
    version: str = JUDGE_PROMPT_VERSION

    @property
    def score(self) -> float | None:
        """The mean operation score; 1 for an answer with no operations; None when the judge failed."""
        if self.error is not None:
            return None
        return sum(self.scores) / len(self.scores) if self.scores else 1.0


class StepJudge:
    """Scores each proposed operation with ``chat``; ``max_tokens`` bounds the judge's answer."""

    def __init__(self, chat: ChatModel, *, max_tokens: int = 1024) -> None:
        self.chat = chat
        self.max_tokens = max_tokens
        self.failures = 0

    def prompt(self, request: Sequence[Mapping[str, Any]], operations: Sequence[Mapping[str, Any]]) -> str:
        """The judge's prompt (:data:`JUDGE_PROMPT`, version :data:`JUDGE_PROMPT_VERSION`)."""
        shown = "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in request)
        numbered = "\n".join(f"{n}. {json.dumps(dict(op), ensure_ascii=False)}" for n, op in enumerate(operations, 1))
        return JUDGE_PROMPT.format(request=shown, operations=numbered or "(none)")

    def judge(self, request: Sequence[Mapping[str, Any]], operations: Sequence[Mapping[str, Any]] | None) -> Judgement:
        """The judgement of ``operations`` (None: the answer did not parse, which the format term already
        charges, so the judge is not asked and the score is 0)."""
        if operations is None:
            return Judgement(scores=(0.0,))
        if not operations:
            return Judgement()
        messages = [{"role": "user", "content": self.prompt(request, operations)}]
        try:
            result = self.chat.complete(messages, schema=JUDGE_SCHEMA, max_tokens=self.max_tokens)
            return Judgement(scores=_scores(result.parsed, len(operations)))
        except (MemscribeError, OSError, ValueError) as error:
            self.failures += 1
            return Judgement(error=f"{type(error).__name__}: {error}"[:300])


def _scores(value: Any, count: int) -> tuple[float, ...]:
    """One score per operation, in order; a missing, repeated or unknown index is a ValueError."""
    items = value.get("scores") if isinstance(value, dict) else None
    if not isinstance(items, list):
        raise ValueError("the judge's answer has no scores list")
    by_index = {int(i["index"]): float(i["score"]) for i in items if isinstance(i, dict)}
    if sorted(by_index) != list(range(1, count + 1)) or len(items) != count:
        raise ValueError(f"the judge scored operations {sorted(by_index)}, not 1..{count}")
    return tuple(min(1.0, max(0.0, by_index[n])) for n in range(1, count + 1))
