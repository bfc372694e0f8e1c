"""How long a test may wait, from how fast this machine runs now.

A fixed bound (a subprocess's `timeout=300`, Textual's 30 s wait for a screen) is either far too
long on a quiet machine or too short on a busy one: with both cores held and several suites
beside it, a process gets an eighth of a core, and a wait that takes 5 s here takes 40. So a
test states what a wait takes on a quiet machine, and `bound` makes it generous for one ten
times slower than this one is now, measured once per process by timing a fixed piece of work
against the time it takes here when the machine is quiet.
"""

from __future__ import annotations

import functools
import statistics
import time

MARGIN = 10.0
"""A bound allows for a machine this many times slower than the one measured."""
QUIET_WORK_S = 0.03
"""`_work()`'s wall time on this project's 2-core machine when it is quiet (its CPU time there)."""


def _work() -> int:
    return sum(i * i for i in range(500_000))


@functools.cache
def slowdown() -> float:
    """How many times slower than quiet this machine runs now (at least 1): the median of three
    timings of a fixed piece of pure-Python work."""
    timings = []
    for _ in range(3):
        start = time.perf_counter()
        _work()
        timings.append(time.perf_counter() - start)
    return max(1.0, statistics.median(timings) / QUIET_WORK_S)


def bound(quiet_s: float) -> float:
    """A timeout for a wait that takes `quiet_s` seconds on a quiet machine."""
    return quiet_s * MARGIN * slowdown()
