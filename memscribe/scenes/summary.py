"""L3 session summaries: one model call per episode (pro and ultra only), with a versioned prompt.

The summary is one memory in layer L3 whose usage records the model, tokens and prompt version. A failure of
the model raises, like any pro writer's failure: the engine keeps the episode pending with the error.
"""

from __future__ import annotations

import time
from typing import Final

from memscribe.core.records import Episode, Layer, MemoryDraft, Operation, OpKind, Owner, Usage
from memscribe.providers.chat import ChatModel
from memscribe.scenes.environment import strip_env_values
from memscribe.scenes.prompts import SUMMARY_PROMPT, SUMMARY_PROMPT_VERSION, SUMMARY_SCHEMA
from memscribe.scenes.task import session_key

__all__ = ["SUMMARY", "render_transcript", "summarize_episode"]

SUMMARY: Final = "summary"
_TRANSCRIPT_CHARS: Final = 6000
_MESSAGE_CHARS: Final = 800


def render_transcript(episode: Episode, limit: int = _TRANSCRIPT_CHARS) -> str:
    """``[i] role (name): content`` lines, each message and the whole bounded; tool chatter left out."""
    lines = []
    for index, message in enumerate(episode.messages):
        if message.role not in ("user", "assistant") or not message.content.strip():
            continue
        speaker = f"{message.role} ({message.name})" if message.name else message.role
        lines.append(f"[{index}] {speaker}: {strip_env_values(message.content.strip())[:_MESSAGE_CHARS]}")
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize_episode(episode: Episode, chat: ChatModel, *, scene: str = "chat") -> Operation | None:
    """An ADD of the episode's L3 summary, or None when the episode has nothing to summarise."""
    transcript = render_transcript(episode)
    if not transcript:
        return None
    began = time.perf_counter()
    messages = [{"role": "system", "content": SUMMARY_PROMPT}, {"role": "user", "content": transcript}]
    result = chat.complete(messages, schema=SUMMARY_SCHEMA, max_tokens=300)
    summary = strip_env_values(str(result.parsed["summary"]).strip())
    if not summary:
        return None
    topics = tuple(str(t).strip().casefold() for t in result.parsed.get("topics", ()) if str(t).strip())[:5]
    usage = Usage(
        model=result.usage.model or result.model,
        prompt_version=SUMMARY_PROMPT_VERSION,
        calls=max(result.usage.calls, 1),
        tokens_in=result.usage.tokens_in,
        tokens_out=result.usage.tokens_out,
        latency_ms=result.usage.latency_ms or (time.perf_counter() - began) * 1000,
    )
    indices = tuple(i for i, m in enumerate(episode.messages) if m.role in ("user", "assistant") and m.content.strip())
    draft = MemoryDraft(
        text=summary,
        subject=f"session:{session_key(episode)}",
        owner=Owner.USER,
        layer=Layer.SUMMARY,
        scene=scene,
        tags=(SUMMARY, *topics),
        message_indices=indices,
        confidence=0.8,
        metadata={"kind": SUMMARY, "session": session_key(episode), "prompt_version": SUMMARY_PROMPT_VERSION},
    )
    return Operation(OpKind.ADD, "session summary", draft=draft, usage=usage)
