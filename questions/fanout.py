"""Run one function over many items on each core the machine lends this process.

Checking a card is pure CPU work (YAML, the model, Python's compiler) and cards are
independent, so a big pack is shared between this process and forked copies of it, which start
in milliseconds with everything already imported. Only where forking is safe and pays: on
Linux, from a process running a single thread (the app loads packs in a worker thread, and a
fork copies only the thread that calls it), with enough items to cover the forks' cost.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_ITEMS_PER_PROCESS = 100
"""Below this a process costs more to fork and to send results back from than it saves."""


def map_on_all_cores(function: Callable[..., Result], items: list[Item], *args: object) -> list[Result]:
    """`[function(item, *args) for item in items]`, in order; `function` must be a module-level function."""
    processes = _processes_for(len(items))
    if processes == 1:
        return [function(item, *args) for item in items]
    share = -(-len(items) // processes)  # this process's part; the forks take the rest
    with ProcessPoolExecutor(processes - 1, mp_context=multiprocessing.get_context("fork")) as pool:
        theirs = pool.map(function, items[share:], *(repeat(arg) for arg in args),
                          chunksize=max(1, (len(items) - share) // (4 * (processes - 1))))
        mine = [function(item, *args) for item in items[:share]]
        return mine + list(theirs)


def _processes_for(count: int) -> int:
    if sys.platform != "linux" or threading.active_count() > 1:
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), count // MIN_ITEMS_PER_PROCESS))
