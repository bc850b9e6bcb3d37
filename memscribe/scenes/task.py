"""A task session read by rules: what was asked, what was done, how it ended, and under which conditions.

The digest feeds the working-memory session fact, the experience library and the coding diff chain. Every
text it keeps has environment-variable values stripped and secrets redacted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from memscribe.core.records import Episode
from memscribe.core.text import STOPWORDS
from memscribe.scenes.environment import Conditions, read_conditions, strip_env_values
from memscribe.scenes.symbols import Change
from memscribe.scenes.tools import ToolUse, command_of, paths_of, urls_of

__all__ = ["TaskDigest", "describe_change", "digest_task", "session_key", "task_signature", "token_set"]

_SENTENCE: Final = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD: Final = re.compile(r"[a-z0-9][a-z0-9+#.-]*")
_SUCCESS: Final = re.compile(
    r"\b(?:done|fixed|works?|working|succeeded|success(?:fully)?|passe[sd]|passing|green|completed?|resolved"
    r"|set up|created|deployed|merged|now runs?)\b",
    re.IGNORECASE,
)
_FAILURE: Final = re.compile(
    r"\b(?:could ?n[o']t|can ?n[o']t|cannot|failed|fails|failing|unable|still (?:broken|failing|red)|did ?n[o']t work"
    r"|blocked|gave up|no luck|error persists)\b",
    re.IGNORECASE,
)
_LOOKING: Final = re.compile(
    r"^\s*(?:ls|ll|cat|pwd|echo|grep|rg|find|head|tail|less|more|which|whoami|tree|wc|stat|file|cd"
    r"|git (?:status|log|diff|show|branch)\b)(?:\s|$)"
)
_MAX_STEPS: Final = 8
_TASK_CHARS: Final = 160
_OUTCOME_CHARS: Final = 220


@dataclass(frozen=True)
class TaskDigest:
    """What a task session amounted to."""

    session: str
    task: str
    outcome: str
    succeeded: bool | None
    steps: tuple[str, ...]  # what worked: successful commands and the changes made
    attempts: tuple[str, ...]  # every command tried, failed ones included
    references: tuple[str, ...]
    conditions: Conditions
    files: tuple[str, ...]
    message_indices: tuple[int, ...]

    @property
    def status(self) -> str:
        return {True: "succeeded", False: "failed", None: "outcome unknown"}[self.succeeded]


def session_key(episode: Episode) -> str:
    """The session an episode belongs to: the scope's session id, else a per-episode key."""
    given = episode.scope.session_id or episode.metadata.get("session_id")
    return str(given) if given else f"episode-{episode.id[:12]}"


def token_set(text: str) -> frozenset[str]:
    """Content words of ``text``, lower-cased and lightly stemmed, for overlap measures."""
    words = (_stem(w.strip(".-")) for w in _WORD.findall(text.casefold()))
    return frozenset(w for w in words if len(w) > 1 and w not in STOPWORDS)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def task_signature(task: str) -> str:
    """A stable key for "the same task": its sorted content words, so word order and filler do not matter."""
    words = sorted(token_set(task) - {"please", "help", "want", "need", "can", "could", "would", "let"})
    return "-".join(words[:8]) or "task"


def _first_sentences(text: str, limit: int, count: int = 1) -> str:
    parts = [p.strip() for p in _SENTENCE.split(strip_env_values(text).strip()) if p.strip()]
    joined = " ".join(parts[:count])
    return joined if len(joined) <= limit else joined[: limit - 1].rstrip() + "…"


def describe_change(change: Change) -> str:
    """``removed function parse_config from app/config.py``: a change as a short clause."""
    if change.symbol is None:
        verb = {"added": "created", "modified": "edited", "removed": "deleted"}[change.kind]
        return f"{verb} file {change.file}"
    preposition = {"added": "to", "modified": "in", "removed": "from"}[change.kind]
    return f"{change.kind} {change.symbol_kind} {change.symbol} {preposition} {change.file}"


def digest_task(episode: Episode, uses: list[ToolUse], changes: Iterable[Change] = ()) -> TaskDigest:
    """Read the task, steps, outcome and conditions of an episode from its messages and tool calls."""
    first_user = next(
        ((i, m.content) for i, m in enumerate(episode.messages) if m.role == "user" and m.content.strip()), (None, "")
    )
    final = next(
        (
            (i, m.content)
            for i, m in reversed(list(enumerate(episode.messages)))
            if m.role == "assistant" and m.content.strip()
        ),
        (None, ""),
    )
    task = _first_sentences(first_user[1], _TASK_CHARS) or "work with " + ", ".join(dict.fromkeys(u.name for u in uses))
    outcome = _first_sentences(final[1], _OUTCOME_CHARS, count=2)
    steps = _steps(uses, list(changes))
    commands = [c for u in uses if (c := command_of(u))]
    results = [u.result for u in uses if u.result]
    indices = tuple(i for i in (first_user[0], final[0]) if i is not None)
    return TaskDigest(
        session=session_key(episode),
        task=task,
        outcome=outcome,
        succeeded=_succeeded(final[1], uses),
        steps=steps,
        attempts=_steps(uses, [], include_failed=True),
        references=tuple(dict.fromkeys(url for u in uses for url in urls_of(u)))[:5],
        conditions=read_conditions([*commands, *results, final[1]]),
        files=tuple(dict.fromkeys(p for u in uses for p in paths_of(u)))[:12],
        message_indices=indices,
    )


def _steps(uses: list[ToolUse], changes: list[Change], *, include_failed: bool = False) -> tuple[str, ...]:
    steps: list[str] = []
    for use in uses:
        command = command_of(use)
        if (use.failed and not include_failed) or command is None or _LOOKING.match(command):
            continue
        line = strip_env_values(command.splitlines()[0].strip())[:120]
        steps.append(f"run `{line}`")
    steps.extend(describe_change(c) for c in changes)
    return tuple(dict.fromkeys(steps))[:_MAX_STEPS]


def _succeeded(final: str, uses: list[ToolUse]) -> bool | None:
    """The outcome by rules: the final answer's words first, then the last tool result."""
    if _FAILURE.search(final):
        return False
    if _SUCCESS.search(final):
        return True
    last = next((u for u in reversed(uses) if u.result is not None), None)
    return False if last is not None and last.failed else None
