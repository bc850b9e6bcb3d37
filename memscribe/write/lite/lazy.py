"""Regular expressions compiled on first use.

The lite writer holds a few hundred patterns; compiling them costs a few hundred milliseconds, which must
not land on ``import memscribe`` (budget: 150 ms). Each pattern compiles the first time it is used, so an
application that never writes never pays, and the first episodes pay once (about 130 ms in all), unless
:func:`compile_declared` ran first (``Memory.warm_up``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["LazyPattern", "compile_declared", "lazy"]


class LazyPattern:
    """A stand-in for ``re.Pattern[str]`` that compiles itself when first matched."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None
        _DECLARED.append(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def match(self, string: str) -> re.Match[str] | None:
        return self.compiled.match(string)

    def search(self, string: str) -> re.Match[str] | None:
        return self.compiled.search(string)

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string)

    def findall(self, string: str) -> list[Any]:
        return self.compiled.findall(string)

    def split(self, string: str) -> list[str]:
        return self.compiled.split(string)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count=count)


_DECLARED: list[LazyPattern] = []  # every pattern declared so far (module constants: the list stays small)


def compile_declared() -> int:
    """Compile every pattern declared so far that is not compiled yet; returns how many were."""
    fresh = [p for p in _DECLARED if p._compiled is None]
    for pattern in fresh:
        pattern.compiled  # noqa: B018 - compiles and keeps it
    return len(fresh)


def lazy(source: str, flags: int = 0) -> LazyPattern:
    """Declare a pattern now, compile it on first use."""
    return LazyPattern(source, flags)
