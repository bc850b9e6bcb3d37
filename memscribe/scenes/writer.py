"""``SceneWriter``: a Writer that routes each episode to its scene, so the engine needs no other change.

* **chat** → the inner writer (lite, or an LLM writer), shown only chat-scene candidates; its drafts get
  ``scene="chat"`` and intentions their deadline in ``valid_to``; with a chat model and ``summaries=True``,
  long episodes also get an L3 summary (one extra call).
* **working** → one session fact per session and the experience-library decision, by rules.
* **coding** → the same, plus the diff chain: one revision per changed file/symbol, by rules.

Only an ambiguous tool episode costs a model call (the router's); its cost lands on the first operation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Final

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, MemoryRecord, Operation, Usage
from memscribe.providers.chat import ChatModel
from memscribe.scenes.coding import revision_ops
from memscribe.scenes.diffs import edits_from_text, edits_from_uses
from memscribe.scenes.intentions import normalize_intention
from memscribe.scenes.router import SceneDecision, looks_like_patch, route_scene
from memscribe.scenes.summary import summarize_episode
from memscribe.scenes.symbols import changes_from_edits, file_contents, merge_changes
from memscribe.scenes.task import digest_task
from memscribe.scenes.tools import has_tool_activity, tool_uses
from memscribe.scenes.working import experience_ops, session_fact_op
from memscribe.write.ports import (
    CandidateSource,
    SceneScopedCandidates,
    WriteContext,
    Writer,
    writer_likely_texts,
    writer_warm_up,
)

__all__ = ["RULES_VERSION", "SceneCandidates", "SceneWriter"]

RULES_VERSION: Final = "scenes-rules-1"


class SceneCandidates:
    """A CandidateSource that shows only memories of the given scenes (chat rules never judge diffs).

    Searches are filtered in the store when the inner source can (:class:`SceneScopedCandidates`), so other
    scenes' memories take no place in the list; otherwise the list is fetched twice as deep and filtered."""

    def __init__(self, inner: CandidateSource, scenes: Iterable[str]) -> None:
        self.inner = inner
        self.scenes = frozenset(scenes)
        self._search = inner.of_scenes(sorted(self.scenes)) if isinstance(inner, SceneScopedCandidates) else None

    def _keep(self, records: list[MemoryRecord]) -> list[MemoryRecord]:
        return [r for r in records if r.scene in self.scenes]

    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        """The closest current memories of these scenes."""
        if self._search is not None:
            return self._keep(self._search.similar(text, limit=limit))
        return self._keep(self.inner.similar(text, limit=limit * 2))[:limit]

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        """Current memories of these scenes holding ``slot``."""
        return self._keep(self.inner.by_slot(slot))

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        """Current memories of these scenes about ``subject``."""
        return self._keep(self.inner.by_subject(subject, limit))[:limit]


