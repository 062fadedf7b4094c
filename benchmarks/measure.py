"""Repeated timing: medians and 95th percentiles of samples taken in this run."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Samples:
    """Seconds per repeat, in the order taken."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def p95(self) -> float:
        ordered = sorted(self.values)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

    @property
    def peak(self) -> float:
        return max(self.values)


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def repeat(sample: Callable[[], float], repeats: int, warmup: int = 1) -> Samples:
    """Call `sample` (which returns the seconds it measured) `warmup` times unrecorded, then `repeats` times."""
    for _ in range(warmup):
        sample()
    return Samples(tuple(sample() for _ in range(repeats)))


def interleaved(samples: dict[str, Callable[[], float]], repeats: int, warmup: int = 1) -> dict[str, Samples]:
    """Alternate between the named samplers each round, so machine noise hits measurement and baseline alike."""
    for _ in range(warmup):
        for sample in samples.values():
            sample()
    taken: dict[str, list[float]] = {name: [] for name in samples}
    for _ in range(repeats):
        for name, sample in samples.items():
            taken[name].append(sample())
    return {name: Samples(tuple(values)) for name, values in taken.items()}
