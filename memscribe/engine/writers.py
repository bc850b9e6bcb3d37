"""Writers by name. Built-ins are registered the same way a plugin would register its own."""

from __future__ import annotations

from collections.abc import Callable

from memscribe.errors import ConfigError
from memscribe.write.ports import Writer

__all__ = ["available_writers", "make_writer", "register_writer"]

_FACTORIES: dict[str, Callable[[], Writer]] = {}


def register_writer(name: str, factory: Callable[[], Writer]) -> None:
    _FACTORIES[name] = factory


def available_writers() -> list[str]:
    return sorted(_FACTORIES)


def make_writer(name: str) -> Writer:
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ConfigError(f"unknown writer {name!r}; known: {', '.join(available_writers())}") from None
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
