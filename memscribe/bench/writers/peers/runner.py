"""A peer memory system behind JSON lines on stdin/stdout, run by the writer benchmark in the peer's own venv.

This file imports nothing from memscribe (the peer's venv does not have it): ``python runner.py BACKEND
OPTIONS_JSON``. Requests, one JSON object a line: ``{"op": "add", "user_id", "messages", "when"}``,
``{"op": "list", "user_id"}``, ``{"op": "search", "user_id", "query", "limit"}`` (the peer's own search, for
``bench speed``), ``{"op": "close"}``; each answer is ``{"ok": true, "result": ...}`` or
``{"ok": false, "error": "..."}``. While it handles a request the runner may ask the parent
``{"embed": [texts]}`` (answered ``{"vectors": [...]}``) or ``{"chat": [messages]}`` (answered
``{"text": ...}``): the benchmark's own embedder and model serve every peer, so only the writer differs.
The peer's own output goes to stderr; stdout carries only the wire.

Backends: ``fake`` (shipped, stdlib only: each message becomes a memory; with ``infer`` one model call per
add), ``mem0`` (mem0ai's ``Memory``, ``infer`` true or false), ``hy`` (hy-memory's ``HyMemoryClient``,
``mode`` lite or pro).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from typing import Any


class Wire:
    """The stdio channel to the parent; callbacks are serialised (a peer may call from several threads)."""

    def __init__(self) -> None:
        self.out = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # anything the peer prints goes to stderr, never onto the wire
        self.lock = threading.RLock()

    def send(self, value: dict[str, Any]) -> None:
        self.out.write(json.dumps(value, ensure_ascii=False) + "\n")
        self.out.flush()

    def ask(self, value: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.send(value)
            line = sys.stdin.readline()
        if not line:
            raise EOFError("the benchmark closed the wire")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = self.ask({"embed": texts})["vectors"]
        return vectors

    def chat(self, messages: list[dict[str, Any]]) -> str:
        clean = [{"role": str(m.get("role", "user")), "content": str(m.get("content") or "")} for m in messages]
        return str(self.ask({"chat": clean})["text"])


class FakeBackend:
    """Stores every non-empty message as one memory; ``infer`` adds one model call per add."""

    def __init__(self, wire: Wire, options: dict[str, Any]) -> None:
        self.wire, self.infer = wire, bool(options.get("infer"))
        self.rows: dict[str, list[dict[str, Any]]] = {}

    def add(self, user_id: str, messages: list[dict[str, str]], when: str) -> dict[str, Any]:
        texts = [m["content"] for m in messages if m.get("content")]
        if any("[peer-fail]" in t for t in texts):
            raise RuntimeError("fake peer: asked to fail")
        if self.infer:
            self.wire.chat([{"role": "user", "content": "Extract facts:\n" + "\n".join(texts)}])
        self.wire.embed(texts)
        rows = self.rows.setdefault(user_id, [])
        out = []
        for text in texts:
            row = {"id": f"f{sum(len(r) for r in self.rows.values())}", "memory": text, "layer": "fact"}
            rows.append(row)
            out.append({**row, "event": "ADD"})
        return {"results": out}

    def search(self, user_id: str, query: str, limit: int) -> list[dict[str, Any]]:
        self.wire.embed([query])  # as a real peer would, through the benchmark's embedder
        words = set(query.casefold().split())
        rows = self.rows.get(user_id, [])
        return sorted(rows, key=lambda r: -len(words & set(str(r["memory"]).casefold().split())))[:limit]

    def list(self, user_id: str) -> list[dict[str, Any]]:
        return list(self.rows.get(user_id, []))

    def close(self) -> None:
        self.rows.clear()


class _Mem0Embedder:
    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def embed(self, text: Any, memory_action: Any = None) -> list[float]:
        return self.wire.embed([str(text)])[0]

    def embed_batch(self, texts: list[Any], memory_action: Any = "add") -> list[list[float]]:
        return self.wire.embed([str(t) for t in texts])


class _Mem0LLM:
    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def generate_response(self, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> str:
        return self.wire.chat(messages)


class Mem0Backend:
    def __init__(self, wire: Wire, options: dict[str, Any]) -> None:
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        from mem0 import Memory

        folder, dim = str(options["dir"]), int(options["dim"])
        self.infer = bool(options.get("infer"))
        config = {
            "vector_store": {"provider": "qdrant", "config": {"path": f"{folder}/qdrant", "on_disk": True,
                             "embedding_model_dims": dim, "collection_name": "bench"}},
            "llm": {"provider": "openai", "config": {"api_key": "unused", "model": "benchmark-model"}},
            "embedder": {"provider": "openai", "config": {"api_key": "unused", "embedding_dims": dim}},
            "history_db_path": f"{folder}/history.db",
        }  # fmt: skip
        self.memory = Memory.from_config(config)
        self.memory.embedding_model = _Mem0Embedder(wire)
        self.memory.llm = _Mem0LLM(wire)

    def add(self, user_id: str, messages: list[dict[str, str]], when: str) -> dict[str, Any]:
        answer = self.memory.add(messages, user_id=user_id, infer=self.infer)
        rows = answer.get("results", []) if isinstance(answer, dict) else []
        return {"results": [{"id": str(r.get("id")), "memory": r.get("memory"), "event": r.get("event", "ADD"),
                             "previous_memory": r.get("previous_memory")} for r in rows]}  # fmt: skip

    def fill(self, user_id: str, texts: list[str]) -> int:
        """Memories written straight into mem0's vector store, with the payload its ``_create_memory`` writes
        (the speed benchmark's fill, as memscribe's own is written straight through its store)."""
        import hashlib
        import uuid
        from datetime import UTC, datetime

        from mem0.memory import main as mem0_main

        vectors = self.memory.embedding_model.embed_batch(texts)
        now = datetime.now(UTC).isoformat()
        payloads = [{"user_id": user_id, "data": t, "hash": hashlib.md5(t.encode()).hexdigest(), "created_at": now,
                     "updated_at": now, "text_lemmatized": mem0_main.lemmatize_for_bm25(t)} for t in texts]  # fmt: skip
        self.memory.vector_store.insert(vectors=vectors, ids=[str(uuid.uuid4()) for _ in texts], payloads=payloads)
        return len(texts)

    def search(self, user_id: str, query: str, limit: int) -> list[dict[str, Any]]:
        answer = self.memory.search(query, filters={"user_id": user_id}, top_k=limit)
        rows = answer.get("results", []) if isinstance(answer, dict) else answer
        return [{"id": str(r.get("id")), "memory": r.get("memory")} for r in rows]

    def list(self, user_id: str) -> list[dict[str, Any]]:
        answer = self.memory.get_all(filters={"user_id": user_id}, top_k=10000)
        rows = answer.get("results", []) if isinstance(answer, dict) else answer
        return [{"id": str(r.get("id")), "memory": r.get("memory"), "layer": "fact"} for r in rows]

    def close(self) -> None:
        close = getattr(self.memory, "close", None)
        if callable(close):
            close()


class _HyEmbedder:
    """hy-memory's six-method embedding service over the wire."""

    def __init__(self, wire: Wire, dim: int) -> None:
        self.wire, self.dim = wire, dim

    async def embed(self, text: str, use_cache: bool = True) -> list[float]:
        return self.wire.embed([text])[0]

    async def embed_with_meta(self, text: str, use_cache: bool = True) -> tuple[list[float], dict[str, Any]]:
        return self.wire.embed([text])[0], {}

    async def embed_batch(self, texts: list[str], use_cache: bool = True) -> list[list[float]]:
        return self.wire.embed(list(texts)) if texts else []

    async def embed_batch_with_meta(self, texts: list[str], use_cache: bool = True) -> tuple[list[Any], list[Any]]:
        return (self.wire.embed(list(texts)) if texts else []), [{} for _ in texts]

    async def embed_queued(self, text: str, use_cache: bool = True) -> list[float]:
        return self.wire.embed([text])[0]

    async def embed_queued_with_meta(self, text: str, use_cache: bool = True) -> tuple[list[float], dict[str, Any]]:
        return self.wire.embed([text])[0], {}

    def get_embedding_dims(self) -> int:
        return self.dim


