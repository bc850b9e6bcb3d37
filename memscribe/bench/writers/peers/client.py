"""The parent side of a peer: a :class:`PeerSubject` runs ``runner.py`` in the peer's venv and speaks JSON
lines with it, serving its embedding and model callbacks with the benchmark's own embedder and (metered)
model. The ``hybrid`` protocol searches a memscribe mirror of the peer's current memories, written by
``raw``, so the retriever is the same for every writer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from memscribe.bench.harness import result_rows, store_bytes
from memscribe.bench.writers.metering import MeteredChat
from memscribe.errors import MemscribeError
from memscribe.providers.ports import Embedder

__all__ = ["RUNNER", "PeerError", "PeerSubject"]

RUNNER = Path(__file__).with_name("runner.py")
Row = Mapping[str, Any]


class PeerError(MemscribeError):
    """A peer failed a request, could not start, or left the wire."""


class PeerSubject:
    """One peer system for one data set, in a subprocess with its own store under ``path``."""

    def __init__(self, name: str, path: Path, *, python: str, backend: str, options: Mapping[str, Any],
                 embedder: Embedder, chat: MeteredChat | None, timeout: float = 600.0) -> None:  # fmt: skip
        self.name, self.path, self.embedder, self.chat, self.timeout = name, path, embedder, chat, timeout
        self._log = (path / "peer.log").open("w", encoding="utf-8")
        opts = {**options, "dir": str(path), "dim": embedder.dim}
        if os.sep in python:  # the peer runs in its store's folder: a relative path must not move with it
            python = os.path.abspath(python)  # (not resolved: a venv's python is a link to the base interpreter)
        self.proc = subprocess.Popen(
            [python, str(RUNNER), backend, json.dumps(opts)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._log, text=True, encoding="utf-8", cwd=str(path),
        )  # fmt: skip
        self._mirror: Any = None
        self._mirrored: dict[str, dict[str, str]] = {}  # user -> peer memory text -> mirror id
        self._closed = False
        self._reply()  # "ready", or the peer's start-up error

    def _io(self) -> tuple[IO[str], IO[str]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        return self.proc.stdin, self.proc.stdout

    def _write(self, value: Mapping[str, Any]) -> None:
        stdin, _ = self._io()
        stdin.write(json.dumps(value, ensure_ascii=False) + "\n")
        stdin.flush()

    def _callback(self, message: Mapping[str, Any]) -> dict[str, Any]:
        try:
            if "embed" in message:
                return {"vectors": [[float(x) for x in v] for v in self.embedder.embed(list(message["embed"]))]}
            if self.chat is None:
                return {"error": f"{self.name} asked for a model and none is configured (--llm)"}
            return {"text": self.chat.complete(list(message["chat"]), max_tokens=512).text}
        except Exception as exc:  # told to the peer, which fails its request; the run goes on
            return {"error": f"{type(exc).__name__}: {exc}"[:300]}

    def _reply(self) -> Any:
        _, stdout = self._io()
        while True:
            line = stdout.readline()
            if not line:  # the wire closed: the peer is exiting; wait briefly for its exit code
                try:
                    code: int | None = self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = None
                raise PeerError(f"{self.name} exited (code {code}); see {self.path / 'peer.log'}")
            message = json.loads(line)
            if "embed" in message or "chat" in message:
                self._write(self._callback(message))
                continue
            if not message.get("ok"):
                raise PeerError(f"{self.name}: {message.get('error')}")
            return message.get("result")

    def _request(self, value: Mapping[str, Any]) -> Any:
        if self.proc.poll() is not None:
            raise PeerError(f"{self.name} is not running (exit code {self.proc.returncode})")
        self._write(value)
        return self._reply()

    def add(self, messages: Sequence[Mapping[str, str]], *, user_id: str, when: datetime) -> Mapping[str, Any]:
        result = self._request({"op": "add", "user_id": user_id, "messages": [dict(m) for m in messages],
                                "when": when.isoformat()})  # fmt: skip
        return result if isinstance(result, Mapping) else {"results": []}

    def current(self, user_id: str) -> list[Row]:
        rows = self._request({"op": "list", "user_id": user_id})
        return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) else []

    def search(self, query: str, *, user_id: str, limit: int) -> list[Row]:
        """memscribe's hybrid search over a raw-written mirror of the peer's current memories."""
        mirror = self._sync_mirror(user_id)
        return result_rows(mirror.search(query, user_id=user_id, limit=limit))

    def _sync_mirror(self, user_id: str) -> Any:
        from memscribe import Memory

        if self._mirror is None:
            self._mirror = Memory(self.path / "mirror.db", writer="raw", embedder=self.embedder)
        texts = {str(r.get("memory")) for r in self.current(user_id) if r.get("memory")}
        mirrored = self._mirrored.setdefault(user_id, {})
        for gone in sorted(set(mirrored) - texts):
            self._mirror.delete(mirrored.pop(gone), user_id=user_id)
        for text in sorted(texts - set(mirrored)):
            added = result_rows(self._mirror.add([{"role": "user", "content": text}], user_id=user_id))
            if added and added[0].get("id"):
                mirrored[text] = str(added[0]["id"])
        return self._mirror

    def cost(self) -> dict[str, int]:
        if self.chat is None:
            return {"calls": 0, "tokens_in": 0, "tokens_out": 0, "failed": 0}
        return self.chat.count.as_dict()

    def store_bytes(self) -> int:
        """The peer's files on disk (the mirror and the log left out), measured after it closed."""
        self.close()
        return sum(store_bytes(p) for p in self.path.iterdir() if p.name not in ("mirror.db", "peer.log")
                   and not p.name.startswith("mirror.db"))  # fmt: skip

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self.proc.poll() is None:
                self._request({"op": "close"})
        except (PeerError, OSError, ValueError):
            pass  # closing a peer that already failed: its error was recorded where it happened
        finally:
            _stop(self.proc, self.timeout)
            if self._mirror is not None:
                self._mirror.close()
            self._log.close()


def _stop(proc: subprocess.Popen[str], timeout: float) -> None:
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()
    try:
        proc.wait(timeout=min(timeout, 30.0))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


PythonFor = Callable[[str], str]


def default_python(backend: str, peers: Mapping[str, str]) -> str:
    """The interpreter of a backend's venv: ``--peer-python`` first; the shipped fake runs on this one."""
    found = peers.get(backend, sys.executable if backend == "fake" else None)
    if found is None:
        raise PeerError(f"peer {backend!r} is not installed: run `make bench-peers` and pass "
                        f"--peer-python {backend}=.cache/peers/{backend}/bin/python")  # fmt: skip
    return found
