"""DeepSeek Harness (``dsh``): ``$DSH_HOME/sessions/--<cwd>--/<session>/session[.vN].jsonl[.zstd]``.

Each session directory holds one file per format generation (``session.jsonl*``, ``session.v1.jsonl*`` …);
the highest is read. Files are concatenated, checksummed zstd frames (raw JSONL when compression is off);
a frame torn by a crash keeps its complete lines. Line 1 is the ``session`` header (``id``, ``cwd``,
``createdAt``, ``version``, ``seedLength`` or ``isSeeded``, ``origin``); then ``{type, seq, time, data}``
events. Only surface events reach the model: ``user/message`` (a person's prompt only when
``source.kind == 'user'``; everything else is injected context), ``assistant/message`` (``text``,
``reasoning``, ``tool-call`` blocks) and ``tool/result``. A fork's replayed seed is dropped. Sub-agents
(``origin: 'subagent'``) are sessions of their own.

Generations v1–v3 are read with the rules of both ends: v0/v1 packed ``*-chunks`` rows are skipped (they
repeat the assembled messages), a tool result is either v0's user message of ``tool-result`` blocks or v4's
``role: 'tool'`` message, ``developer/message`` (from 0.1.7) is injected context, and a seed is dropped by
``seedLength`` or, from v4, by ``isSeeded`` and the last inherited ``session/end-seed``. A header version
newer than v4 is an error naming the file, not a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memscribe.hub.cleaning import as_arguments, as_text, blocks_text, clean_text, mapping
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.reading import iso_or_epoch, json_lines, read_zstd

__all__ = ["DeepSeekHarnessSource", "pick_generation"]

_GENERATION = re.compile(r"^session(?:\.v(\d+))?\.jsonl(?:\.zstd)?$")
_LOG_PREFIXES = (
    "turn/",
    "step/",
    "request/",
    "subagent/",
    "hook/",
    "todo/",
    "goal/",
    "approval/",
    "sandbox/",
    "llm/",
    "compaction/",
    "model/",
    "session",
    "team/",
    "tool/call",
    "tool/ptc-dispatch",
    "tool/code-dispatch",
    "assistant/attempt",
    "text-chunks",
    "reasoning-chunks",
    "tool-call-chunks",
)
_INJECTED = ("system/message", "developer/message")
NEWEST_VERSION = 4  # v0 from the persistence code, v4 from the v3→v4 migration notes; v1–v3 read as their union


def pick_generation(directory: Path) -> Path | None:
    """The newest format generation in a session directory (``session.v4…`` over ``session.v3…`` over v0)."""
    best: tuple[int, Path] | None = None
    for path in directory.iterdir():
        match = _GENERATION.match(path.name)
        if match:
            version = int(match.group(1) or 0)
            if best is None or version > best[0]:
                best = (version, path)
    return best[1] if best else None


class DeepSeekHarnessSource:
    name = "deepseek-harness"
    title = "DeepSeek Harness"

    def discover(self, env: HubEnv) -> Iterator[SourceFile]:
        for root in env.roots(self.name, ("DSH_HOME",), (".dsh",)):
            sessions = root / "sessions"
            for directory in sorted(p for p in sessions.glob("*/*") if p.is_dir()):
                files = tuple(sorted(p for p in directory.iterdir() if _GENERATION.match(p.name)))
                if files:
                    yield SourceFile(self.name, directory, kind="session-dir", watch=files)

    def read(self, item: SourceFile) -> ReadResult:
        result = ReadResult()
        path = pick_generation(item.path)
        if path is None:
            return result
        data = read_zstd(path) if path.suffix == ".zstd" else None
        header: dict[str, Any] = {}
        events: list[dict[str, Any]] = []
        for _, line in json_lines(path, result, data):
            kind = str(line.get("type"))
            result.saw(kind)
            if kind == "session" and not header:
                header = line
            else:
                events.append(line)
        version = header.get("version")
        if isinstance(version, int) and version > NEWEST_VERSION:  # refuse to guess at a format from the future
            raise ValueError(
                f"{path}: session format v{version} is newer than this reader knows (v0–v{NEWEST_VERSION})"
            )
        session = Session(
            id=str(header.get("id") or item.path.name),
            cwd=header.get("cwd"),
            started=iso_or_epoch(header.get("createdAt"), unit="ms"),
            meta={"format_version": header.get("version"), "generation": path.name},
        )
        if header.get("origin") == "subagent":
            session.sidechain, session.parent = True, header.get("parentSession")
        session.turns = _turns(_drop_seed(header, events), session, result)
        if session.turns or events:
            result.sessions.append(session)
        return result


def _drop_seed(header: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Without the parent's history a fork or resume replays before its own events."""
    if header.get("isSeeded"):
        ends = [
            i
            for i, e in enumerate(events)
            if e.get("type") == "session/end-seed" and isinstance(e.get("data"), dict) and e["data"].get("inherited")
        ]
        return events[ends[-1] + 1 :] if ends else events
    if isinstance(header.get("seedLength"), int) and header["seedLength"] > 0:
        return events[header["seedLength"] :]
    return events


def _turns(events: list[dict[str, Any]], session: Session, result: ReadResult) -> list[Turn]:
    turns: list[Turn] = []
    names: dict[str, str] = {}
    for e in events:
        kind, data, when = str(e.get("type")), mapping(e.get("data")), None
        when = iso_or_epoch(e.get("time"), unit="ms")
        key = f"seq{e.get('seq')}"
        if kind == "session/title" and data.get("title"):
            session.title = str(data["title"])
        elif kind == "user/message":
            source = mapping(data.get("source"))
            text = clean_text(blocks_text(data.get("content"), ("text",)))
            if source.get("kind") == "user" and text:
                turns.append(Turn(str(data.get("id") or key), "user", text, when))
            else:
                result.boilerplate += 1
        elif kind == "assistant/message":
            turns.extend(_assistant(data, key, when, names))
        elif kind == "tool/result":
            turns.extend(_tool(data, key, when, names))
        elif kind in _INJECTED:
            result.boilerplate += 1
        elif not kind.startswith(_LOG_PREFIXES) and not e.get("ignorable"):
            result.skip(kind)
    return turns


def _assistant(data: dict[str, Any], key: str, when: Any, names: dict[str, str]) -> list[Turn]:
    message = mapping(data.get("message"))
    blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
    calls = []
    for b in blocks:
        if b.get("type") == "tool-call":
            names[str(b.get("id"))] = str(b.get("name") or "tool")
            calls.append(ToolUse(str(b.get("name") or "tool"), as_arguments(b.get("arguments")), b.get("id")))
    text = blocks_text(blocks, ("text",))
    return [Turn(str(message.get("id") or key), "assistant", text, when, tuple(calls))] if text or calls else []


def _tool(data: dict[str, Any], key: str, when: Any, names: dict[str, str]) -> list[Turn]:
    message = mapping(data.get("message"))
    if message.get("role") == "tool":  # v4: the result is the message itself
        results = [
            {
                "toolCallId": message.get("toolCallId"),
                "content": message.get("content"),
                "isError": message.get("isError"),
            }
        ]
    else:
        results = [b for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool-result"]
    out = []
    for i, r in enumerate(results):
        call = str(r.get("toolCallId"))
        out.append(
            Turn(
                f"{message.get('id') or key}:{i}",
                "tool",
                as_text(r.get("content")),
                when,
                tool_name=names.get(call),
                tool_call_id=call,
                is_error=bool(r.get("isError")),
            )
        )
    return out
