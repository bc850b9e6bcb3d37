"""The one port every history source implements, and the entry-point registry that finds them.

A source is any object with a ``name``, a ``title``, ``discover(env)`` and ``read(item)``. Built-in sources
are registered through the ``memscribe.hub_sources`` entry-point group in memscribe's own package metadata,
exactly as a third-party package registers one::

    [project.entry-points."memscribe.hub_sources"]
    my-tool = "my_package.hub:MyToolSource"

The entry point names a class (called with no arguments) or a ready instance.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from memscribe.errors import ConfigError
from memscribe.hub.model import HubEnv, ReadResult, Resume, SourceFile

__all__ = [
    "ENTRY_POINT_GROUP",
    "HubSource",
    "IncrementalSource",
    "available_sources",
    "load_source",
    "register_source",
]

ENTRY_POINT_GROUP = "memscribe.hub_sources"


@runtime_checkable
class HubSource(Protocol):
    """Reads one tool's history. ``discover`` lists what exists; ``read`` parses one item completely.

    ``read`` must not write to the tool's files or take locks on its databases, must skip and count record
    types it does not know, and must ignore a last line that is still being written.
    """

    name: str
    title: str

    def discover(self, env: HubEnv) -> Iterable[SourceFile]: ...

    def read(self, item: SourceFile) -> ReadResult: ...


@runtime_checkable
class IncrementalSource(HubSource, Protocol):
    """A source whose databases can be read from where the last read stopped.

    ``read_since(item, since)`` returns only what is past ``since.mark`` (rows with a higher row id,
    sequence or update time) and key-value rows whose content digest is not in ``since.digests``, with the
    new mark and the digests of what it read. The hub stores both only once every turn of the read is
    imported, so a run killed half way reads the same rows again. ``read(item)`` stays a complete read.
    """

    def read_since(self, item: SourceFile, since: Resume) -> ReadResult: ...


_EXTRA: dict[str, HubSource] = {}


def register_source(source: HubSource) -> None:
    """Add a source at run time (tests, embedding apps); entry points are the persistent way."""
    _EXTRA[source.name] = source


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_sources() -> list[str]:
    """Every registered source name, built-in and third-party, sorted."""
    return sorted({*_entry_points(), *_EXTRA})


def load_source(name: str) -> HubSource:
    """The source registered as ``name``; ConfigError naming the known ones when there is none."""
    if name in _EXTRA:
        return _EXTRA[name]
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        known = ", ".join(available_sources()) or "none (is memscribe installed?)"
        raise ConfigError(f"unknown hub source {name!r}; known: {known}")
    target = found[0].load()
    source = target() if isinstance(target, type) else target
    if not isinstance(source, HubSource) or source.name != name:
        raise ConfigError(f"entry point {name!r} ({found[0].value}) is not a hub source named {name!r}")
    return source
