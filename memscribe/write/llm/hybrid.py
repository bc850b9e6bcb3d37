"""The ``hybrid`` writer: the lite rules write, a model only labels what the rules could not settle.

The lite writer extracts statements, resolves dates and reconciles slot facts by rules. What it cannot
settle is a new statement (an ADD) next to a stored memory about the same person that no slot rule ties
to it: "my new manager at Stripe is great" beside "Omar works at Shopify". For those pairs, and only
those, one call per episode asks the model for a label — ``same``, ``update``, ``correction`` or
``unrelated`` — and code turns the labels into operations: NOOP, SUPERSEDE, UPDATE, or the ADD unchanged.
The model writes no text, ids or dates, and a label is taken only when it checks out: ``same`` when the
statement has no word the memory lacks, a change when the new value the model copies is in the statement,
not in the old memory, the statement does not repeat the old value, and both name a common topic. So a
weak model can at worst leave lite's decision in place.
An episode with nothing to ask costs no call at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, MemoryDraft, MemoryRecord, Operation, OpKind, Status, Usage
from memscribe.errors import ModelOutputError
from memscribe.providers.chat import ChatModel
from memscribe.write.llm.decode import ProposedOps, Rejection
from memscribe.write.llm.driver import Exchange, RepairBudget, UsageMeter, WriterStats, adrive, ask_json, drive, spread
from memscribe.write.llm.grounded import grounded_in, replaceable, same_topic
from memscribe.write.llm.render import iso_time
from memscribe.write.ports import CandidateSource, WriteContext, Writer
from memscribe.write.prompts import relation_en

__all__ = ["HybridWriter", "Pair", "apply_labels", "find_pairs"]


@dataclass(frozen=True)
class Pair:
    """One question for the model: lite's operation at ``index`` (an ADD) beside a stored memory."""

    index: int
    memory: MemoryRecord


def _open_question(op: Operation, memory: MemoryRecord) -> bool:
    """Whether the rules left this pair open: the same person, a stored slot fact the new statement carries
    no slot for (so no rule relates them), and the statement is not older."""
    draft = op.draft
    assert draft is not None
    if not memory.is_current or memory.status is not Status.ACTIVE:
        return False
    if memory.subject.casefold() != draft.subject.casefold() or memory.owner != draft.owner:
        return False  # a fact about one person never replaces another's
    if memory.slot and draft.slot:
        return False  # both slotted: the rules already judged them (one value replaced, or values that add up)
    if not replaceable(memory.slot):
        # A memory with several values (hobbies, pets) gains a new one rather than losing the old one, and
        # two free-form statements are nearly always both true; a small model labels too many of them
        # "update" (measured: docs/benchmarks.md), so only a stored one-attribute fact is put in question.
        return False
    return (draft.valid_from or memory.valid_from) >= memory.valid_from


def find_pairs(ops: Sequence[Operation], candidates: CandidateSource, *, per_statement: int, limit: int) -> list[Pair]:
    """The pairs to ask about, at most ``per_statement`` per ADD and ``limit`` in all, in operation order."""
    touched = {op.target for op in ops if op.target}
    pairs: list[Pair] = []
    for index, op in enumerate(ops):
        if op.kind is not OpKind.ADD or op.target is not None or op.draft is None:
            continue
        found = 0
        for memory in candidates.similar(op.draft.text, limit=per_statement * 2):
            if len(pairs) >= limit:
                return pairs
            if found < per_statement and memory.id not in touched and _open_question(op, memory):
                pairs.append(Pair(index, memory))
                found += 1
    return pairs


