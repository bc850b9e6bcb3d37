"""The pro writer on the update benchmark: what its protocol costs per add, beside lite.

No generative model runs offline here, so by default the pro writer talks to :func:`scripted_pro_chat`: a
:class:`~memscribe.testing.chat.FunctionChat` that reads the pro request exactly as a model would (the
JSON lines of candidates and messages), runs the lite writer's rules on that chunk against *only* the
candidates the request showed, and answers in the pro JSON schema with aliases. Decisions are therefore
lite's, but every call, prompt token and decoded operation is the real protocol's, so calls per add and
tokens per add are honest. Pass a real :class:`~memscribe.providers.chat.ChatModel` (``make_chat(...)``)
and the same command measures that model instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memscribe.bench.harness import MemoryFactory, MemoryLike
from memscribe.bench.updates import DEFAULT_SEED, QUICK_SCENARIOS, run_updates
from memscribe.core.clock import FrozenClock, ensure_utc
from memscribe.core.records import (
    Episode,
    Layer,
    MemoryRecord,
    Message,
    Operation,
    OpKind,
    Owner,
    Scope,
    Status,
    Usage,
)
from memscribe.core.text import estimate_tokens
from memscribe.errors import ConfigError
from memscribe.providers.chat import ChatModel, ChatResult, validate_reply
from memscribe.testing.chat import FunctionChat, Reply
from memscribe.write.lite import LiteWriter
from memscribe.write.lite.matching import content_tokens
from memscribe.write.llm import LLM_WRITERS, WriterStats, make_llm_writer
from memscribe.write.llm.render import fixed_prompt
from memscribe.write.ports import WriteContext, Writer
from memscribe.write.prompts.pro_schema import PRO_SCHEMA

__all__ = ["destructive_chat", "run_pro_updates", "scripted_pro_chat"]

_TIME = re.compile(r"^[^:\n:]*[::]\s*(\S+)\s*$")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class _ShownCandidates:
    """The candidates one request showed, as a CandidateSource for the lite rules (ids are the aliases)."""

    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        self.records = list(records)

    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        words = content_tokens(text)
        ranked = sorted(self.records, key=lambda r: -len(words & content_tokens(r.text)))
        return ranked[:limit]

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        return [r for r in self.records if r.slot == slot]

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return [r for r in self.records if r.subject == subject][:limit]


def _day(raw: object) -> datetime | None:
    if not isinstance(raw, str) or not raw:
        return None
    return ensure_utc(datetime.fromisoformat(raw.replace("Z", "+00:00")))


def _record(item: dict[str, Any]) -> MemoryRecord:
    return MemoryRecord(
        id=str(item["n"]), version_id=str(item["n"]), version=1, scope=Scope("bench"), text=str(item["text"]),
        subject=str(item.get("subject") or "user"), slot=item.get("slot"), value=item.get("value"),
        owner=Owner(item.get("owner") or "user"), layer=Layer.FACT, scene="chat", tags=(), episode_id=None,
        message_indices=(), confidence=1.0, writer="pro", embedding_model=None, source=None,
        valid_from=_day(item.get("valid_from")) or _EPOCH, valid_to=_day(item.get("valid_to")),
        recorded_at=_EPOCH, retired_at=None, status=Status.ACTIVE,
    )  # fmt: skip


def _read_request(user: str) -> tuple[Episode, list[MemoryRecord]] | None:
    """The episode chunk and shown candidates of a pro request, or None for anything else."""
    lines = user.splitlines()
    found = _TIME.match(lines[0]) if lines else None
    if found is None:
        return None
    when = _day(found.group(1)) or _EPOCH
    objects = [json.loads(line) for line in lines[1:] if line.startswith("{")]
    records = [_record(o) for o in objects if "n" in o]
    shown = {int(o["i"]): o for o in objects if "i" in o}
    messages = tuple(
        Message(
            role=str(shown[i]["role"]), content=str(shown[i]["text"]), name=shown[i].get("name"),
            timestamp=_day(shown[i].get("time")),
        ) if i in shown else Message("system", "")
        for i in range(max(shown, default=-1) + 1)
    )  # fmt: skip
    episode = Episode("scripted", Scope("bench"), messages, when, "bench", "scripted")
    return episode, records


def _date(when: datetime | None) -> str | None:
    return when.date().isoformat() if when is not None else None


def _item(op: Operation) -> dict[str, Any]:
    """One lite operation in the pro answer schema; targets are already aliases."""
    item: dict[str, Any] = {"op": op.kind.value, "reason": op.reason}
    if op.target is not None:
        item["target"] = int(op.target)
    draft = op.draft
    if draft is not None and op.kind is not OpKind.NOOP and op.kind is not OpKind.DELETE:
        item.update(text=draft.text, subject=draft.subject, owner=draft.owner.value, msgs=list(draft.message_indices))
        optional = (
            ("slot", draft.slot),
            ("value", draft.value),
            ("valid_from", _date(draft.valid_from)),
            ("valid_to", _date(draft.valid_to)),
        )
        item.update({key: value for key, value in optional if value})
    return item


def _answer(messages: list[dict[str, Any]], model: str) -> Reply:
    users = [m for m in messages if m.get("role") == "user"]
    request = _read_request(str(users[0].get("content", ""))) if users else None
    value: dict[str, Any] = {"operations": []}
    if request is not None:
        episode, records = request
        ops = LiteWriter().propose(episode, _ShownCandidates(records), WriteContext(), FrozenClock(episode.timestamp))
        value = {"operations": [_item(op) for op in ops]}
    text = json.dumps(value, ensure_ascii=False)
    prompt_tokens = sum(estimate_tokens(str(m.get("content", ""))) for m in messages)
    usage = Usage(model=model, calls=1, tokens_in=prompt_tokens, tokens_out=estimate_tokens(text))
    return ChatResult(text, validate_reply(value, PRO_SCHEMA, raw_text=text), usage, "stop", model)


def scripted_pro_chat(model: str = "scripted-lite") -> FunctionChat:
    """A chat model that answers pro requests with the lite rules' decisions, rendered in the pro schema.

    Token counts are the model-free estimate of :func:`memscribe.core.text.estimate_tokens` (≈ 4 chars each).
    """
    return FunctionChat(lambda messages: _answer(messages, model), model=model)


_CAPITALISED = re.compile(r"\b[A-Z][a-z]{3,}\b")


def _destructive(messages: list[dict[str, Any]]) -> dict[str, Any]:
    user = str(messages[-1].get("content", ""))
    if "NEW:" in user:  # the hybrid's pairs: "update" for every one, with a word of the new statement
        pairs = user.count("NEW:")
        words = _CAPITALISED.findall(user) or ["Thing"]
        return {"labels": [{"n": n, "label": "update", "value": words[-1]} for n in range(1, pairs + 1)]}
    said = " ".join(json.loads(line)["text"] for line in user.splitlines() if line.startswith('{"i"'))
    words = _CAPITALISED.findall(said) or ["Thing"]
    if '{"n": 1' not in user:
        return {"operations": [{"op": "ADD", "reason": "r", "text": "whatever", "subject": "user", "value": words[0]}]}
    return {"operations": [
        {"op": "SUPERSEDE", "target": 1, "reason": "r", "text": f"The user {said}", "value": words[-1]},
        {"op": "DELETE", "target": 2, "reason": "r"},
    ]}  # fmt: skip


def destructive_chat(model: str = "scripted-destructive") -> FunctionChat:
    """A model that tries to do harm in valid JSON: it supersedes the first memory shown with a word of the
    message, deletes the second, adds an invented memory, and labels every hybrid pair ``update``. For
    measuring what the writers' checks let through (docs/benchmarks.md)."""
    return FunctionChat(_destructive, model=model)


