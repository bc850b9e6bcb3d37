"""Configuration objects. The library takes these and never reads the environment, with one exception
the public contract asks for: ``MEMSCRIBE_HOME`` picks the default store location for ``Memory()``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_DB_NAME", "MemoryConfig", "default_home"]

DEFAULT_DB_NAME = "memscribe.db"


def default_home() -> Path:
    """``$MEMSCRIBE_HOME`` or the platform's user data directory. Nothing is created here."""
    env = os.environ.get("MEMSCRIBE_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("memscribe", appauthor=False)


@dataclass(frozen=True)
class MemoryConfig:
    """How a Memory is put together. Every field has a working local default."""

    path: Path | None = None  # the SQLite file; default: <home>/memscribe.db
    tenant: str = "default"
    writer: str = "lite"  # raw | lite | pro | ultra | mem0-protocol | hy-protocol (the last four need ``llm``)
    embedder: str = "local"  # "local" (MiniLM int8 ONNX), "e5" (multilingual) or "hash" (deterministic fake)
    vectors: str = "local"  # the vector index: "local", "faiss", "qdrant+local", "qdrant://host:6333", ...
    vectors_api_key: str | None = field(default=None, repr=False)  # a Qdrant or Chroma server's key
    lock_timeout: float = 60.0
    max_retries: int = 3  # re-plans of an episode when a concurrent write changed its candidates
    llm: str | None = None  # "provider:model", e.g. "vllm:Qwen/Qwen3-8B", "ollama:qwen3:8b", "openai:gpt-4.1-mini"
    llm_base_url: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_options: Mapping[str, Any] = field(default_factory=dict)  # adapter options: timeout, retry, ...
    consolidation: bool = False  # run consolidation in the background (ultra); consolidate() works regardless
    consolidate_every: int = 50  # ... after this many new memories in a partition
    consolidate_idle_seconds: float = 300.0  # ... or once writes have been idle this long

    def resolved_path(self) -> Path:
        return self.path if self.path is not None else default_home() / DEFAULT_DB_NAME
