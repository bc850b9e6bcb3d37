"""The recall hook as the tools run it: ``python -S /abs/path/memscribe/hub/feed/hook.py TOOL [--budget N]``.

A hook sits on the prompt path, so this client is a script that imports nothing but a few standard-library
modules: run by its path with ``-S``, it loads neither ``site`` nor the ``memscribe`` package (whose
imports cost more than the whole warm answer). It hands the tool's hook JSON to a warm recall daemon over a
Unix socket in memscribe's home (mode 0600, like the database beside it). When none is running it starts
one in the background and answers this call itself, loading the engine (the cold path). Either way it prints
one JSON object and exits 0: a hook never breaks the tool.

``python -m memscribe.cli.hub_hook TOOL`` runs the same client (older installs point there).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs an import at run time; the checker alone needs these names
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

__all__ = ["IDLE_S", "RAW_MAGIC", "ask", "check", "main", "run", "socket_path"]

IDLE_S = 900.0  # the daemon exits after this long without a call
RAW_MAGIC = b"MSR1\0"  # the raw request: NUL-separated fields, so the client needs no json (json loads re)
_SCOPE_KEYS = ("MEMSCRIBE_USER", "MEMSCRIBE_PROJECT", "MEMSCRIBE_HOOK_DAEMON")  # not the daemon's identity
_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))  # the folder holding the memscribe package


def _fnv64(data: bytes) -> str:
    """FNV-1a, 64 bits: a stable name for a configuration with no hashlib (an OpenSSL load) to import."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def _home(environ: Mapping[str, str]) -> str:
    """memscribe's home as :func:`memscribe.config.default_home` finds it, without platformdirs."""
    if environ.get("MEMSCRIBE_HOME"):
        return os.path.expanduser(environ["MEMSCRIBE_HOME"])
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Application Support/memscribe")
    if sys.platform == "win32":
        base = environ.get("LOCALAPPDATA") or os.path.expanduser("~/AppData/Local")
        return os.path.join(base, "memscribe")
    return os.path.join(environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "memscribe")


def socket_path(environ: Mapping[str, str]) -> str:
    """One daemon per store configuration: the MEMSCRIBE_* settings pick the socket."""
    env = sorted(f"{k}={v}" for k, v in environ.items() if k.startswith("MEMSCRIBE_") and k not in _SCOPE_KEYS)
    key = _fnv64("\0".join(env).encode("utf-8", "surrogateescape"))[:12]
    path = os.path.join(_home(environ), "hub", f"recall-{key}.sock")
    if len(path) > 100:  # AF_UNIX paths are short
        import tempfile

        path = os.path.join(tempfile.gettempdir(), f"memscribe-{os.getuid()}-{key}.sock")
    return path


def _exchange(path: str, data: bytes, timeout: float) -> bytes | None:
    import _socket  # the C module: socket.py would pull in enum and selectors

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(path)
        conn.sendall(data)
        conn.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        conn.close()


def ask(path: str | Path, request: Mapping[str, Any], *, timeout: float = 5.0) -> dict[str, Any] | None:
    """The daemon's reply to a JSON request, or None when no daemon answers."""
    import json

    raw = _exchange(str(path), json.dumps(request).encode() + b"\n", timeout)
    try:
        reply = json.loads(raw) if raw else None
    except ValueError:
        return None
    return reply if isinstance(reply, dict) and "answer" in reply else None


def _ask_raw(path: str, tool: str, stdin: bytes, environ: Mapping[str, str], budget: int) -> tuple[bytes, str] | None:
    """The warm path: (stdout bytes, error text) from the daemon, or None when none answers."""
    fields = [tool, os.getcwd(), environ.get("MEMSCRIBE_USER") or "", environ.get("MEMSCRIBE_PROJECT"), str(budget)]
    head = "\0".join("\x01" if f is None else f for f in fields).encode("utf-8", "surrogateescape")
    reply = _exchange(path, RAW_MAGIC + head + b"\0" + stdin, 5.0)
    if not reply or not reply.startswith(RAW_MAGIC):  # no daemon, or one that predates the raw framing
        return None
    out, _, error = reply[len(RAW_MAGIC) :].partition(b"\0")
    return out, error.decode("utf-8", "replace")


def _load_engine() -> None:
    """Make the memscribe package importable when this file runs as a script under ``-S``."""
    if sys.flags.no_site:
        import site

        site.main()
    if _ROOT not in sys.path:
        sys.path.append(_ROOT)


def _spawn(path: str) -> None:
    if os.environ.get("MEMSCRIBE_HOOK_DAEMON") == "0":
        return
    import subprocess

    os.makedirs(os.path.dirname(path), exist_ok=True)
    subprocess.Popen(  # without -S: the daemon finds memscribe through site, as the CLI does
        [sys.executable, "-m", "memscribe.hub.feed.daemon", path, "--idle", str(IDLE_S)],
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
    _load_engine()
    from memscribe.hub.feed.daemon import handle

    return {**handle(request), "warm": False}


def _budget(args: list[str]) -> int:
    if "--budget" in args:
        i = args.index("--budget")
        return max(50, min(2000, int(args[i + 1])))
    return 600


def check() -> int:
    """``hook.py --check``: whether this interpreter runs the hook: the engine it would load on the cold path
    imports. Prints one JSON object (``ok``, ``python``, ``package`` or ``error``); exits 1 when it does not."""
    import json

    _load_engine()
    try:
        import sqlite3  # noqa: F401  (the store, and what the cold path and the daemon load)

        import numpy  # noqa: F401

        import memscribe.engine.memory
        import memscribe.hub.feed.daemon
        import memscribe.settings

        report: dict[str, Any] = {"ok": True, "python": sys.executable, "package": os.path.dirname(memscribe.__file__)}
    except Exception as exc:  # a missing dependency, a broken install
        report = {"ok": False, "python": sys.executable, "error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(report))
    return 0 if report["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--check"]:
        return check()
    tool = args[0] if args else ""
    try:
        budget = _budget(args)
        stdin = sys.stdin.buffer.read()
        warm = _ask_raw(socket_path(os.environ), tool, stdin, os.environ, budget)
        if warm is not None:
            if warm[1]:
                print(f"memscribe recall: {warm[1]}", file=sys.stderr)
            sys.stdout.buffer.write(warm[0])
            return 0
        reply = run(tool, stdin.decode("utf-8", "replace"), os.environ, budget=budget)
    except Exception as exc:  # never break the tool
        reply = {"answer": {}, "error": f"{type(exc).__name__}: {exc}"}
    import json

    if reply.get("error"):
        print(f"memscribe recall: {reply['error']}", file=sys.stderr)
    print(json.dumps(reply["answer"], ensure_ascii=False))
    return 0


if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0] or ".") == _HERE:
        del sys.path[0]  # run by path: this folder's modules must not shadow the standard library
    sys.exit(main())