def _factory(writer: Writer, embedder: str, clock: Any = None) -> MemoryFactory:
    def make(name: str, path: Path) -> MemoryLike:
        from memscribe import Memory

        memory: MemoryLike = Memory(path / "store.db", writer=writer, embedder=embedder, clock=clock)
        return memory

    return make


def run_pro_updates(
    scenarios: int = QUICK_SCENARIOS,
    seed: int = DEFAULT_SEED,
    embedder: str = "hash",
    chat: ChatModel | None = None,
    *,
    writer: str = "pro",
    workdir: Path | str = Path(".bench"),
    progress: Callable[[int, int], None] | None = None,
    sim_clock: Any = None,
) -> dict[str, Any]:
    """``run_updates`` for an LLM writer, with an ``llm`` section: calls, tokens and repairs per add.

    Without ``chat`` the pro writer talks to :func:`scripted_pro_chat`; the protocol writers
    (``mem0-protocol``, ``hy-protocol``) need a real chat model.
    """
    if writer not in LLM_WRITERS:
        raise ConfigError(f"unknown LLM writer {writer!r}; known: {', '.join(sorted(LLM_WRITERS))}")
    if chat is None and writer != "pro":
        raise ConfigError(f"{writer} needs a chat model; the scripted model only speaks the pro protocol")
    built = make_llm_writer(writer, chat or scripted_pro_chat())
    factory = _factory(built, embedder, sim_clock)
    results = run_updates(factory, writer, scenarios, seed, workdir, progress=progress, sim_clock=sim_clock)
    meter = getattr(built, "stats", None)
    stats: dict[str, Any] = meter.as_dict() if isinstance(meter, WriterStats) else {}
    adds = max(int(results["cost"]["adds"]), 1)
    results["llm"] = {
        **stats,
        "model": "scripted-lite" if chat is None else repr(chat),
        "calls_per_add": round(stats.get("calls", 0) / adds, 4),
        "tokens_in_per_add": round(stats.get("tokens_in", 0) / adds, 1),
        "tokens_out_per_add": round(stats.get("tokens_out", 0) / adds, 1),
        "fixed_prompt_tokens": estimate_tokens(fixed_prompt("en")),
    }
    return results
