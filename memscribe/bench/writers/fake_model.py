"""A deterministic fake model that speaks every protocol the writer benchmark uses, for runs without a server.

It reads each request the way a model would and answers in the right schema: pro requests get the lite
rules' decisions (:func:`memscribe.bench.pro.scripted_pro_chat`); the mem0 and Hy-Memory protocols get one
fact per user sentence, added unless the same text is already stored; the answerer repeats the first
memory it was shown; the judge says CORRECT when the normalised gold answer occurs in the answer and no
stale value does. Token counts are the model-free estimate (about four characters a token). Its figures
measure the harness, never a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from memscribe.bench.metrics import contains_value, normalize_answer
from memscribe.bench.writers import judge
from memscribe.core.records import Usage
from memscribe.core.text import estimate_tokens
from memscribe.providers.chat import ChatResult
from memscribe.testing.chat import FunctionChat, Reply

__all__ = ["bench_fake_chat"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _section(text: str, header: str, until: str | None = None) -> str:
    _, _, rest = text.partition(header)
    return rest.partition(until)[0] if until else rest


def _user_sentences(conversation: str) -> list[str]:
    out = []
    for line in conversation.strip().splitlines():
        speaker, _, said = line.partition(": ")
        if speaker != "assistant" and said.strip():
            out += [s.strip() for s in _SENTENCE.split(said) if len(s.split()) >= 3]
    return out


def _stored(text: str) -> dict[str, int]:
    """Existing memories of a reconcile request, text → alias."""
    known = {}
    for line in text.strip().splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            alias = item.get("id", item.get("memory_id"))
            known[str(item.get("text", item.get("content", "")))] = int(alias)
    return known


def _mem0(prompt: str) -> dict[str, Any]:
    if prompt.startswith("You are a personal information organiser"):
        return {"facts": _user_sentences(_section(prompt, "Conversation:\n"))}
    known = _stored(_section(prompt, "Existing memories:\n", "\n\nNew facts:"))
    facts = json.loads(_section(prompt, "New facts:\n"))
    return {"memory": [{"id": known[f], "event": "NONE"} if f in known else {"id": None, "text": f, "event": "ADD"}
                       for f in facts]}  # fmt: skip


def _hy(prompt: str) -> dict[str, Any]:
    if prompt.startswith("Extract new, durable"):
        said = _user_sentences(_section(prompt, "New messages:\n"))
        return {"memory": [{"content": s, "subject": "user", "owner": "user", "tags": []} for s in said]}
    known = _stored(_section(prompt, "Existing memories:\n", "\n\nNew memories:"))
    new = json.loads(_section(prompt, "New memories:\n"))
    ops = [{"op": "ADD", "memory_id": None, "content": m["content"], "subject": m.get("subject"), "owner": "user",
            "reason": "new"} for m in new if m["content"] not in known]  # fmt: skip
    return {"operations": ops}


def _answer(prompt: str) -> dict[str, Any]:
    memories = _section(prompt, judge.MEMORIES_HEADER, judge.QUESTION_HEADER).strip().splitlines()
    first = memories[0].partition(". ")[2] if memories and memories[0] != judge.NO_MEMORIES else ""
    return {"answer": first or "I don't know."}


def _verdict(prompt: str) -> dict[str, Any]:
    fields = json.loads(_section(prompt, judge.CASE_HEADER))
    answer = normalize_answer(fields["answer"])
    stale = any(contains_value(answer, s) for s in fields["stale"])
    gold = fields["gold"]
    right = (not gold and not stale) or (bool(gold) and contains_value(answer, gold) and not stale)
    return {"verdict": "CORRECT" if right else "WRONG", "reason": "fake judge: gold contained" if right else "no"}


def _reply(messages: Sequence[Mapping[str, Any]], pro: FunctionChat) -> Reply:
    prompt = "\n".join(str(m.get("content", "")) for m in messages)
    if judge.ANSWER_MARK in prompt:
        value = _answer(prompt)
    elif judge.JUDGE_MARK in prompt:
        value = _verdict(prompt)
    elif prompt.startswith(("You are a personal information organiser", "You manage a memory store")):
        value = _mem0(prompt)
    elif prompt.startswith(("Extract new, durable", "Reconcile the new memories")):
        value = _hy(prompt)
    else:
        return pro.complete(list(messages))
    text = json.dumps(value, ensure_ascii=False)
    usage = Usage(model="bench-fake", calls=1, tokens_in=estimate_tokens(prompt), tokens_out=estimate_tokens(text))
    return ChatResult(text, value, usage, "stop", "bench-fake")


def bench_fake_chat() -> FunctionChat:
    """A fresh fake model for one writer (or the answerer and judge): deterministic, no server."""
    from memscribe.bench.pro import scripted_pro_chat

    pro = scripted_pro_chat("bench-fake")
    return FunctionChat(lambda messages: _reply(messages, pro), model="bench-fake")
