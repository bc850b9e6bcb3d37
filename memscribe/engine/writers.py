"""Writers by name. Built-ins are registered the same way a plugin would register its own; writers that
need a model get one from ``chat_factory`` (built from ``MemoryConfig.llm``), called only when used."""

from __future__ import annotations

from collections.abc import Callable

from memscribe.errors import ConfigError
from memscribe.providers.chat import ChatModel
from memscribe.write.ports import Writer

__all__ = ["LLM_WRITER_NAMES", "available_writers", "make_writer", "register_writer"]

_FACTORIES: dict[str, Callable[[], Writer]] = {}


def register_writer(name: str, factory: Callable[[], Writer]) -> None:
    _FACTORIES[name] = factory


def available_writers() -> list[str]:
    return sorted(_FACTORIES)


LLM_WRITER_NAMES = ("pro", "ultra", "hybrid", "mem0-protocol", "hy-protocol")


def make_writer(name: str, *, chat_factory: Callable[[], ChatModel] | None = None) -> Writer:
    if name in LLM_WRITER_NAMES:
        if chat_factory is None:
            raise ConfigError(f"writer {name!r} needs a model: set llm='provider:model' (e.g. 'vllm:Qwen/Qwen3-8B')")
        from memscribe.scenes import SceneWriter
        from memscribe.write.llm import make_llm_writer

        chat = chat_factory()
        inner = make_llm_writer("pro" if name == "ultra" else name, chat)
        writer: Writer = SceneWriter(inner, chat, name=name)
        return writer
    try:
        factory = _FACTORIES[name]
    except KeyError:
        known = sorted({*available_writers(), *LLM_WRITER_NAMES})
        raise ConfigError(f"unknown writer {name!r}; known: {', '.join(known)}") from None
    return factory()


def _raw() -> Writer:
    from memscribe.write.raw import RawWriter

    return RawWriter()


def _lite() -> Writer:
    # Scene routing in front: chat goes to the lite rules, tool-call episodes to working/coding memory.
    from memscribe.scenes import SceneWriter
    from memscribe.write.lite import LiteWriter

    writer: Writer = SceneWriter(LiteWriter(), name="lite")
    return writer


register_writer("raw", _raw)
register_writer("lite", _lite)
