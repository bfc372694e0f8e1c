"""Start worker processes from one thread that lives as long as grill does.

bwrap's `--die-with-parent` (`PR_SET_PDEATHSIG`) fires when the *thread* that forked bwrap
ends, not the process. A worker launched from a short-lived thread (the app warms its sandbox
and grades in worker threads) was killed as soon as that thread finished, so every run paid a
fresh start. Launched from here, a worker dies with grill, and only then.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
from concurrent.futures import Future
from typing import Any

from checkers.sandbox.ending import ending
from checkers.sandbox.errors import SandboxError

_requests: queue.SimpleQueue[
    tuple[Future[subprocess.Popen[bytes]], tuple[Any, ...], dict[str, Any]]
]
_requests = queue.SimpleQueue()
_thread: threading.Thread | None = None
_thread_lock = threading.Lock()


def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(*args, **kwargs)`, run on the launcher thread."""
    global _thread
    with _thread_lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_serve, name="grill-sandbox-launcher", daemon=True)
            _thread.start()
    started: Future[subprocess.Popen[bytes]] = Future()
    _requests.put((started, args, kwargs))
    try:
        return started.result()
    except BaseException:  # a signal while waiting: the process may still come, and is nobody's
        started.add_done_callback(_kill_abandoned)
        raise


def _serve() -> None:
    while True:
        started, args, kwargs = _requests.get()
        try:
            if ending():  # a process started now would be nobody's
                raise SandboxError("grill is ending, so the sandbox does not start")
            started.set_result(subprocess.Popen(*args, **kwargs))
        except BaseException as exc:
            started.set_exception(exc)


KILL_WAIT_S = 2.0
"""How long a killed worker is waited for: SIGKILL is not refused, but a process in an
uninterruptible wait (a busy disk, memory being reclaimed) leaves later; grill does not wait."""


def kill_session(process: subprocess.Popen[bytes], wait_s: float = KILL_WAIT_S) -> None:
    """The worker leads its own session: kill all of it (bwrap takes its namespace along)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            pass


def _kill_abandoned(started: Future[subprocess.Popen[bytes]]) -> None:
    if started.exception() is None:
        kill_session(started.result())