class SceneWriter:
    """Routes, then writes chat through ``inner`` and working/coding memory by rules. Implements Writer."""

    def __init__(
        self,
        inner: Writer,
        chat: ChatModel | None = None,
        *,
        summaries: bool = False,
        summary_min_messages: int = 6,
        name: str | None = None,
    ) -> None:
        self.inner = inner
        self.chat = chat
        self.summaries = summaries
        self.summary_min_messages = summary_min_messages
        self.name = name or f"{inner.name}+scenes"
        self.version = f"{inner.version}+{RULES_VERSION}"

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        """Route ``episode`` and propose its operations; the first carries the routing reason and cost."""
        decision = route_scene(episode, self.chat)
        if decision.scene == "chat":
            ops = self._chat(episode, candidates, context, clock)
        else:
            ops = self._task(episode, candidates, decision.scene)
        return _Proposed(_annotate(ops, decision), getattr(ops, "rejections", []), getattr(ops, "skipped", []))

    def warm_up(self) -> None:
        writer_warm_up(self.inner)

    def likely_texts(self, episode: Episode) -> list[str]:
        """The messages worth embedding in one batch before the writer runs: a chat episode's, as the inner
        writer sees them; none for a tool episode that the rules alone route to working or coding memory,
        whose operations embed digests of the task, never its messages."""
        explicit = episode.metadata.get("scene")
        if has_tool_activity(episode) and self.chat is None and explicit in (None, "working", "coding"):
            return []
        plain = _without_tools(episode) if has_tool_activity(episode) else episode
        return writer_likely_texts(self.inner, plain)

    async def apropose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        """As :meth:`propose`; a chat episode awaits the inner writer's ``apropose`` (model calls never hold a
        thread), everything else runs the same rules on a worker thread."""
        inner_async = getattr(self.inner, "apropose", None)
        decision = await asyncio.to_thread(route_scene, episode, self.chat)
        if decision.scene != "chat" or inner_async is None:
            return await asyncio.to_thread(self.propose, episode, candidates, context, clock)
        plain, scoped, ctx = self._chat_inputs(episode, candidates, context)
        ops = self._chat_outputs(plain, await inner_async(plain, scoped, ctx, clock))
        return _Proposed(_annotate(ops, decision), getattr(ops, "rejections", []), getattr(ops, "skipped", []))

    def _chat_inputs(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext
    ) -> tuple[Episode, CandidateSource, WriteContext]:
        plain = _without_tools(episode) if has_tool_activity(episode) else episode
        hints = {**context.hints, "scene": "chat"}
        return plain, SceneCandidates(candidates, ("chat",)), replace(context, hints=hints)

    def _chat(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        plain, scoped, ctx = self._chat_inputs(episode, candidates, context)
        return self._chat_outputs(plain, self.inner.propose(plain, scoped, ctx, clock))

    def _chat_outputs(self, plain: Episode, ops: list[Operation]) -> list[Operation]:
        out = _Proposed(
            [replace(op, draft=normalize_intention(replace(op.draft, scene="chat"))) if op.draft else op for op in ops],
            getattr(ops, "rejections", []),  # the inner writer's own refusals travel on, to be journaled
            getattr(ops, "skipped", []),  # and its reasons for the messages it kept nothing from
        )
        if self.summaries and self.chat is not None and _turns(plain) >= self.summary_min_messages:
            summary = summarize_episode(plain, self.chat)
            if summary is not None:
                out.append(summary)
        return out

    def _task(self, episode: Episode, candidates: CandidateSource, scene: str) -> list[Operation]:
        began = time.perf_counter()
        uses = tool_uses(episode)
        changes = []
        if scene == "coding":
            edits = edits_from_uses(uses)
            if not edits:  # a diff pasted into the conversation, not made through a tool
                for index, message in enumerate(episode.messages):
                    if looks_like_patch(message.content):
                        edits.extend(edits_from_text(message.content, message.role, index))
            changes = merge_changes(changes_from_edits(edits, file_contents(uses)))
        digest = digest_task(episode, uses, changes)
        task_candidates = SceneCandidates(candidates, ("working", "coding"))
        ops = [session_fact_op(episode, digest, task_candidates, scene)]
        ops += experience_ops(episode, digest, task_candidates, scene)
        ops += revision_ops(episode, changes, digest, task_candidates)
        share = (time.perf_counter() - began) * 1000 / max(len(ops), 1)
        usage = Usage(prompt_version=RULES_VERSION, latency_ms=share)
        return [replace(op, usage=usage) for op in ops]


class _Proposed(list[Operation]):
    """Operations plus the inner writer's ``rejections`` and ``skipped`` (see memscribe.write.ports)."""

    def __init__(self, ops: list[Operation], rejections: list[Any], skipped: list[Any] | None = None) -> None:
        super().__init__(ops)
        self.rejections = list(rejections)
        self.skipped = list(skipped or ())


def _turns(episode: Episode) -> int:
    return sum(1 for m in episode.messages if m.role in ("user", "assistant") and m.content.strip())


def _without_tools(episode: Episode) -> Episode:
    """The episode as a chat: tool calls and tool results blanked, message positions kept for provenance."""
    messages = tuple(
        replace(m, content="", tool_calls=()) if m.role == "tool" else replace(m, tool_calls=())
        for m in episode.messages
    )
    return replace(episode, messages=messages)


def _annotate(ops: list[Operation], decision: SceneDecision) -> list[Operation]:
    """Put the routing reason, and the router's model cost if any, on the first operation."""
    if not ops:
        return ops
    first = ops[0]
    usage = first.usage
    if decision.usage is not None:
        routed = decision.usage
        usage = replace(
            usage,
            model=usage.model or routed.model,
            calls=usage.calls + routed.calls,
            tokens_in=usage.tokens_in + routed.tokens_in,
            tokens_out=usage.tokens_out + routed.tokens_out,
            latency_ms=usage.latency_ms + routed.latency_ms,
        )
    reason = f"{first.reason} [scene {decision.scene}: {decision.reason}]"
    return [replace(first, reason=reason, usage=usage), *ops[1:]]
