"""How a grill process ends on a signal: the same way whichever command line it came from,
within a bound.

The first SIGINT, SIGTERM or SIGHUP marks the process as ending (`ending()`), so that no
sandbox starts a worker from then on (a grading thread between two runs would otherwise start
a fresh one behind the stopping main thread, and its folder outlived the process), and every
stop is a kill, without a grace; then it raises, so `finally` blocks and exit handlers clean up.
A second one ends the process at once: what `at_once` registered runs (killing the workers'
process groups, removing their folders: no waits), then `os._exit`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

_ending = threading.Event()
_at_once: list[Callable[[], None]] = []


def ending() -> bool:
    """Whether this process has begun to end (a signal came, or its exit handlers run)."""
    return _ending.is_set()


def begin_ending() -> None:
    _ending.set()


def at_once(clean_up: Callable[[], None]) -> Callable[[], None]:
    """Run `clean_up` (quick, no waits) when a second signal ends the process at once; a
    decorator."""
    _at_once.append(clean_up)
    return clean_up


def end_at_once(status: int) -> None:
    for clean_up in _at_once:
        try:
            clean_up()
        except Exception:  # leaving now matters more
            pass
    os._exit(status)


@contextlib.contextmanager
def ending_cleanly() -> Iterator[None]:
    """SIGTERM (`kill`, a stopping service or CI job) and SIGHUP (a closed terminal) end the
    process as Ctrl-C does, by an exception (SystemExit), so `finally` blocks and atexit
    handlers run: the sandbox stops its worker and removes its temporary folder. Python's
    default ends the process on the spot. Ctrl-C still raises KeyboardInterrupt. A second
    signal of any of the three ends the process at once. A signal someone chose to ignore
    (`nohup`) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(number: int, frame: object) -> None:
        status = 128 + number  # the status a shell reports for a process the signal ended
        if ending():
            end_at_once(status)
        begin_ending()
        if number == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(status)

    replaced = {
        number: signal.signal(number, end)
        for number in ENDING_SIGNALS
        if signal.getsignal(number) is signal.SIG_DFL
    }
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        replaced[signal.SIGINT] = signal.signal(signal.SIGINT, end)
    try:
        yield
    finally:
        if not ending():  # else a second signal during the clean-up still ends it at once
            for number, handler in replaced.items():
                signal.signal(number, handler)
