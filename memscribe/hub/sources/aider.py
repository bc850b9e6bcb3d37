"""Aider: ``.aider.chat.history.md`` in each repository (discovered under the project roots given to the hub).

Markdown, appended to. Each run starts with ``# aider chat started at YYYY-MM-DD HH:MM:SS`` (local time).
Lines starting ``#### `` are the person's input (a multi-line prompt is several such lines); lines starting
``> `` are Aider's own notices and command output; everything else is the model's reply, including
SEARCH/REPLACE edit blocks. There are no per-message times, tool calls or model fields.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from memscribe.hub.cleaning import clean_text
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, Turn
from memscribe.hub.reading import split_complete

__all__ = ["AiderSource"]

HISTORY = ".aider.chat.history.md"
_START = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$")
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", "dist", "build"})
MAX_DEPTH = 4


class AiderSource:
    name = "aider"
    title = "Aider"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for root in env.paths.get(self.name) or env.project_roots:
            yield from (SourceFile(self.name, p) for p in sorted(_find(root)))

    def read(self, item: SourceFile) -> ReadResult:
        result = ReadResult()
        raw = item.path.read_bytes()
        lines, partial = split_complete(raw)
        result.partial_tail, result.consumed = partial, raw.rfind(b"\n") + 1
        tag = hashlib.sha256(str(item.path).encode()).hexdigest()[:8]
        session: Session | None = None
        block: list[str] = []
        kind = ""
        fenced = False

        def flush() -> None:
            if session is None or not block:
                return
            text = clean_text("\n".join(block))
            if kind == "user":
                text = _prompt(text, result)
            if text:
                role = "user" if kind == "user" else "assistant"
                session.turns.append(Turn(f"{session.id}:{len(session.turns)}", role, text, session.started))
            block.clear()

        for data in lines:
            line = data.decode("utf-8", errors="replace").rstrip()  # Markdown hard breaks end notice lines
            start = _START.match(line)
            if start:
                flush()
                result.saw("session")
                when = datetime.strptime(start.group(1), "%Y-%m-%d %H:%M:%S").astimezone()
                session = Session(id=f"{tag}-{when:%Y%m%dT%H%M%S}", cwd=str(item.path.parent), started=when)
                result.sessions.append(session)
                kind, fenced = "", False
                continue
            if session is None:
                continue
            notice = line == ">" or line.startswith("> ")  # not ">>>>>>> REPLACE", which closes an edit block
            this = "reply" if fenced else "user" if line.startswith("#### ") else "notice" if notice else "reply"
            if this == "reply" and line.lstrip().startswith("```"):
                fenced = not fenced  # inside a code block a "> " line is code (a quote, a diff), not a notice
            if this == "reply" and kind == "notice" and not line.strip():
                continue
            if this != kind and (this != "reply" or line.strip()):
                flush()
                if this == "notice":
                    result.boilerplate += 1
                kind = this
            if this == "user":
                result.saw("input")
                block.append(line[5:])
            elif this == "reply":
                block.append(line)
        if not partial:  # a last entry still being written is read once it is complete
            flush()
        return result


_CHAT_COMMANDS = ("/ask ", "/code ", "/architect ", "/context ")


def _prompt(text: str, result: ReadResult) -> str:
    """The person's words of one input: chat-mode commands unwrapped, other ``/commands`` dropped."""
    for command in _CHAT_COMMANDS:
        if text.startswith(command):
            return text[len(command) :].strip()
    if text.startswith("/"):
        result.boilerplate += 1
        return ""
    return text


def _find(root: Path) -> Iterator[Path]:
    root = root.expanduser()
    if root.is_file() and root.name == HISTORY:
        yield root
        return
    base = len(root.parts)
    for current, dirs, files in os.walk(root):
        if HISTORY in files:
            yield Path(current) / HISTORY
        depth = len(Path(current).parts) - base
        dirs[:] = [] if depth >= MAX_DEPTH else [d for d in dirs if d not in _SKIP_DIRS]
