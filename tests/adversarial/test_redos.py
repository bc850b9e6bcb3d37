"""Time budgets for the regular expressions that read user input: the work must grow linearly with the input.

Each check compares two input sizes 16x apart (a quadratic pattern costs 256x, a linear one 16x) and fails
above 64x, so it holds on a fast or a heavily loaded machine. The default suite covers the redactor (it sees
every field of every request); ``make test-slow`` covers every module-level pattern in memscribe on 1 MB."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from memscribe.core.redact import _PATTERNS, redact

from .regexes import SEEDS, build, module_patterns

QUICK_SEEDS = ["_", "a://b:", '"password": "', "password for a ", "-u a:", "otpauth://a?", "-----BEGIN PRIVATE KEY"]
LINEAR = 64  # the most a 16x larger input may cost


def _seconds(fn: Callable[[str], object], text: str, repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - started)
    return best


def growth(fn: Callable[[str], object], seed: str, small: int, large: int) -> tuple[float, float]:
    """(time at ``large``, how much longer than at ``small``): about large/small for linear work."""
    t_small = max(_seconds(fn, build(seed, small)), 1e-4)
    t_large = _seconds(fn, build(seed, large))
    return t_large, t_large / t_small


@pytest.mark.parametrize("seed", QUICK_SEEDS)
def test_the_redactor_is_linear(seed: str) -> None:
    t_large, ratio = growth(redact, seed, 16 * 1024, 256 * 1024)
    assert t_large < 0.05 or ratio < LINEAR, f"redact on {seed!r} grew {ratio:.1f}x for 16x the input"


def test_a_one_megabyte_message_is_redacted_in_linear_time() -> None:
    t_large, ratio = growth(redact, "my password is p4ss, mysql://u:p@h/db, sk-", 64 * 1024, 1024 * 1024)
    assert ratio < LINEAR, f"1 MB took {t_large:.2f}s, {ratio:.1f}x the time of 64 KB"


def _seeds_for(pattern: re.Pattern[str]) -> list[str]:
    """Generic adversarial seeds plus runs of the pattern's own literal characters."""
    literals = "".join(dict.fromkeys(ch for ch in re.sub(r"\\.|\[[^\]]*\]|\(\?[^)]*\)", "", pattern.pattern)
                                     if ch.isprintable() and ch not in "()[]{}*+?|^$"))  # fmt: skip
    own = [literals[:8], literals[:3]] if literals else []
    return [*dict.fromkeys([*own, *SEEDS[:12]])]


def _stepwise(pattern: re.Pattern[str], seed: str) -> str | None:
    """Grow the input fourfold up to 1 MB; stop at the first step that grows faster than linear (so a
    quadratic pattern fails in seconds instead of running for hours). Below 2 s at 1 MB nothing counts: a
    quadratic pattern takes minutes there, and a loaded machine's noise is larger than small timings.
    None when linear all the way."""
    def run(size: int, repeat: int) -> float:
        return _seconds(lambda s: pattern.sub("", s), build(seed, size), repeat=repeat)

    previous = None
    for size in (16 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024):
        took = run(size, 1)
        if previous is not None and took > 2.0 and took / max(previous, 1e-3) > 12:  # linear: 4x
            took, previous = run(size, 2), run(size // 4, 3)  # measured again: a busy machine is not a ReDoS
            if took > 2.0 and took / max(previous, 1e-3) > 12:
                return f"{seed!r}: {took:.2f}s at {size // 1024} KB, {took / previous:.0f}x the time at a quarter"
        previous = took
    return None


@pytest.mark.soak
@pytest.mark.parametrize(("name", "pattern"), module_patterns(), ids=[n for n, _ in module_patterns()])
def test_every_module_pattern_is_linear_on_a_megabyte(name: str, pattern: re.Pattern[str]) -> None:
    slow = [found for seed in _seeds_for(pattern) if (found := _stepwise(pattern, seed))]
    assert not slow, f"{name} ({pattern.pattern[:80]}) grows faster than linear: {slow}"


def test_the_redactor_patterns_are_all_collected() -> None:
    names = {id(p) for _, p in module_patterns()}
    assert all(id(p) in names for p in _PATTERNS)
