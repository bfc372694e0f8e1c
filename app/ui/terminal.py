"""Run the app in the user's terminal, end it cleanly on a signal, and end it when that
terminal goes away.

SIGTERM, SIGHUP or SIGINT (`kill -INT`: in the app Ctrl+C is a key) while the app runs asks
the app to exit, as `q` does, from the event loop, and marks the process as ending (the
sandbox then kills its worker without a grace, and starts none again):
raising at whatever bytecode the signal lands on (as `ending_cleanly` does for the other
commands) left asyncio to print a task's SystemExit traceback on the user's terminal. And once
the app is ending, nothing resumes it: Textual's SIGCONT handler (left in place for the life of
the process) would otherwise switch the terminal back to the app's screen, or fail with no event
loop, when a SIGCONT follows the SIGTERM, as `timeout`, systemd and a shell's `kill` of a
stopped job all send.

A terminal can hang up without SIGHUP reaching grill: under `make run` the signal goes to make,
and an SSH session can drop behind a wrapper. Textual's input thread then reads end-of-file in a
loop at full CPU and its writer stalls on the dead terminal (Textual pull request 6690, open),
so grill would live on forever. A watcher notices the hang-up and ends grill as a hang-up
signal does, so the sandbox and the history close as usual; if the shutdown itself sticks on
the dead terminal, the process leaves after a grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import termios
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from checkers.sandbox.ending import ENDING_SIGNALS, begin_ending, end_at_once

if TYPE_CHECKING:
    from app.ui.app import GrillApp

POLL_SECONDS = 1.0
GRACE_SECONDS = 5.0

ran: list[GrillApp] = []
"""The apps that ran in this process's terminal and have closed (their history and sandbox
closed too): once one has, the process can leave without tearing its interpreter down."""


NO_TERMINAL_STATUS = 2
"""A usage error: the app was started where it cannot be used."""


def run_in_terminal(app: GrillApp) -> None:
    """Run the app; after an ending signal, leave with the status a shell reports for it.

    Without a terminal on standard input and output (`grill </dev/null`, `grill <&-`, a
    pipe, a cron job) the app could neither read a key nor draw (Textual spins on end-of-file,
    or fails with a traceback), so it refuses in one line, exit status 2."""
    missing = [name for fd, name in ((0, "input"), (1, "output")) if not os.isatty(fd)]
    if missing:
        print(
            f"grill: the app needs a terminal, and standard {' and '.join(missing)}"
            f" {'is' if len(missing) == 1 else 'are'} not one; run it in a terminal"
            " (`grill --help` lists the commands that need none)",
            file=sys.stderr,
        )
        raise SystemExit(NO_TERMINAL_STATUS)
    watch_terminal(sys.__stdin__.fileno() if sys.__stdin__ else -1)
    with ending_through(app) as ended:
        app.run()
    ran.append(app)
    if ended:
        raise SystemExit(128 + ended[0])


@contextlib.contextmanager
def ending_through(app: GrillApp) -> Iterator[list[int]]:
    """While the app runs, an ending signal asks it to exit from its event loop; yields the
    signals that came. A second one, or one before the loop runs or after it stopped, raises
    SystemExit at once. A signal someone chose to ignore (`nohup`) stays ignored."""
    ended: list[int] = []

    def end(number: int, frame: object) -> None:
        stop_resuming()
        begin_ending()  # the sandbox closes without a grace, and starts no worker again
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or ended:
            raise SystemExit(128 + number)
        ended.append(number)
        loop.call_soon_threadsafe(app.exit, None, 128 + number)

    replaced = {
        number: signal.signal(number, end)
        for number in (*ENDING_SIGNALS, signal.SIGINT)
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    try:
        yield ended
    finally:
        stop_resuming()
        for number, handler in replaced.items():
            signal.signal(number, handler)


def stop_resuming() -> None:
    """Job control back to the system's own: an app that has stopped, or is stopping, is not
    to be switched back on by a SIGCONT."""
    for number in (signal.SIGCONT, signal.SIGTSTP):
        signal.signal(number, signal.SIG_DFL)


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
    end_at_once(128 + signal.SIGHUP)  # the shutdown is stuck writing to the dead terminal


def _attached(fd: int) -> bool:
    """A terminal that hung up answers every request with EIO (reads just see end of file)."""
    try:
        termios.tcgetattr(fd)
    except termios.error:
        return False
    return True
