"""`grill task watch`'s loop: grade a file again each time it is saved, on one warm worker.

The file is read every `POLL_S` (a fix is a few kilobytes), which sees every way an editor
saves (in place, or a new file renamed over the old one, as vim and VS Code do) without a
dependency or a platform's own notification API; an unchanged text is not graded again. Grading
runs in one background thread; a save made while a run is going on cancels that run, whose
verdict would be for code that is gone, and grades the new text instead.

Headless: what is graded and how it is shown are handed in, so tests need neither torch nor a
terminal.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from checkers.api import MAX_SNIPPET_BYTES, UsageError, read_fix
from checkers.inputs import FileRefused, read_file
from checkers.verdict import Verdict

POLL_S = 0.05
"""How often the file is looked at: a save is seen within this, at a negligible cost."""
RETRIES = 3
CANCELLED = "the run was cancelled"
"""The sandbox's words for a run cancelled (`checkers.sandbox.parent`)."""
GONE_AFTER_S = 1.0
"""A file missing for longer than this is reported; an editor's rename leaves it missing for
a moment only."""


@dataclass(frozen=True)
class Grading:
    """A new text is being graded; `again` when it replaced a run still going on."""

    again: bool


@dataclass(frozen=True)
class Graded:
    source: str
    verdict: Verdict
    seconds: float
    """From the save being seen to the verdict."""


@dataclass(frozen=True)
class Unusable:
    """The file as saved cannot be graded (empty, does not parse, gone...): one line why."""

    message: str


@dataclass(frozen=True)
class Failed:
    """Grading itself failed: a fault of grill's own."""

    message: str


Event = Grading | Graded | Unusable | Failed


def look(path: Path) -> bytes | tuple[int, ...] | None:
    """What the file is now, to notice a save by: the bytes of a file small enough to be a fix
    (times alone miss two saves of the same length within the file system's clock tick), else
    its status; None when it is missing."""
    try:
        return read_file(path, role="a fix", cap=MAX_SNIPPET_BYTES)
    except FileRefused:
        pass  # not a plain file, or too large: its status tells a change
    except OSError:
        return None
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_mode, status.st_ino, status.st_size, status.st_mtime_ns)


class Watch:
    """Polls `path` and grades each new text with `grade` (blocking, in a worker thread);
    `cancel` stops the run in progress (from the polling thread). `run` hands each event to
    `show` in the calling thread, until `stop` is set or the caller is interrupted (Ctrl+C)."""

    def __init__(
        self,
        path: Path,
        grade: Callable[[str], Verdict],
        cancel: Callable[[], None],
        show: Callable[[Event], None],
        *,
        poll_s: float = POLL_S,
    ) -> None:
        self.path, self._grade, self._cancel, self._show = path, grade, cancel, show
        self.poll_s = poll_s
        self.stop = threading.Event()
        self._condition = threading.Condition()
        self._pending: tuple[int, str, float] | None = None
        self._busy: int | None = None
        self._generation = 0
        self._events: queue.Queue[Event] = queue.Queue()
        self._worker = threading.Thread(target=self._work, name="grill-watch", daemon=True)

    def run(self) -> None:
        """A text that grades is sent at once; one that cannot be graded is reported once it
        stayed so for a poll (an editor writing in place leaves the file empty for a moment),
        a missing file once it stayed missing for `GONE_AFTER_S`."""
        self._worker.start()
        seen: object = False  # never a look
        submitted: str | None = None
        problem: str | None = None
        """Why the file as seen cannot be graded, until it is reported or changes."""
        reported: str | None = None
        missing_since: float | None = None
        try:
            while not self.stop.is_set():
                now = time.monotonic()
                current = look(self.path)
                if current != seen:
                    seen, problem = current, None
                    missing_since = now if current is None else None
                    try:
                        text = read_fix(self.path)
                    except UsageError as error:
                        problem = str(error)
                    else:
                        reported = None
                        if text != submitted:
                            submitted = text
                            self._submit(text, now)
                elif problem is not None and (
                    missing_since is None or now - missing_since > GONE_AFTER_S
                ):
                    if current is None:
                        problem = f"{self.path}: no such file (waiting for it to be saved again)"
                    if problem != reported:
                        self._show(Unusable(problem))
                        reported, submitted = problem, None
                    problem = None
                try:
                    event = self._events.get(timeout=self.poll_s)
                except queue.Empty:
                    continue
                self._show(event)
        finally:
            self.stop.set()
            with self._condition:
                self._condition.notify_all()

    def _submit(self, text: str, seen_at: float) -> None:
        with self._condition:
            self._generation += 1
            again = self._busy is not None
            self._pending = (self._generation, text, seen_at)
            self._condition.notify_all()
        if again:
            self._cancel()
        self._show(Grading(again=again))

    def _work(self) -> None:
        while True:
            with self._condition:
                while self._pending is None and not self.stop.is_set():
                    self._condition.wait()
                if self.stop.is_set():
                    return
                assert self._pending is not None
                generation, text, seen_at = self._pending
                self._pending, self._busy = None, generation
            event = self._graded(generation, text, seen_at)
            with self._condition:
                self._busy = None
                current = generation == self._generation
            if current and not self.stop.is_set():
                self._events.put(event)

    def _graded(self, generation: int, text: str, seen_at: float) -> Event:
        """The text's verdict. A cancel meant for the run before can reach this one (it was
        sent as that run ended and this began): a run of the newest text cancelled so is run
        again."""
        for _ in range(RETRIES):
            try:
                verdict = self._grade(text)
            except Exception as error:  # grill's own fault: shown, and the watch goes on
                return Failed(f"{type(error).__name__}: {error}")
            with self._condition:
                newest = generation == self._generation
            if not (newest and cancelled(verdict)) or self.stop.is_set():
                break
        return Graded(text, verdict, time.monotonic() - seen_at)


def cancelled(verdict: Verdict) -> bool:
    """Whether the run (the fix's, or the reference solution's it needed) was cancelled."""
    error = verdict.error
    return error is not None and (error.kind == "cancelled" or CANCELLED in error.message)
