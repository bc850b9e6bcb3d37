"""Other frameworks' writer protocols as Writers, so the benchmark can compare protocols, not plumbing.

* :class:`Mem0Protocol` (``mem0-protocol``): extract facts, then ADD / UPDATE / DELETE / NONE against the
  retrieved memories; two calls whenever facts were found. No subject, owner or time: an UPDATE carries
  the target's subject and owner, and nothing is ever superseded.
* :class:`HyMemoryProtocol` (``hy-protocol``): extract third-person memories with owner and subject, then
  ADD / UPDATE / SUPERSEDE with reasons against the chain heads; the second call is skipped when nothing
  was retrieved, as the reference system does.

Both reuse the pro writer's exchange driver, repair round, aliases and invariant checks, so only the
protocol differs. Prompts are in :mod:`memscribe.write.prompts.mem0_en` and :mod:`~.hy_en`.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, MemoryDraft, MemoryRecord, Operation, OpKind, Owner
from memscribe.core.redact import redact
from memscribe.providers.chat import ChatModel
from memscribe.write.llm.decode import ProposedOps, Rejection, check_invariants
from memscribe.write.llm.driver import Exchange, UsageMeter, WriterStats, adrive, ask_json, drive, spread
from memscribe.write.llm.render import iso_time
from memscribe.write.ports import CandidateSource, WriteContext
from memscribe.write.prompts import hy_en, mem0_en

__all__ = ["HyMemoryProtocol", "Mem0Protocol"]

_REPAIR = "Your last answer could not be used: {error}\nAnswer again with only valid JSON that follows the schema."


class _TwoStep(abc.ABC):
    """What both protocols share: the sync/async entry points, stats and the decoding helpers."""

    name = "protocol"
    version = "1"
    prompt_version = ""

    def __init__(self, chat: ChatModel, *, per_fact: int = 5, max_candidates: int = 20, max_tokens: int = 2048) -> None:
        self.chat = chat
        self.per_fact = per_fact
        self.max_candidates = max_candidates
        self.max_tokens = max_tokens
        self.stats = WriterStats()

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> ProposedOps:
        """Operations for ``episode`` under this protocol."""
        result = drive(self.chat, self._run(episode, candidates))
        self.stats.count(episodes=1)
        return result

    async def apropose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> ProposedOps:
        """The async form of :meth:`propose`."""
        result = await adrive(self.chat, self._run(episode, candidates))
        self.stats.count(episodes=1)
        return result

    def _run(self, episode: Episode, candidates: CandidateSource) -> Exchange[ProposedOps]:
        meter = UsageMeter()
        out = ProposedOps()
        yield from self.exchange(episode, candidates, meter, out)
        usage = meter.usage(self.prompt_version)
        for i, share in enumerate(spread(usage, len(out))):
            out[i] = replace(out[i], usage=share)
        out.usage, out.chunks = usage, 1
        self.stats.add(meter, chunks=1, operations=len(out), rejections=len(out.rejections))
        return out

    @abc.abstractmethod
    def exchange(
        self, episode: Episode, candidates: CandidateSource, meter: UsageMeter, out: ProposedOps
    ) -> Exchange[None]:
        """The protocol's steps: yield requests, append operations (and rejections) to ``out``."""

    def _ask(self, prompt: str, schema: Mapping[str, Any], meter: UsageMeter) -> Exchange[Any]:
        messages = [{"role": "user", "content": prompt}]
        return ask_json(messages, schema, meter, repair=_REPAIR, max_tokens=self.max_tokens)

    def _retrieve(self, source: CandidateSource, texts: Sequence[str]) -> list[MemoryRecord]:
        chosen: dict[str, MemoryRecord] = {}
        for text in texts:
            for record in source.similar(text, limit=self.per_fact):
                if len(chosen) < self.max_candidates:
                    chosen.setdefault(record.id, record)
        return list(chosen.values())

    def _emit(self, out: ProposedOps, op: Operation, target: MemoryRecord | None, episode: Episode) -> None:
        why = check_invariants(op.kind, op.draft, target, episode.timestamp)
        if why is not None:  # forwarded: the engine's plan journals it as rejected
            out.rejections.append(Rejection(op.kind.value, why, op.reason, None, True, 0, op))
        out.append(op)


def _conversation(episode: Episode) -> str:
    return "\n".join(
        f"{m.name or m.role}: {m.content}" for m in episode.messages if m.role in ("user", "assistant") and m.content
    )


def _indices(episode: Episode) -> tuple[int, ...]:
    return tuple(i for i, m in enumerate(episode.messages) if m.role in ("user", "assistant") and m.content)


def _refuse(out: ProposedOps, kind: str, why: str, reason: str, alias: object) -> None:
    number = alias if isinstance(alias, int) else None
    out.rejections.append(Rejection(kind, why, reason, number, False, 0, Operation(OpKind(kind), reason)))


