"""What an answer answers: a question one person asks, and another answers in the next message.

"How long have you been into art?" stores nothing of its own: it asks, it tells nothing. But the answer that
follows ("Since I was 17 or so") means what it means only beside it. The first memory of the answering
message keeps the question with it (``Asked "How long have you been into art?": Since I was 17 or so.``), and
cites the question's message too when that message stored nothing of its own. Only questions between people in
the chat count: an assistant's questions are not the user's words, and one's own question is no context for
one's next message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memscribe.core.records import Message, Operation
from memscribe.write.lite.matching import content_tokens, stem
from memscribe.write.lite.segment import split_sentences

__all__ = ["cite_questions"]

_NAME = re.compile(r"(?<=\w[,\s])[A-Z][a-z]+\b")  # "Hey Mel, …": a name said in passing
_CATCHING_UP = frozenset(
    stem(w) for w in ("hey", "hi", "hello", "up", "since", "talk", "talked", "think", "tell", "going", "doing",
                      "been", "lately", "new", "anything", "else", "how'd", "what's")
)  # fmt: skip


def _asks(message: Message) -> bool:
    return message.role == "user" and "?" in message.content


def _questions(text: str) -> str:
    """The sentences of ``text`` that ask something of substance: catching up ("Hey Mel, what's up?", "How
    about you?", "What's been up since we talked?") gives an answer no context worth keeping."""
    asked = [s for s in split_sentences(text) if s.endswith("?")]
    return " ".join(s for s in asked if len(content_tokens(_NAME.sub(" ", s)) - _CATCHING_UP) >= 2)


def cite_questions(ops: Sequence[Operation], messages: Sequence[Message]) -> list[Operation]:
    """``ops`` with the first memory of each answering message keeping and citing the question before it."""
    cited = {i for op in ops if op.draft is not None and op.draft.episode_id is None for i in op.draft.message_indices}
    out: list[Operation] = []
    answered: set[int] = set()
    for op in ops:
        draft = op.draft
        if draft is None or draft.episode_id is not None or len(draft.message_indices) != 1:
            out.append(op)
            continue
        (index,) = draft.message_indices
        asked = index - 1
        if (
            asked in answered
            or asked < 0
            or index >= len(messages)
            or messages[index].role != "user"
            or not _asks(messages[asked])
            or messages[asked].name == messages[index].name
        ):
            out.append(op)
            continue
        answered.add(asked)
        if asked not in cited:  # the question's own words stored nothing: the answer is what cites them
            draft = replace(draft, message_indices=(asked, index))
        if question := _questions(messages[asked].content):
            draft = replace(draft, text=f'Asked "{question}": {draft.text}')
        out.append(replace(op, draft=draft))
    return out
