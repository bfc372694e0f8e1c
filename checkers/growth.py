"""Does kept graph keep accumulating as training goes on, or does it stay within a bound?

Pure analysis, no torch. A series counts, per generation (see `checkers.ledger`), how many
earlier generations' graphs were still alive past their last use (dead weight), or, per
backward pass, how many earlier passes' graphs it ran through again (reach). Both are small
and flat for a loop that keeps nothing.

A *window* is a stretch where the series climbs at least MIN_CLIMB above its floor, ending
where it falls back (released) or at the end of the run. A bounded window repeats: gradient
accumulation, critic iterations, episodes, truncated BPTT chunks, a list cleared every ten
steps, an epoch total reset every epoch all climb to about the same height again and again.
Growth climbs once: the highest window is reached by no other, whether it runs to the end of
the run (a list that keeps every loss, a late leak, an evaluation pass after training) or was
released once (a phase that kept its losses until it ended). So the run is judged by its
whole trend, not by an allowed age derived from one loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MIN_CLIMB = 3
"""Generations (or passes) above the floor before a climb counts: one kept loss, a best-so-far
value and a validation output kept until the next evaluation do not make a window."""
REPEAT_SHARE = 0.8
"""A window repeats the highest one when it climbs at least this share of its height."""
FLOOR_QUANTILE = 0.1


@dataclass(frozen=True)
class Window:
    start: int
    """First bucket of the climb."""
    end: int
    """Last bucket: where it was released, or the last bucket of the run."""
    height: int
    """Generations above the floor at its highest."""
    peak: int
    """Generations at its highest."""
    released: bool
    """It fell back before the run ended."""


@dataclass(frozen=True)
class Growth:
    growing: Window | None
    """The climb no other window matches: the run keeps accumulating graph (a leak)."""
    bounded: Window | None
    """Else the highest of the windows that repeat, for a note on a clean run."""
    repeats: int
    """How many windows climbed about as high as the highest."""


def analyse(lows: Sequence[int], highs: Sequence[int]) -> Growth:
    """Judge a bucketed series: per bucket, the lowest and highest value it held."""
    if not highs:
        return Growth(None, None, 0)
    floor = sorted(lows)[int(FLOOR_QUANTILE * (len(lows) - 1))]
    windows = find_windows(lows, highs, floor)
    if not windows:
        return Growth(None, None, 0)
    highest = max(windows, key=lambda w: (w.height, -w.start))
    repeats = sum(1 for w in windows if w.height >= REPEAT_SHARE * highest.height)
    if repeats >= 2:
        return Growth(None, highest, repeats)
    return Growth(highest, None, 1)


def find_windows(lows: Sequence[int], highs: Sequence[int], floor: int) -> list[Window]:
    """Stretches that rise at least MIN_CLIMB above `floor`, split where the series is back
    within one of it. A bucket that is back near the floor but also climbed (a coarse bucket
    holding a whole window) is a window of its own, or the end of the one before it."""
    near = floor + 1
    windows, index, count = [], 0, len(highs)
    while index < count:
        if lows[index] <= near:
            if highs[index] - floor >= MIN_CLIMB:
                windows.append(Window(index, index, highs[index] - floor, highs[index], True))
            index += 1
            continue
        end = index
        while end < count and lows[end] > near:
            end += 1
        released = end < count
        last = end if released else end - 1  # the bucket where it fell back holds its peak too
        peak = max(highs[index:last + 1])
        if peak - floor >= MIN_CLIMB:
            windows.append(Window(index, last, peak - floor, peak, released))
        index = last + 1
    return windows
