"""The ``pro`` writer: extraction and reconciliation in one structured model call per episode chunk.

Per chunk: the lite rules read the messages (statements, obvious slots, resolved dates); candidates are
pre-retrieved and shown under integer aliases; one call returns every operation, each with a reason and
with the related changes it implies; the answer is validated, repaired once if unusable, and decoded with
the engine's invariants checked (see :mod:`memscribe.write.llm.decode`). The prompt is chosen by the
chunk's language and its version is recorded in every operation's ``Usage``.

``propose`` and ``apropose`` run the same exchange (:mod:`memscribe.write.llm.driver`); only the model
call differs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from memscribe.core.clock import Clock, SystemClock
from memscribe.core.records import Episode, Operation, OpKind, Usage
from memscribe.errors import ConfigError, ModelOutputError
from memscribe.providers.chat import ChatModel
from memscribe.write.llm.aliases import AliasBook, gather_candidates
from memscribe.write.llm.chunks import Chunk, split_episode
from memscribe.write.llm.decode import Decoder, ProposedOps, flatten
from memscribe.write.llm.driver import (
    Exchange,
    RepairBudget,
    UsageMeter,
    WriterStats,
    adrive,
    ask_json,
    drive,
    spread,
)
from memscribe.write.llm.fallback import LiteFallback
from memscribe.write.llm.grounded import Grounding, changeable, covers
from memscribe.write.llm.render import PROMPT_STYLES, pro_prompt, render_request
from memscribe.write.ports import CandidateSource, WriteContext
from memscribe.write.prompts.pro_schema import PRO_SCHEMA

__all__ = ["ProWriter"]

log = logging.getLogger(__name__)


class ProWriter:
    """LLM writer: one call per chunk of ≤ ``max_messages`` messages (≈ ``max_chunk_tokens`` tokens).

    ``language`` pins the prompt ("en" / "zh"); by default each chunk picks by its CJK ratio.
    ``prompt="compact"`` uses the short prompt for small local models (English chunks).
    ``stats`` holds running totals (calls, tokens, repairs, rejections) for benchmarks. ``repair`` bounds
    the one repair round in tokens and time. Unusable output, or a chunk whose every proposal is refused,
    falls back to the lite rules for that chunk (``fallback=False`` turns that off, leaving only the reasons);
    only provider (transport) errors leave the episode pending.

    ``lossless`` (the default, with ``fallback``): the lite rules' operations are the base of every chunk
    and the model's operations are applied on top only where they check out against the messages and the
    stored memories (:mod:`memscribe.write.llm.grounded`), so a weak model cannot make memory worse than
    the rules. Only memories such an operation could act on are shown, and a chunk with none of them whose
    messages the rules all kept costs no call (``always_ask=True`` asks anyway). ``lossless=False`` applies
    the model's decoded operations as they are.
    """

    name = "pro"
    version = "1"

    def __init__(
        self,
        chat: ChatModel,
        *,
        max_messages: int = 20,
        max_chunk_tokens: int = 3000,
        max_candidates: int = 20,
        per_query: int = 4,
        max_pending: int = 10,
        max_tokens: int | None = 1024,
        language: str | None = None,
        repair: RepairBudget | None = None,
        fallback: bool = True,
        prompt: str = "full",
        lossless: bool = True,
        always_ask: bool = False,
    ) -> None:
        self.chat = chat
        self.max_messages = max_messages
        self.max_chunk_tokens = max_chunk_tokens
        self.max_candidates = max_candidates
        self.per_query = per_query
        self.max_pending = max_pending
        self.max_tokens = max_tokens
        self.language = language
        self.repair = repair or RepairBudget()
        self.fallback = fallback
        self.lossless = lossless and fallback
        self.always_ask = always_ask
        if prompt not in PROMPT_STYLES:
            raise ConfigError(f"unknown pro prompt style {prompt!r}; known: {', '.join(PROMPT_STYLES)}")
        self.prompt = prompt
        self.stats = WriterStats()

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> ProposedOps:
        """Operations for ``episode``; raises ModelOutputError or the provider's error (episode stays pending)."""
        return self._counted(lambda: drive(self.chat, self.exchange(episode, candidates, clock)))

    async def apropose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> ProposedOps:
        """The async form of :meth:`propose`: the same exchange, with awaited model calls."""
        try:
            result = await adrive(self.chat, self.exchange(episode, candidates, clock))
        except Exception:
            self.stats.count(failures=1)
            raise
        self.stats.count(episodes=1)
        return result

    def _counted(self, run: Callable[[], ProposedOps]) -> ProposedOps:
        try:
            result = run()
        except Exception:
            self.stats.count(failures=1)
            raise
        self.stats.count(episodes=1)
        return result

    def exchange(
        self, episode: Episode, candidates: CandidateSource, clock: Clock | None = None
    ) -> Exchange[ProposedOps]:
        """The whole write decision for one episode, as requests to answer (see :func:`drive`)."""
        decoder = Decoder(episode, ProposedOps())
        book = AliasBook()
        total = UsageMeter()
        chunks = split_episode(episode, max_messages=self.max_messages, max_tokens=self.max_chunk_tokens)
        fallback = LiteFallback(episode, candidates, clock or SystemClock(), len(chunks), enabled=self.fallback)
        for number, chunk in enumerate(chunks):
            records = gather_candidates(candidates, chunk, limit=self.max_candidates, per_query=self.per_query)
            base: list[Operation] = []
            if self.lossless:
                base = fallback.for_chunk(chunk.indices, "the lossless base")
                records = changeable(records, bool(chunk.subjects))
            pending = [] if self.lossless else decoder.pending_drafts(self.max_pending)
            shown = book.present(records, pending)
            prompt = pro_prompt(chunk.text(episode), self.language, self.prompt)
            meter = UsageMeter()
            before = len(decoder.out.rejections) - decoder.notes
            if self.lossless and not self.always_ask and not records and covers(base, episode, chunk.indices):
                # Nothing a checked model operation could change or add: the call is skipped.
                added = decoder.adopt(base)
                self.stats.add(meter, chunks=1, operations=len(added), rejections=0)
                continue
            try:
                answer = yield from ask_json(
                    render_request(prompt, episode, chunk, shown),
                    PRO_SCHEMA,
                    meter,
                    repair=prompt.repair,
                    max_tokens=self.max_tokens,
                    bounds=self.repair,
                )
            except ModelOutputError as error:
                # Only transport errors keep the episode pending; bad output falls back to the rules.
                decoder.note(number, OpKind.NOOP, f"the model's output was unusable: {error}")
                added = decoder.adopt(base or fallback.for_chunk(chunk.indices, "the model's output was unusable"))
            else:
                if self.lossless:
                    added = self._ground(decoder, base, answer["operations"], book, chunk, number)
                else:
                    added = self._decode(decoder, fallback, answer["operations"], book, chunk, number)
            self._charge(decoder, added, meter.usage(prompt.version))
            self.stats.add(
                meter, chunks=1, operations=len(added), rejections=len(decoder.out.rejections) - decoder.notes - before
            )
            _merge(total, meter)
            # Counts only: the prompt and the answer may quote memory content, which is never logged at INFO.
            log.debug("pro chunk %d: %d ops, %d calls, %d tokens in", number, len(added), meter.calls, meter.tokens_in)
        result = decoder.finish()
        result.chunks = len(chunks)
        text = " ".join(c.text(episode) for c in chunks)
        result.usage = total.usage(pro_prompt(text, self.language, self.prompt).version)
        return result

    @staticmethod
    def _decode(
        decoder: Decoder,
        fallback: LiteFallback,
        items: list[dict[str, Any]],
        book: AliasBook,
        chunk: Chunk,
        number: int,
    ) -> list[int]:
        """Decode one answer; when it proposes nothing, say so and keep the rules' new facts; when every
        proposal is refused, the rules write the chunk's statements instead, so nothing said is lost."""
        indices = chunk.indices
        before = len(decoder.out.rejections)
        proposed = sum(1 for _ in flatten(items))
        added = decoder.decode(items, book, indices, number, deletes_asked=bool(chunk.subjects))
        if not proposed:
            decoder.note(number, OpKind.NOOP, f"the model proposed no operations for messages {indices}", refusal=False)
            # A weak model's "nothing" is not trusted with what the rules find memorable: their new facts
            # (ADDs only; no edits of stored memories) are kept.
            kept = [op for op in fallback.for_chunk(indices, "the model proposed nothing") if op.kind is OpKind.ADD]
            return [*added, *decoder.adopt(kept)]
        if len(decoder.out.rejections) - before < proposed:
            return added
        # Refused operations stay in the list so the plan journals them; the rules' operations join them.
        why = f"all {proposed} operations the model proposed were refused"
        return [*added, *decoder.adopt(fallback.for_chunk(indices, why))]

    @staticmethod
    def _ground(
        decoder: Decoder,
        base: list[Operation],
        items: list[dict[str, Any]],
        book: AliasBook,
        chunk: Chunk,
        number: int,
    ) -> list[int]:
        """The rules' operations for the chunk, with the model's applied only where they check out
        (see :mod:`memscribe.write.llm.grounded`); every refused operation is reported with why."""
        episode = decoder.episode
        scratch = Decoder(episode, ProposedOps(), closed=set(decoder.closed))
        scratch.decode(items, book, chunk.indices, number, deletes_asked=bool(chunk.subjects))
        proposed = [op for op in scratch.slots if op is not None]
        said = "\n".join(episode.messages[i].content for i in chunk.indices)
        grounding = Grounding(base, said,
                              {r.id: r for r in book.records.values()}, episode.timestamp,
                              bool(chunk.subjects), number)  # fmt: skip
        merged = grounding.merge(proposed, scratch.out.rejections)
        decoder.out.rejections.extend(grounding.rejections)
        if not any(True for _ in flatten(items)):
            decoder.note(number, OpKind.NOOP, f"the model proposed no operations for messages {chunk.indices}",
                         refusal=False)  # fmt: skip
        elif not merged:
            decoder.note(number, OpKind.NOOP, f"nothing kept from messages {chunk.indices}", refusal=False)
        return decoder.adopt(merged)

    @staticmethod
    def _charge(decoder: Decoder, added: list[int], usage: Usage) -> None:
        """Spread one chunk's model cost over the operations it produced."""
        for position, share in zip(added, spread(usage, len(added)), strict=True):
            op = decoder.slots[position]
            if op is not None:
                decoder.slots[position] = replace(op, usage=share)


def _merge(total: UsageMeter, meter: UsageMeter) -> None:
    total.model = meter.model or total.model
    total.calls += meter.calls
    total.tokens_in += meter.tokens_in
    total.tokens_out += meter.tokens_out
    total.latency_ms += meter.latency_ms
    total.repairs += meter.repairs