class Mem0Protocol(_TwoStep):
    """mem0's protocol: facts, then ADD / UPDATE / DELETE / NONE (mapped to NOOP)."""

    name = "mem0-protocol"
    prompt_version = mem0_en.PROMPT_VERSION

    def exchange(
        self, episode: Episode, candidates: CandidateSource, meter: UsageMeter, out: ProposedOps
    ) -> Exchange[None]:
        today = episode.timestamp.date().isoformat()
        prompt = mem0_en.EXTRACT.format(today=today, conversation=_conversation(episode))
        facts = [f for f in (yield from self._ask(prompt, mem0_en.EXTRACT_SCHEMA, meter))["facts"] if f.strip()]
        if not facts:
            return
        records = self._retrieve(candidates, facts)
        lines = (json.dumps({"id": n, "text": r.text}, ensure_ascii=False) for n, r in enumerate(records, 1))
        memories = "\n".join(lines)
        prompt = mem0_en.RECONCILE.format(memories=memories or "(none)", facts=json.dumps(facts, ensure_ascii=False))
        answer = yield from self._ask(prompt, mem0_en.RECONCILE_SCHEMA, meter)
        ids = tuple(r.id for r in records)
        for item in answer["memory"]:
            event, alias, text = str(item["event"]), item.get("id"), str(item.get("text") or "")
            if event == "ADD":
                new = MemoryDraft(redact(text)[0], message_indices=_indices(episode), valid_from=episode.timestamp)
                self._emit(out, Operation(OpKind.ADD, "mem0: new fact", new, None, ids), None, episode)
                continue
            target = records[alias - 1] if isinstance(alias, int) and 0 < alias <= len(records) else None
            if target is None:
                kind_name = "NOOP" if event == "NONE" else event
                _refuse(out, kind_name, f"unknown memory id {alias}", f"mem0: {event}", alias)
                continue
            kind = {"UPDATE": OpKind.UPDATE, "DELETE": OpKind.DELETE, "NONE": OpKind.NOOP}[event]
            draft: MemoryDraft | None = None
            if kind is OpKind.UPDATE:  # the protocol knows no subject or owner: the target's carry over
                draft = MemoryDraft(
                    redact(text)[0], target.subject, target.slot, None, target.owner, message_indices=_indices(episode)
                )
            self._emit(out, Operation(kind, f"mem0: {event}", draft, target.id, ids), target, episode)


class HyMemoryProtocol(_TwoStep):
    """The reference system's protocol: extract, then ADD / UPDATE / SUPERSEDE with reasons."""

    name = "hy-protocol"
    prompt_version = hy_en.PROMPT_VERSION

    def exchange(
        self, episode: Episode, candidates: CandidateSource, meter: UsageMeter, out: ProposedOps
    ) -> Exchange[None]:
        today = episode.timestamp.date().isoformat()
        prompt = hy_en.EXTRACT.format(today=today, conversation=_conversation(episode))
        extracted = [m for m in (yield from self._ask(prompt, hy_en.EXTRACT_SCHEMA, meter))["memory"] if m["content"]]
        records = self._retrieve(candidates, [m["content"] for m in extracted])
        if not records:  # nothing to reconcile against: every memory is an ADD, without a second call
            for item in extracted:
                op = Operation(OpKind.ADD, "hy: new memory", self._draft(item, episode, None))
                self._emit(out, op, None, episode)
            return
        heads = [
            {"memory_id": n, "content": r.text, "owner": r.owner.value, "memory_at": iso_time(r.valid_from)}
            for n, r in enumerate(records, 1)
        ]
        prompt = hy_en.RECONCILE.format(
            today=today,
            memories="\n".join(json.dumps(h, ensure_ascii=False) for h in heads),
            new=json.dumps(extracted, ensure_ascii=False),
        )
        answer = yield from self._ask(prompt, hy_en.RECONCILE_SCHEMA, meter)
        ids = tuple(r.id for r in records)
        for item in answer["operations"]:
            kind, alias = OpKind(str(item["op"])), item.get("memory_id")
            reason = str(item.get("supersede_reason") or item.get("reason") or f"hy: {kind}")
            target = records[alias - 1] if isinstance(alias, int) and 0 < alias <= len(records) else None
            if kind is OpKind.ADD:
                target = None
            elif target is None:
                _refuse(out, kind.value, f"unknown memory id {alias}", reason, alias)
                continue
            change = Operation(kind, reason, self._draft(item, episode, target), target.id if target else None, ids)
            self._emit(out, change, target, episode)

    @staticmethod
    def _draft(item: Mapping[str, Any], episode: Episode, target: MemoryRecord | None) -> MemoryDraft:
        owner = item.get("owner") or (target.owner.value if target else "user")
        subject = str(item.get("subject") or (target.subject if target else "user")).strip().lower()
        return MemoryDraft(
            redact(str(item.get("content") or ""))[0],
            subject,
            owner=Owner(owner),
            tags=tuple(str(t) for t in item.get("tags") or ()),
            message_indices=_indices(episode),
            valid_from=episode.timestamp,
        )
