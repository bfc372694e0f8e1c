"""Name the shape of a memory curve: flat, sawtooth, monotonic, or (on CUDA) fragmentation.

The curve is what the loop's memory did; whether a graph was kept is decided from the graph
census (see `checkers.judge`). Measurements are noisy, so every statistic here is robust:
the trend is a median of slopes between points half the window apart, and the noise is
the median absolute first difference. The first few samples are dropped as warm-up
(optimizer state and allocator pools appear during the first steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from statistics import median

from checkers.verdict import Pattern

FLOOR_BYTES = 16 * 1024
"""Changes smaller than this over the whole window count as flat (allocator granularity, noise)."""
MIN_SAMPLES = 8
"""Fewer samples (after warm-up) cannot separate a trend from a swing: no shape is named."""


@dataclass(frozen=True)
class Shape:
    pattern: Pattern | None
    growth_per_step: float
    """Robust trend of the series, in its unit per step."""


def warmup(n: int) -> int:
    return min(3, n // 5)


def classify(series: Sequence[float], floor: float = FLOOR_BYTES) -> Shape:
    """Classify one series (bytes per step).

    - flat: it moves less than `floor` or than its own step-to-step noise allows;
    - monotonic: it rises steadily, and never gives back much of what it gained;
    - sawtooth: it rises and falls back again (variable batch or sequence sizes, per-epoch
      buffers), with no trend that outgrows its swings.
    """
    values = list(series)[warmup(len(series)) :]
    if len(values) < MIN_SAMPLES:
        return Shape(None, 0.0)
    slope = trend(values)
    rise = slope * (len(values) - 1)
    spread = max(values) - min(values)
    noise = median(abs(b - a) for a, b in pairwise(values))
    if spread <= max(floor, 3 * noise):
        return Shape("flat", slope)
    if rise > max(floor, 0.5 * spread) and _largest_fall(values) < 0.5 * rise:
        return Shape("monotonic", slope)
    return Shape("sawtooth", slope)


def classify_cuda(allocated: Sequence[float], reserved: Sequence[float]) -> Shape:
    """Allocated bytes decide as above; a flat or sawtooth allocation whose reserved pool
    keeps climbing is fragmentation: the allocator cannot reuse its cached blocks."""
    shape = classify(allocated)
    pool = classify(reserved)
    if shape.pattern in ("flat", "sawtooth") and pool.pattern == "monotonic":
        return Shape("fragmentation", pool.growth_per_step)
    return shape


def trend(values: Sequence[float]) -> float:
    """Median slope between each point and the one half the window later."""
    half = len(values) // 2
    if half == 0:
        return 0.0
    return median((values[i + half] - values[i]) / half for i in range(len(values) - half))


def _largest_fall(values: Sequence[float]) -> float:
    """The deepest drop below an earlier peak (how much the curve ever gave back)."""
    peak, fall = values[0], 0.0
    for value in values:
        peak = max(peak, value)
        fall = max(fall, peak - value)
    return fall
