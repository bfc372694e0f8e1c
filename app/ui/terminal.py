"""Run the app in the user's terminal, and end it when that terminal goes away.

A terminal can hang up without SIGHUP reaching grill: under `make run` the signal goes to make,
and an SSH session can drop behind a wrapper. Textual's input thread then reads end-of-file in a
loop at full CPU and its writer stalls on the dead terminal (Textual pull request 6690, open),
so grill would live on forever. A watcher notices the hang-up and ends grill as a hang-up
signal does, so the sandbox and the history close as usual; if the shutdown itself sticks on
the dead terminal, the process leaves after a grace period.
"""

from __future__ import annotations

import os
import signal
import sys
import termios
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.ui.app import GrillApp

POLL_SECONDS = 1.0
GRACE_SECONDS = 5.0

ran: list[GrillApp] = []
"""The apps that ran in this process's terminal and have closed (their history and sandbox
closed too): once one has, the process can leave without tearing its interpreter down."""


def run_in_terminal(app: GrillApp) -> None:
    watch_terminal(sys.__stdin__.fileno() if sys.__stdin__ else -1)
    app.run()
    ran.append(app)


def watch_terminal(
    fd: int, *, poll_seconds: float = POLL_SECONDS, grace_seconds: float = GRACE_SECONDS
) -> threading.Thread | None:
    """Watch the terminal on `fd` from a daemon thread; None where `fd` is no terminal."""
    if fd < 0 or not os.isatty(fd):
        return None
    thread = threading.Thread(
        target=_watch,
        args=(fd, poll_seconds, grace_seconds),
        name="grill-terminal-watch",
        daemon=True,
    )
    thread.start()
    return thread


def _watch(fd: int, poll_seconds: float, grace_seconds: float) -> None:
    while _attached(fd):
        time.sleep(poll_seconds)
    os.kill(os.getpid(), signal.SIGHUP)  # what a hang-up that reached us would have done
    time.sleep(grace_seconds)
    os._exit(128 + signal.SIGHUP)  # the shutdown is stuck writing to the dead terminal


def _attached(fd: int) -> bool:
    """A terminal that hung up answers every request with EIO (reads just see end of file)."""
    try:
        termios.tcgetattr(fd)
    except termios.error:
        return False
    return True