class HyBackend:
    def __init__(self, wire: Wire, options: dict[str, Any]) -> None:
        folder, self.mode = str(options["dir"]), str(options.get("mode") or "lite")
        env = {"HOME": folder, "MEMORY_DATA_DIR": f"{folder}/data", "MEMORY_EMBEDDING_DIMS": str(options["dim"])}
        os.environ.update({**env, "OPENAI_API_KEY": "unused", "MEMORY_LLM_API_KEY": "unused"})
        from hy_memory import HyMemoryClient
        from hy_memory.agent import llm_provider

        async def chat_completions(provider: Any, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
            text = wire.chat(messages)
            return llm_provider.LLMResponse(content=text, model="benchmark-model", finish_reason="stop")

        llm_provider.LLMProvider._chat_completions = chat_completions
        self.client = HyMemoryClient(mode=self.mode, embedding_service=_HyEmbedder(wire, int(options["dim"])))

    def add(self, user_id: str, messages: list[dict[str, str]], when: str) -> dict[str, Any]:
        from datetime import datetime

        at = datetime.fromisoformat(when) if when else None
        answer = self.client.add(messages, user_id=user_id, memory_at=at, scene="chat")
        if not answer.get("success", True):
            raise RuntimeError(f"hy-memory add failed: {answer.get('error_code')} {answer.get('error_message')}")
        ops = answer.get("ops_summary") or {}
        events = ["ADD"] * int(ops.get("add", 0)) + ["SUPERSEDE"] * int(ops.get("supersede", 0))
        events += ["UPDATE"] * int(ops.get("update", 0))
        if self.mode == "lite":
            events = ["ADD"]
        return {"results": [{"event": e} for e in events]}

    def search(self, user_id: str, query: str, limit: int) -> list[dict[str, Any]]:
        answer = self.client.search(query, user_ids=[user_id], limit=limit)
        rows = answer.get("results") or answer.get("memories") or [] if isinstance(answer, dict) else []
        return [{"memory": r.get("content") or r.get("memory")} for r in rows if isinstance(r, dict)]

    def list(self, user_id: str) -> list[dict[str, Any]]:
        layers = ["l1_raw"] if self.mode == "lite" else None
        rows: list[dict[str, Any]] = []
        while True:
            page = self.client.list_memories(user_id=user_id, limit=100, offset=len(rows), layers=layers)
            found = (page.get("vdb") or {}).get("memories") or []
            rows += found
            if len(found) < 100:
                break
        return [{"id": str(r.get("memory_id") or r.get("id")), "memory": r.get("content") or r.get("memory"),
                 "layer": "L1" if str(r.get("layer", "")).startswith("l1") else "fact"} for r in rows]  # fmt: skip

    def close(self) -> None:
        self.client.close()


BACKENDS = {"fake": FakeBackend, "mem0": Mem0Backend, "hy": HyBackend}


def _serve(wire: Wire, backend: Any) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        try:
            if op == "add":
                result: Any = backend.add(request["user_id"], request["messages"], request.get("when") or "")
            elif op == "list":
                result = backend.list(request["user_id"])
            elif op == "fill":  # the speed benchmark's: memories straight into the peer's store
                result = backend.fill(request["user_id"], list(request["texts"]))
            elif op == "search":  # the speed benchmark's: the peer's own search
                result = backend.search(request["user_id"], request["query"], int(request.get("limit") or 10))
            elif op == "close":
                backend.close()
                wire.send({"ok": True, "result": None})
                return
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:  # the benchmark records it per case and goes on
            wire.send({"ok": False, "error": f"{type(exc).__name__}: {exc}"[:500]})
            continue
        wire.send({"ok": True, "result": result})


def main() -> None:
    wire = Wire()
    name, options = sys.argv[1], json.loads(sys.argv[2])
    try:
        backend = BACKENDS[name](wire, options)
    except Exception as exc:
        wire.send({"ok": False, "error": f"could not start {name}: {type(exc).__name__}: {exc}"[:500]})
        return
    wire.send({"ok": True, "result": "ready"})
    _serve(wire, backend)


if __name__ == "__main__":
    asyncio.set_event_loop(asyncio.new_event_loop())
    main()
