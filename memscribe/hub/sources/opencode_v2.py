"""OpenCode 2.0 ``session_message`` rows in the shape of the v1 message + parts the OpenCode reader builds on.

Each row has ``type`` (``user``, ``assistant``, ``shell``, ``synthetic``, ``compaction``, ``agent-switched``,
``model-switched``) and ``data``: the message without its type and id (``@opencode-ai/core`` session-message
schema). Assistant ``content`` holds ``text``, ``reasoning`` and ``tool`` items, a tool item carrying its state
(``pending`` / ``running`` / ``completed`` / ``error``) and output ``content``. Times are epoch milliseconds.
"""

from __future__ import annotations

from typing import Any

from memscribe.hub.cleaning import as_text, mapping
from memscribe.hub.model import ReadResult

__all__ = ["from_session_message"]

_QUIET = frozenset({"agent-switched", "model-switched"})
_INJECTED = frozenset({"synthetic", "compaction"})


def from_session_message(
    mid: str, kind: str, data: dict[str, Any], result: ReadResult
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(v1-shaped message, parts) for one row, or None for rows that are not conversation."""
    times = mapping(data.get("time"))
    if kind == "user":
        parts = [{"id": f"{mid}:0000", "type": "text", "text": str(data.get("text") or "")}]
        return {"id": mid, "role": "user", "time": times}, parts
    if kind == "assistant":
        parts = [_content(mid, i, c) for i, c in enumerate(data.get("content") or []) if isinstance(c, dict)]
        head = {"id": mid, "role": "assistant", "time": times, "error": data.get("error")}
        return head, [p for p in parts if p]
    if kind == "shell":
        state = {
            "status": "completed",
            "input": {"command": data.get("command")},
            "output": data.get("output"),
            "time": {"end": times.get("completed")},
        }
        part = {
            "id": f"{mid}:0000",
            "type": "tool",
            "callID": data.get("callID") or mid,
            "tool": "shell",
            "state": state,
        }
        return {
            "id": mid,
            "role": "assistant",
            "time": {**times, "completed": times.get("completed") or times.get("created")},
        }, [part]
    if kind in _INJECTED:
        result.boilerplate += 1
    elif kind not in _QUIET:
        result.skip(f"session_message/{kind}")
    return None


def _content(mid: str, index: int, item: dict[str, Any]) -> dict[str, Any]:
    pid = f"{mid}:{index:04d}"
    if item.get("type") == "tool":
        state = mapping(item.get("state"))
        status = state.get("status")
        output = as_text(state.get("content"))
        error = mapping(state.get("error")).get("message") or state.get("error")
        converted = {
            "status": status,
            "input": state.get("input"),
            "output": output,
            "error": as_text(error) if status == "error" else None,
            "time": {"end": mapping(item.get("time")).get("completed")},
        }
        return {"id": pid, "type": "tool", "callID": item.get("id"), "tool": item.get("name"), "state": converted}
    return {**item, "id": pid}
