"""How a grill process ends on a signal: the same way whichever command line it came from."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def ending_cleanly() -> Iterator[None]:
    """SIGTERM (`kill`, a stopping service or CI job) and SIGHUP (a closed terminal) end the
    process as Ctrl-C does, by an exception, so `finally` blocks and atexit handlers run: the
    sandbox stops its worker and removes its temporary folder. Python's default ends the process
    on the spot. A signal someone chose to ignore (`nohup`) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(number: int, frame: object) -> None:
        raise SystemExit(128 + number)  # the status a shell reports for a process the signal ended

    replaced = {
        number: signal.signal(number, end)
        for number in ENDING_SIGNALS
        if signal.getsignal(number) is signal.SIG_DFL
    }
    try:
        yield
    finally:
        for number, handler in replaced.items():
            signal.signal(number, handler)
