"""LLM writers: ``pro`` (one structured call per episode chunk), ``hybrid`` (the lite rules, with a model
labelling only the pairs they leave open) and protocol adapters for comparison.

Build one from a chat model::

    from memscribe.providers.presets import make_chat
    from memscribe.write.llm import make_llm_writer

    writer = make_llm_writer("pro", make_chat("vllm:Qwen/Qwen3-8B", base_url="http://gpu:8000/v1"))
    memory = Memory(path, writer=writer)

A writer's answer is a :class:`ProposedOps`: a list of operations for the engine, with ``rejections`` (every
refused operation and why) and ``usage`` (what the episode cost) attached.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memscribe.errors import ConfigError
from memscribe.providers.chat import ChatModel
from memscribe.write.llm.decode import ProposedOps, Rejection
from memscribe.write.llm.driver import WriterStats
from memscribe.write.llm.hybrid import HybridWriter
from memscribe.write.llm.pro import ProWriter
from memscribe.write.llm.protocols import HyMemoryProtocol, Mem0Protocol
from memscribe.write.ports import Writer

__all__ = [
    "LLM_WRITERS",
    "HyMemoryProtocol",
    "HybridWriter",
    "Mem0Protocol",
    "ProWriter",
    "ProposedOps",
    "Rejection",
    "WriterStats",
    "make_llm_writer",
    "make_pro_writer",
]

LLM_WRITERS: dict[str, Callable[..., Writer]] = {
    "pro": ProWriter,
    "hybrid": HybridWriter,
    "mem0-protocol": Mem0Protocol,
    "hy-protocol": HyMemoryProtocol,
}
"""Writer names that need a chat model, and their constructors ``(chat, **opts)``."""


def make_pro_writer(chat: ChatModel, **opts: Any) -> ProWriter:
    """The ``pro`` writer over ``chat``; ``opts`` as :class:`ProWriter` takes them."""
    return ProWriter(chat, **opts)


def make_llm_writer(name: str, chat: ChatModel, **opts: Any) -> Writer:
    """An LLM writer by name (``pro``, ``hybrid``, ``mem0-protocol``, ``hy-protocol``) over ``chat``."""
    try:
        factory = LLM_WRITERS[name]
    except KeyError:
        raise ConfigError(f"unknown LLM writer {name!r}; known: {', '.join(sorted(LLM_WRITERS))}") from None
    return factory(chat, **opts)
