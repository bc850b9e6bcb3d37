"""The recall hook as the tools run it: ``python -m memscribe.cli.hub_hook TOOL [--budget N]``.

This client imports nothing but the standard library and :mod:`memscribe.config`, so a prompt does not wait
for the CLI or the engine to load. It hands the tool's hook JSON to a warm recall daemon over a Unix socket
in memscribe's home (mode 0600, like the database beside it). When none is running it starts one in the
background and answers this call itself (the cold path). Either way it prints one JSON object and exits 0:
a hook never breaks the tool.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["ask", "main", "run", "socket_path"]

IDLE_S = 900.0  # the daemon exits after this long without a call
_SCOPE_KEYS = ("MEMSCRIBE_USER", "MEMSCRIBE_PROJECT", "MEMSCRIBE_HOOK_DAEMON")  # not the daemon's identity


def socket_path(environ: Mapping[str, str]) -> Path:
    """One daemon per store configuration: the MEMSCRIBE_* settings pick the socket."""
    from memscribe.config import default_home

    env = sorted((k, v) for k, v in environ.items() if k.startswith("MEMSCRIBE_") and k not in _SCOPE_KEYS)
    key = hashlib.sha256(json.dumps(env).encode()).hexdigest()[:12]
    home = Path(environ["MEMSCRIBE_HOME"]).expanduser() if environ.get("MEMSCRIBE_HOME") else default_home()
    path = home / "hub" / f"recall-{key}.sock"
    if len(str(path)) > 100:  # AF_UNIX paths are short
        import tempfile

        path = Path(tempfile.gettempdir()) / f"memscribe-{os.getuid()}-{key}.sock"
    return path


def ask(path: Path, request: Mapping[str, Any], *, timeout: float = 5.0) -> dict[str, Any] | None:
    """The daemon's reply, or None when no daemon answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(path))
            conn.sendall(json.dumps(request).encode() + b"\n")
            conn.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := conn.recv(65536):
                chunks.append(chunk)
        reply = json.loads(b"".join(chunks))
    except (OSError, ValueError):
        return None
    return reply if isinstance(reply, dict) and "answer" in reply else None


def _spawn(path: Path) -> None:
    if os.environ.get("MEMSCRIBE_HOOK_DAEMON") == "0":
        return
    import subprocess

    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.Popen(
        [sys.executable, "-m", "memscribe.hub.feed.daemon", str(path), "--idle", str(IDLE_S)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def run(tool: str, raw: str, environ: Mapping[str, str], *, budget: int = 600) -> dict[str, Any]:
    """The reply for one hook call: ``answer`` (the tool's JSON), ``ids``, ``warm``, maybe ``error``."""
    request = {
        "tool": tool,
        "stdin": raw,
        "cwd": os.getcwd(),
        "user": environ.get("MEMSCRIBE_USER"),
        "project": environ.get("MEMSCRIBE_PROJECT"),
        "budget": budget,
    }
    path = socket_path(environ)
    reply = ask(path, request)
    if reply is not None:
        return {**reply, "warm": True}
    _spawn(path)
    from memscribe.hub.feed.daemon import handle

    return {**handle(request), "warm": False}


def _budget(args: list[str]) -> int:
    if "--budget" in args:
        i = args.index("--budget")
        return max(50, min(2000, int(args[i + 1])))
    return 600


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    tool = args[0] if args else ""
    try:
        reply = run(tool, sys.stdin.read(), os.environ, budget=_budget(args))
    except Exception as exc:  # never break the tool
        reply = {"answer": {}, "error": f"{type(exc).__name__}: {exc}"}
    if reply.get("error"):
        print(f"memscribe recall: {reply['error']}", file=sys.stderr)
    print(json.dumps(reply["answer"], ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
