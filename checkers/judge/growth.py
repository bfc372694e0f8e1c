"""Does kept graph keep accumulating as training goes on, or does it stay within a bound?

Pure analysis, no torch. A series counts, per generation (see `checkers.measure.ledger`), how many
earlier generations' graphs were still alive past their last use (dead weight), or, per
backward pass, how many earlier passes' graphs it ran through again (reach). Both are small
and flat for a loop that keeps nothing.

A *window* is a stretch where the series climbs at least MIN_CLIMB above its floor, ending
where it falls back (released) or at the end of the run. The run keeps accumulating graph
when a loop's passes are held whole (`held_whole`: an epoch total reset every epoch, a meter
reset every epoch, epoch outputs cleared at epoch end), or when its highest window
- is not repeated: bounded windows (gradient accumulation, critic iterations, episodes,
  truncated BPTT chunks, a list cleared every ten steps) climb to about the same height
  again and again;
- does not rotate: a kept set of fixed size (a deque with maxlen, a replay buffer with a
  capacity, a window trimmed with pop(0)) stops rising and then lets old graphs go as new
  ones come;
- and climbs for a real share of the run (GROWTH_SHARE of its generations), or climbs from
  the first iteration of a loop to the end of the run (an evaluation pass after training
  that keeps its outputs): a few graphs kept once near the end do not make a trend.
Such a climb is growth whether it runs to the end (a list that keeps every loss, a late
leak) or was released once (a phase that kept its losses until it ended).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkers.measurements import HeldPass

MIN_CLIMB = 3
"""Generations (or passes) above the floor before a climb counts: one kept loss, a best-so-far
value and a validation output kept until the next evaluation do not make a window."""
REPEAT_SHARE = 0.8
"""A window repeats the highest one when it climbs at least this share of its height."""
GROWTH_SHARE = 0.2
"""The least share of the run's generations a climb must last to be a trend. A late phase
that keeps every step's graph and a fixed number of graphs kept just before the end look
alike in one run; this errs towards calling both a leak, the mistake that costs less."""
FLOOR_QUANTILE = 0.1


@dataclass(frozen=True)
class Window:
    start: int
    """First bucket above the floor."""
    end: int
    """Last bucket: where it was released, or the last bucket of the run."""
    height: int
    """Generations above the floor at its highest."""
    peak: int
    """Generations at its highest."""
    released: bool
    """It fell back before the run ended."""
    climb_start: int = 0
    """The first bucket of the rise that led to it."""
    top: int = 0
    """First bucket within a tenth (or one) of its peak: after it the window rises no more."""


@dataclass(frozen=True)
class Growth:
    growing: Window | None
    """The climb that is a trend: the run keeps accumulating graph (a leak)."""
    bounded: Window | None
    """Else the highest window, for a note on a clean run."""
    repeats: int
    """How many windows climbed about as high as the highest."""


def analyse(
    lows: Sequence[int],
    highs: Sequence[int],
    releases: Sequence[int] = (),
    loops: Sequence[int] = (),
) -> Growth:
    """Judge a bucketed series: per bucket, the lowest and highest value it held, how many
    kept generations were let go in it, and the loop whose tick opened it."""
    if not highs:
        return Growth(None, None, 0)
    floor = sorted(lows)[int(FLOOR_QUANTILE * (len(lows) - 1))]
    windows = find_windows(lows, highs, floor)
    if not windows:
        return Growth(None, None, 0)
    highest = max(windows, key=lambda w: (w.height, -w.start))
    repeats = sum(1 for w in windows if w.height >= REPEAT_SHARE * highest.height)
    if repeats < 2 and is_trend(highest, len(highs), releases, loops):
        return Growth(highest, None, 1)
    return Growth(None, highest, repeats)


def is_trend(window: Window, buckets: int, releases: Sequence[int], loops: Sequence[int]) -> bool:
    """Whether one window is growth rather than a kept set of bounded size (module docstring)."""
    climb = window.top - window.climb_start + 1
    last = window.end if window.released else window.end + 1  # the final release is not rotation
    plateau = last - window.top - 1
    if plateau >= max(MIN_CLIMB, climb // 2) and any(releases[window.top + 1 : last]):
        return False  # it stopped rising and lets old graphs go as new ones come
    start = window.climb_start
    opens_a_loop = (
        bool(loops)
        and start > 1
        and loops[start] != loops[start - 1]
        and 0 not in (loops[start], loops[start - 1])
    )
    return climb / buckets >= GROWTH_SHARE or (not window.released and opens_a_loop)


def find_windows(lows: Sequence[int], highs: Sequence[int], floor: int) -> list[Window]:
    """Stretches that rise at least MIN_CLIMB above `floor`, split where the series is back
    within one of it. A bucket that is back near the floor but also climbed (a coarse bucket
    holding a whole window) is a window of its own, or the end of the one before it."""
    near = floor + 1
    windows, index, count = [], 0, len(highs)
    while index < count:
        if lows[index] <= near:
            if highs[index] - floor >= MIN_CLIMB:
                windows.append(
                    Window(index, index, highs[index] - floor, highs[index], True, index, index)
                )
            index += 1
            continue
        end = index
        while end < count and lows[end] > near:
            end += 1
        released = end < count
        last = end if released else end - 1  # the bucket where it fell back holds its peak too
        part = highs[index : last + 1]
        peak = max(part)
        if peak - floor >= MIN_CLIMB:
            near_peak = peak - max(
                1, (peak - floor) // 10
            )  # the run's last graph is alive at its end
            top = index + next(i for i, value in enumerate(part) if value >= near_peak)
            windows.append(
                Window(index, last, peak - floor, peak, released, climb_start(lows, index), top)
            )
        index = last + 1
    return windows


def climb_start(lows: Sequence[int], start: int) -> int:
    """Back from a window's first bucket along the rise that led to it, to its first rising
    bucket (the one after the level it rose from)."""
    first = start
    while first > 0 and lows[first - 1] < lows[first]:
        first -= 1
    return first + 1 if first < start else start


def held_whole(entries: Sequence[HeldPass]) -> HeldPass | None:
    """The loop whose passes were held whole (`checkers.measure.grade.held_passes`), longest
    first: from a pass's first iteration until the loop exits, nearly every iteration's graph
    was still alive, past its last use. Such a climb is not bounded by the code: its height
    is the loop's trip count (an epoch's batches), so the run keeps accumulating graph as the
    data grows, however often an enclosing loop lets it go. Graph a later backward runs
    through is never in it (its key is that later use), so a loss summed over a whole epoch
    and backpropagated at its end is not a held pass."""
    held = [entry for entry in entries if entry["held_passes"] and entry["held"] >= MIN_CLIMB]
    return max(held, key=lambda entry: entry["held"], default=None)
