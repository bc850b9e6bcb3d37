"""The same conversations typed another way: ``bench natural --variant``.

A writer whose rules fit the way a data set happens to be typed loses when people type otherwise. Each variant
rewrites the people's messages mechanically — nothing is added, no answer moves — and leaves the assistant's
messages, the probes and the expected values as they are (matching is case-insensitive):

* ``lowercase``: everything in lower case ("moved to turin with my boyfriend jake");
* ``no-apostrophes``: apostrophes dropped ("Im", "didnt", "were in Cambridge now");
* ``run-on``: a sentence's closing period or exclamation mark after a word dropped, sentences run together;
* ``no-emoji``: emoji removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from memscribe.core.text import EMOJI
from memscribe.errors import InvalidInput

if TYPE_CHECKING:
    from memscribe.bench.natural import NaturalScenario

__all__ = ["VARIANTS", "typed_as"]

_APOSTROPHE = re.compile(r"['’]")
_SENTENCE_END = re.compile(r"(?<=[a-z])[.!]+\s+")
_EMOJI = re.compile(EMOJI)

VARIANTS: dict[str, Callable[[str], str]] = {
    "as-written": lambda text: text,
    "lowercase": str.lower,
    "no-apostrophes": lambda text: _APOSTROPHE.sub("", text),
    "run-on": lambda text: _SENTENCE_END.sub(" ", text),
    "no-emoji": lambda text: _EMOJI.sub("", text),
}


def typed_as(scenarios: Sequence[NaturalScenario], variant: str) -> list[NaturalScenario]:
    """``scenarios`` with every user message rewritten by ``variant`` (see the module docstring)."""
    rewrite = VARIANTS.get(variant)
    if rewrite is None:
        raise InvalidInput(f"variant: expected one of {', '.join(VARIANTS)}, not {variant!r}")
    if variant == "as-written":
        return list(scenarios)
    out = []
    for scenario in scenarios:
        episodes = tuple(
            (when, tuple({**m, "content": rewrite(m["content"])} if m.get("role") == "user" else m for m in messages))
            for when, messages in scenario.episodes
        )
        out.append(replace(scenario, episodes=episodes))
    return out
