"""The warm side of the recall hook: one process that keeps the store open and answers hook calls over a Unix
socket (``python -m memscribe.hub.feed.daemon SOCKET [--idle SECONDS]``), one JSON request per connection.
It exits after ``--idle`` seconds without a call, and removes its socket."""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.hub.feed import recall
from memscribe.hub.feed.hook import RAW_MAGIC

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory

__all__ = ["handle", "raw_request", "serve"]

_TOOLS = set(recall.HOOK_TOOLS)


def _open() -> Memory:
    from memscribe.engine.memory import Memory
    from memscribe.settings import memory_config, resolve_settings

    settings = resolve_settings({})
    return Memory(settings.db.value, config=memory_config(settings))


def _user(request: Mapping[str, Any]) -> str:
    from memscribe.settings import resolve_settings

    return str(request.get("user") or resolve_settings({}).user.value or getpass.getuser())


def handle(request: Mapping[str, Any], memory: Memory | None = None) -> dict[str, Any]:
    """Answer one hook request; any failure becomes an empty answer plus ``error``."""
    tool = str(request.get("tool") or "")
    call = recall.HookCall(tool, "UserPromptSubmit", Path(str(request.get("cwd") or ".")), "")
    own = memory is None
    try:
        if tool not in _TOOLS:
            raise ValueError(f"unknown hook tool {tool!r}; known: {', '.join(recall.HOOK_TOOLS)}")
        call = recall.parse_stdin(tool, str(request.get("stdin") or ""), cwd=call.cwd)
        project = request.get("project")
        chosen = (project or None) if project is not None else recall.git_project(call.cwd)
        memory = memory or _open()
        text, ids = recall.recall(memory, call, user=_user(request), project=chosen,
                                  budget_tokens=int(request.get("budget") or recall.DEFAULT_BUDGET))  # fmt: skip
        return {"answer": recall.answer(call, text), "ids": ids}
    except Exception as exc:  # a hook never breaks the tool
        return {"answer": recall.answer(call, ""), "ids": [], "error": f"{type(exc).__name__}: {exc}"}
    finally:
        if own and memory is not None:
            memory.close()


def _bind(path: Path) -> socket.socket | None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if path.exists():
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.connect(str(path))
            server.close()
            return None  # another daemon answers there
        path.unlink(missing_ok=True)  # a stale socket
    old = os.umask(0o177)
    try:
        server.bind(str(path))
    except OSError:
        server.close()
        return None  # lost the race to another daemon
    finally:
        os.umask(old)
    server.listen(16)
    return server


def raw_request(data: bytes) -> dict[str, Any]:
    """A request in the hook client's raw framing: tool, cwd, user, project, budget, then the hook's stdin."""
    fields = data[len(RAW_MAGIC) :].split(b"\0", 5)
    if len(fields) != 6:
        return {}
    tool, cwd, user, project, budget = (f.decode("utf-8", "surrogateescape") for f in fields[:5])
    stdin = fields[5].decode("utf-8", "replace")
    return {"tool": tool, "cwd": cwd, "user": user or None, "project": None if project == "\x01" else project,
            "budget": int(budget) if budget.isdigit() else None, "stdin": stdin}  # fmt: skip


def _serve_one(conn: socket.socket, memory: Memory) -> None:
    with conn:
        conn.settimeout(5.0)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
        data = b"".join(chunks)
        if data.startswith(RAW_MAGIC):  # the hook client: the magic, the stdout bytes, then NUL and any error
            reply = handle(raw_request(data), memory)
            out = json.dumps(reply["answer"], ensure_ascii=False).encode() + b"\n"
            conn.sendall(RAW_MAGIC + out + (b"\0" + str(reply["error"]).encode() if reply.get("error") else b""))
            return
        try:
            request = json.loads(data)
        except ValueError:
            request = {}
        conn.sendall(json.dumps(handle(request if isinstance(request, dict) else {}, memory)).encode())


def serve(path: Path, *, idle_s: float) -> None:
    server = _bind(path)
    if server is None:
        return
    memory = _open()
    server.settimeout(idle_s)
    try:
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                return
            with contextlib.suppress(OSError):
                _serve_one(conn, memory)
    finally:
        server.close()
        path.unlink(missing_ok=True)
        memory.close()


def main(argv: list[str]) -> int:
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwinds serve(): socket removed, store closed
    idle = float(argv[argv.index("--idle") + 1]) if "--idle" in argv else 900.0
    serve(Path(argv[0]), idle_s=idle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
