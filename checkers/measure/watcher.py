"""The grader's ledger over trusted code running as itself, in this process: a user's own
training script (`grill run`), a test's training loop (the pytest plugin), a step function
(`assert_no_graph_leak`). Nothing is rewritten: steps are what the run itself does (each
backward pass and optimizer step, seen through the autograd engine and torch's global
optimizer hooks), and what holds graph is found from the names of the user's frames running
at each scan (or from the roots the caller gives).

The budget (`steps`, `seconds`) is checked at each of those steps. When it is spent the
measurements are taken there, while the run's locals are alive, and `StopWatching` is raised
from the step, which ends the user's code the way Ctrl-C would; code that swallows it meets
it again at its next step.
"""

from __future__ import annotations

import importlib.util
import os
import site
import sys
import sysconfig
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType, TracebackType
from typing import NoReturn, TextIO

import torch

from checkers.measure.grade import measure, resolve_device, scan
from checkers.measure.ledger import Ledger, Scan
from checkers.measure.memory import memory_reader
from checkers.measure.retained import frame_roots
from checkers.measurements import Measurements

UNKNOWN = "<unknown>"
"""The file named where no user frame made the first backward call."""
Roots = Callable[[], Mapping[str, object]]
"""Where a scan starts: the names that reach what the watched code keeps."""

_GRILL = tuple(
    str(Path(__file__).resolve().parents[2] / package)
    for package in ("checkers", "app", "questions")
)
"""grill's own packages: their frames (the command line's, the watcher's) are not the user's."""
_RUNNERS = ("_pytest.", "pytest.", "pluggy.")
"""Modules of the test runner: its fixtures' objects (`capsys`, `request`, `monkeypatch`),
named in a test's frame, reach the whole session; no training graph is kept in them."""
_LIBRARIES = tuple(
    {
        str(Path(path).resolve())
        for path in (
            *(
                sysconfig.get_paths().get(key)
                for key in ("stdlib", "platstdlib", "purelib", "platlib")
            ),
            *site.getsitepackages(),
            site.getusersitepackages(),
        )
        if path
    }
)
"""The standard library and every site-packages folder (`pip install --user`'s included)."""


