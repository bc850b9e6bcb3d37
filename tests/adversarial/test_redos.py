"""The regular expressions that read user input must work in linear time (see ``growth``: CPU time, sizes
4x apart side by side, a median of interleaved pairs before a verdict, so it holds on a loaded machine).
The default suite covers the redactor (it sees every field of every request); ``make test-slow`` covers
every module-level pattern in memscribe on inputs up to 1 MB, and checks that the measurement itself still
catches a quadratic pattern."""

from __future__ import annotations

import re
import time

import pytest

from memscribe.core.redact import _PATTERNS, redact

from .growth import LINEAR, growth
from .regexes import SEEDS, build, module_patterns

QUICK_SEEDS = ["_", "a://b:", '"password": "', "password for a ", "-u a:", "otpauth://a?", "-----BEGIN PRIVATE KEY"]
QUICK_SIZES = (4 * 1024, 16 * 1024, 64 * 1024, 256 * 1024)


@pytest.mark.parametrize("seed", QUICK_SEEDS)
def test_the_redactor_is_linear(seed: str) -> None:
    found = growth(redact, lambda n: build(seed, n), QUICK_SIZES)
    assert found.linear, f"redact on {seed!r}: {found.describe()}"


def test_a_one_megabyte_message_is_redacted_in_linear_time() -> None:
    seed = "my password is p4ss, mysql://u:p@h/db, sk-"
    found = growth(redact, lambda n: build(seed, n), (64 * 1024, 256 * 1024, 1024 * 1024))
    assert found.linear, found.describe()


def _seeds_for(pattern: re.Pattern[str]) -> list[str]:
    """Generic adversarial seeds plus runs of the pattern's own literal characters."""
    literals = "".join(dict.fromkeys(ch for ch in re.sub(r"\\.|\[[^\]]*\]|\(\?[^)]*\)", "", pattern.pattern)
                                     if ch.isprintable() and ch not in "()[]{}*+?|^$"))  # fmt: skip
    own = [literals[:8], literals[:3]] if literals else []
    return [*dict.fromkeys([*own, *SEEDS[:12]])]


@pytest.mark.soak
@pytest.mark.parametrize(("name", "pattern"), module_patterns(), ids=[n for n, _ in module_patterns()])
def test_every_module_pattern_is_linear_on_a_megabyte(name: str, pattern: re.Pattern[str]) -> None:
    def scan(text: str) -> object:
        return pattern.sub("", text)

    slow = [f"{seed!r}: {found.describe()}" for seed in _seeds_for(pattern)
            if not (found := growth(scan, lambda n, seed=seed: build(seed, n))).linear]  # fmt: skip
    assert not slow, f"{name} ({pattern.pattern[:80]}) grows faster than linear: {slow}"


@pytest.mark.soak
@pytest.mark.parametrize(
    ("pattern", "seed"),
    [(r"<think>.*?</think>", "<think>"), (r"\s*x\s*$", " ")],
    ids=["lazy-unclosed", "trailing-space-run"],
)
def test_the_measurement_catches_a_quadratic_pattern(pattern: str, seed: str) -> None:
    compiled = re.compile(pattern, re.DOTALL)  # the shapes of two real bugs, on inputs small enough to be quick
    found = growth(lambda text: compiled.sub("", text), lambda n: build(seed, n), (1024, 4096, 16 * 1024))
    assert not found.linear, found.describe()


def _burn(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


@pytest.mark.soak
def test_a_one_time_step_in_cost_per_byte_is_no_super_linear_growth() -> None:
    def cache_step(text: str) -> None:  # linear, at three times the cost per byte from 256 KB on
        _burn(len(text) * (3e-7 if len(text) >= 256 * 1024 else 1e-7))

    found = growth(cache_step, lambda n: "a" * n, (16 * 1024, 64 * 1024, 256 * 1024))
    assert found.linear, found.describe()
    assert found.ratio > LINEAR  # the step was judged, and judged a step


def test_the_redactor_patterns_are_all_collected() -> None:
    names = {id(p) for _, p in module_patterns()}
    assert all(id(p) in names for p in _PATTERNS)
