"""How the cost of a function grows with its input, measured so that a busy machine cannot fake a ReDoS.

Times are the thread's CPU time (``time.thread_time``), which does not count the time spent waiting for a
core, and every verdict compares two sizes measured side by side: a 4x larger input costs about 4x for
linear work and 16x for quadratic work. A step is only judged past ``FLOOR`` seconds (below that a
constant cost or the timer dominates, and nothing that fast is a denial of service); a step over ``LINEAR``
is measured again as interleaved pairs and judged on the median ratio. A step still super-linear is judged
once more at the next size up, when that is affordable: a match that outgrows a CPU cache costs more per byte
once (a 10-13x step between 256 KB and 1 MB, then 4x again), while super-linear work keeps growing."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FLOOR", "LINEAR", "SIZES", "Growth", "cpu_seconds", "growth"]

# Each 4x the one before, from 1 KB (a quadratic pattern is caught while still fast) to 1 MB.
SIZES = (1024, 4 * 1024, 16 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024)
# The most a 4x larger input may cost: linear work costs 4x (up to ~9x when a big match outgrows the CPU
# caches), quadratic 16x.
LINEAR = 10.0
FLOOR = 0.02  # seconds of CPU at the larger size before a step is judged
PAIRS = 3  # interleaved pairs measured when a step looks super-linear
CONFIRM = 2.0  # the most CPU seconds the next size up may be expected to cost (16x) to confirm a step
# CPU seconds per byte past which an input fails at once, whatever its growth: 30 s per MB, ten times the
# whole redactor's cost (so a cubic pattern fails at 1 KB instead of running for hours).
PER_BYTE = 30e-6


@dataclass(frozen=True)
class Growth:
    """The verdict on one input family: the largest size reached, its CPU seconds, and the worst step."""

    size: int
    seconds: float
    ratio: float  # the worst judged step's cost ratio (0 when no step passed the floor)
    linear: bool

    def describe(self) -> str:
        return f"{self.seconds:.3f}s CPU at {self.size // 1024} KB, {self.ratio:.1f}x per 4x input"


def cpu_seconds(fn: Callable[[str], object], text: str) -> float:
    started = time.thread_time()
    fn(text)
    return time.thread_time() - started


def _median_ratio(fn: Callable[[str], object], small: str, large: str) -> float:
    ratios = []
    for i in range(PAIRS):  # alternate the order, so a change in load skews the pairs both ways
        if i % 2:
            t_large, t_small = cpu_seconds(fn, large), cpu_seconds(fn, small)
        else:
            t_small, t_large = cpu_seconds(fn, small), cpu_seconds(fn, large)
        ratios.append(t_large / max(t_small, 1e-6))
    return statistics.median(ratios)


def _levels_off(fn: Callable[[str], object], make: Callable[[int], str], size: int, took: float) -> bool:
    """Whether the step after a super-linear one is linear again (a cache step, not super-linear work)."""
    if took * 16 > CONFIRM:
        return False
    larger = 4 * size
    return cpu_seconds(fn, make(larger)) / max(cpu_seconds(fn, make(size)), 1e-6) <= LINEAR


def growth(fn: Callable[[str], object], make: Callable[[int], str], sizes: tuple[int, ...] = SIZES) -> Growth:
    """Grow the input step by step (so a quadratic function fails at a few KB in seconds instead of running
    for hours at 1 MB) and stop at the first step that is super-linear each time it is measured: once, then as
    interleaved pairs, then against the next size up."""
    previous = cpu_seconds(fn, make(sizes[0]))
    worst, took = 0.0, previous
    if previous > PER_BYTE * sizes[0]:
        return Growth(sizes[0], previous, 0.0, linear=False)
    for small, large in itertools.pairwise(sizes):
        took = cpu_seconds(fn, make(large))
        if took > PER_BYTE * large:
            return Growth(large, took, took / max(previous, 1e-6), linear=False)
        if took < FLOOR:
            previous = took
            continue
        ratio = took / max(previous, 1e-6)
        if ratio > LINEAR:
            ratio = _median_ratio(fn, make(small), make(large))
            if ratio > LINEAR and not _levels_off(fn, make, large, took):
                return Growth(large, took, ratio, linear=False)
        worst, previous = max(worst, ratio), took
    return Growth(sizes[-1], took, worst, linear=True)