class StopWatching(BaseException):
    """Raised from the watched run's step when its budget is spent (a BaseException, as
    KeyboardInterrupt is: `except Exception` in the user's code does not swallow it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"grill stopped the run: {reason}")
        self.reason = reason


def is_user_file(filename: str) -> bool:
    """Whether code in `filename` is the user's own: a real file outside the standard library,
    the installed packages and grill itself (a project's editable package counts as theirs)."""
    if not filename or filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    return not any(path.startswith(folder + os.sep) for folder in (*_GRILL, *_LIBRARIES))


def user_frames(frame: FrameType | None = None) -> list[FrameType]:
    """The user's frames on the current stack, innermost first."""
    frames: list[FrameType] = []
    frame = frame or sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            frames.append(frame)
        frame = frame.f_back
    return frames


def user_roots() -> dict[str, object]:
    """The names the user's running frames see (a function's locals before the globals),
    but the test runner's fixtures."""
    return {
        name: value
        for name, value in frame_roots(user_frames()).items()
        if not type(value).__module__.startswith(_RUNNERS)
    }


class Watcher:
    """`with Watcher(...) as watcher:` runs trusted code under the ledger; `measurements()`
    after it (or `watcher.measured`, set where the budget stopped the run).

    `filename` is the file whose lines the verdict names (the script); None: the file that
    makes the run's first backward call (a test's training function). `roots` gives what a
    scan starts from (default: the user's running frames); `final_roots`, what the last
    scan does once the run is over."""

    _active: Watcher | None = None
    """The watcher installed now: the ledger's hooks are process-wide, so one at a time."""

    def __init__(
        self,
        filename: str | None,
        *,
        device: str = "auto",
        steps: int | None = None,
        seconds: float | None = None,
        roots: Roots = user_roots,
    ) -> None:
        self.device = resolve_device(device)
        self.filename = filename
        self.roots = roots
        self.seconds = seconds
        self.started = 0.0
        self.measured: Measurements | None = None
        self.ledger = _OwnLedger(
            self,
            filename or UNKNOWN,
            memory_reader(self.device),
            steps_cap=steps,
            on_stop=self._stop,
            on_scan=self._scan,
        )
        self._watching = self.ledger.watching()
        self._shown = warnings.showwarning

    def __enter__(self) -> Watcher:
        if Watcher._active is not None:
            raise RuntimeError(
                "grill is already watching this run, and watches it once: use the"
                " no_graph_leak marker, its fixture or assert_no_graph_leak, not two of them"
            )
        Watcher._active = self
        self.started = time.monotonic()
        if self.seconds is not None:
            self.ledger.deadline = self.started + self.seconds
        self._shown = warnings.showwarning
        warnings.showwarning = _at_user_line(self._shown)
        self._watching.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            self._watching.__exit__(kind, error, trace)
        finally:
            warnings.showwarning = self._shown
            Watcher._active = None

    @property
    def stopped(self) -> bool:
        """Whether the budget stopped the run (its measurements are taken)."""
        return self.measured is not None

    def pick_file(self) -> None:
        """Where no file was named: the innermost user file calling the first backward pass,
        the training loop's (not the model's, whose forward ran before)."""
        if self.filename is None:
            frames = user_frames()
            self.filename = frames[0].f_code.co_filename if frames else UNKNOWN
            self.ledger.filename = self.filename

    def measurements(self, final_roots: Mapping[str, object] | None = None) -> Measurements:
        """What the judge reads: taken where the budget stopped the run, or now, from
        `final_roots` (default: the watcher's roots)."""
        if self.measured is not None:
            return self.measured
        roots = self.roots() if final_roots is None else final_roots
        self.measured = self._measure(roots, "end")
        return self.measured

    def _measure(self, roots: Mapping[str, object], reason: str) -> Measurements:
        return measure(
            self.ledger,
            roots,
            {},
            (),
            reason,
            self.started,
            self.filename or UNKNOWN,
            device=self.device,
        )

    def _stop(self, reason: str) -> NoReturn:
        if self.measured is None:
            self.measured = self._measure(self.roots(), reason)
        raise StopWatching(reason)

    def _scan(self) -> Scan:
        return scan(self.ledger, self.roots(), self.filename or UNKNOWN)


def _at_user_line(show: Callable[..., None]) -> Callable[..., None]:
    """`warnings.showwarning` that puts a warning torch raised from C while the ledger's
    handler was on the stack (`ledger.py:409: UserWarning: ...`) at the user's own line, as
    plain Python would have shown it."""

    def shown(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if os.path.realpath(filename).startswith(_GRILL):
            frames = user_frames()
            if frames:
                filename, lineno, line = frames[0].f_code.co_filename, frames[0].f_lineno, None
        show(message, category, filename, lineno, file, line)

    return shown


class _OwnLedger(Ledger):
    """The grader's ledger, which learns the file it names lines in at the first backward."""

    def __init__(self, watcher: Watcher, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.watcher = watcher

    def backward(
        self,
        engine: torch._C._ImperativeEngine,
        outputs: object,
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> tuple[torch.Tensor, ...]:
        if self.watcher.filename is None:
            self.watcher.pick_file()
        return super().backward(engine, outputs, args, kwargs)


def read_source(filename: str) -> str:
    """A Python file's text, as the interpreter decodes it ("" where it cannot be read)."""
    try:
        return importlib.util.decode_source(Path(filename).read_bytes())
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ""


def lines_of(filename: str) -> str:
    """The note saying which file a verdict's line numbers are in."""
    relative = os.path.relpath(filename)
    return f"Line numbers are those of {filename if relative.startswith('..') else relative}."