def render_pairs(episode: Episode, ops: Sequence[Operation], pairs: Sequence[Pair]) -> list[dict[str, str]]:
    lines = [f"Today: {iso_time(episode.timestamp)[:10]}"]
    for number, pair in enumerate(pairs, start=1):
        draft = ops[pair.index].draft
        assert draft is not None
        new = json.dumps(draft.text, ensure_ascii=False)
        old = json.dumps(pair.memory.text, ensure_ascii=False)
        lines.append(f"{number}. NEW: {new} | OLD: {old}")
    return [{"role": "system", "content": relation_en.SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


_WORD = re.compile(r"\w{3,}", re.UNICODE)
Label = tuple[str, str | None]  # a pair's label and, for a change, the new value the model copied from NEW


def _says_nothing_new(text: str, memory: MemoryRecord) -> bool:
    """Whether every word of ``text`` is already in the memory: only then is a "same" label taken."""
    held = set(_WORD.findall(memory.text.casefold()))
    return all(word in held for word in _WORD.findall(text.casefold()))


def _checked_change(draft: MemoryDraft, memory: MemoryRecord, value: str | None) -> bool:
    """Whether a change label holds up: the new value is in the new statement, the old memory does not hold
    it, and the statement does not repeat the old value (then both are true, or the rules saw it)."""
    return (replaceable(memory.slot) and grounded_in(value, draft.text) and not grounded_in(value, memory.text)
            and not grounded_in(memory.value, draft.text) and same_topic(draft.text, memory.text))  # fmt: skip


def apply_labels(
    ops: Sequence[Operation], pairs: Sequence[Pair], labels: Mapping[int, str | Label]
) -> list[Operation]:
    """Lite's operations with each asked-about ADD turned into what its labels say, where the label checks
    out against the texts (first decisive one wins; ``same`` beats a change, so a restated fact is
    confirmed rather than rewritten). A label that does not check out leaves lite's ADD as it was."""
    out = list(ops)
    by_op: dict[int, list[tuple[str, str | None, MemoryRecord]]] = {}
    for number, pair in enumerate(pairs, start=1):
        raw = labels.get(number, "unrelated")
        label, value = (raw, None) if isinstance(raw, str) else raw
        by_op.setdefault(pair.index, []).append((label, value, pair.memory))
    for index, judged in by_op.items():
        op = out[index]
        assert op.draft is not None
        draft = op.draft
        same = [m for label, _, m in judged if label == "same" and _says_nothing_new(draft.text, m)]
        if same:
            out[index] = Operation(OpKind.NOOP, f"{op.reason}; already stored (model: same)", None, same[0].id,
                                   op.candidates, op.usage)  # fmt: skip
            continue
        change = next(((label, value, m) for label, value, m in judged
                       if label in ("update", "correction") and _checked_change(draft, m, value)), None)  # fmt: skip
        if change is None:
            continue
        label, value, memory = change
        kind = OpKind.SUPERSEDE if label == "update" else OpKind.UPDATE
        new = replace(draft, slot=memory.slot, value=value)
        out[index] = replace(op, kind=kind, target=memory.id, draft=new,
                             reason=f"{op.reason}; model: {label} of the stored fact")  # fmt: skip
    return out


class HybridWriter:
    """Lite rules plus one labelling call per episode for the pairs the rules left open. Implements Writer."""

    name = "hybrid"
    version = "4"

    def __init__(
        self,
        chat: ChatModel,
        *,
        lite: Writer | None = None,
        per_statement: int = 2,
        max_pairs: int = 8,
        max_tokens: int = 200,
        repair: RepairBudget | None = None,
    ) -> None:
        from memscribe.write.lite import LiteWriter

        self.chat = chat
        self.lite: Writer = lite or LiteWriter()
        self.per_statement = per_statement
        self.max_pairs = max_pairs
        self.max_tokens = max_tokens
        self.repair = repair or RepairBudget(max_tokens=max_tokens * 2)
        self.stats = WriterStats()

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> ProposedOps:
        """Lite's operations, relabelled where the model settles an open pair; provider errors propagate."""
        ops = self.lite.propose(episode, candidates, context, clock)
        return self._counted(drive, ops, episode, candidates)

    async def apropose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> ProposedOps:
        """The async form of :meth:`propose`; the rules run inline (they make no I/O but the store's reads)."""
        ops = self.lite.propose(episode, candidates, context, clock)
        try:
            result = await adrive(self.chat, self.exchange(ops, episode, candidates))
        except Exception:
            self.stats.count(failures=1)
            raise
        self.stats.count(episodes=1)
        return result

    def _counted(self, run: Any, ops: list[Operation], episode: Episode, candidates: CandidateSource) -> ProposedOps:
        try:
            result: ProposedOps = run(self.chat, self.exchange(ops, episode, candidates))
        except Exception:
            self.stats.count(failures=1)
            raise
        self.stats.count(episodes=1)
        return result

    def exchange(self, ops: list[Operation], episode: Episode, candidates: CandidateSource) -> Exchange[ProposedOps]:
        """At most one labelling call; bad output leaves lite's operations as they were, with the reason."""
        out = ProposedOps()
        out.rejections.extend(getattr(ops, "rejections", ()))
        pairs = find_pairs(ops, candidates, per_statement=self.per_statement, limit=self.max_pairs)
        if not pairs:
            out.extend(ops)
            if not ops:
                why = "the rules found nothing worth keeping in this episode"
                out.rejections.append(Rejection("NOOP", why, why, None, False, 0, Operation(OpKind.NOOP, why)))
            return out
        meter = UsageMeter()
        schema = relation_en.relation_schema(len(pairs))
        try:
            messages = render_pairs(episode, ops, pairs)
            answer = yield from ask_json(
                messages, schema, meter, repair=relation_en.REPAIR, max_tokens=self.max_tokens, bounds=self.repair
            )
            labels = {int(item["n"]): (str(item["label"]), _text(item.get("value"))) for item in answer["labels"]}
            final = apply_labels(ops, pairs, labels)
        except ModelOutputError as error:
            why = f"the model's labels were unusable, lite's operations kept: {error}"
            out.rejections.append(Rejection("NOOP", why, why, None, False, 0, Operation(OpKind.NOOP, why)))
            final = list(ops)
        usage = meter.usage(relation_en.PROMPT_VERSION)
        out.extend(_charged(final, usage))
        out.usage = usage
        out.chunks = 1
        self.stats.add(meter, chunks=1, operations=len(final))
        return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _charged(ops: list[Operation], usage: Usage) -> list[Operation]:
    """The call's cost spread over the episode's operations, so journal sums equal the real cost."""
    shares = spread(usage, len(ops))
    return [replace(op, usage=replace(share, latency_ms=share.latency_ms + op.usage.latency_ms))
            for op, share in zip(ops, shares, strict=True)]  # fmt: skip
