"""The app's one sandbox, shared by every code run, and the calls the UI makes on it.

Only the parent side of `checkers` is imported here, and only when a code task opens, so the
UI process never imports torch and startup never pays for the sandbox.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from checkers.verdict import Verdict

if TYPE_CHECKING:
    from checkers.sandbox import Sandbox


class Grader(Protocol):
    """What the code task view needs; tests pass their own to avoid running torch."""

    def warm(self, device: str) -> None: ...
    def grade(self, source: str, *, device: str, steps: int) -> Verdict: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


class SandboxGrader:
    """Grades through `checkers.api.grade_source` on one warm sandbox per device.

    `warm` and `grade` block, so they run in worker threads; `cancel` returns at once and may
    be called from the UI thread while a grade is running.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sandbox: Sandbox | None = None
        self._device: str | None = None

    def warm(self, device: str) -> None:
        self._sandbox_for(device)

    def grade(self, source: str, *, device: str, steps: int) -> Verdict:
        from checkers.api import grade_source

        return grade_source(source, device=device, steps=steps, sandbox=self._sandbox_for(device))

    def cancel(self) -> None:
        sandbox = self._sandbox
        if sandbox is not None:
            sandbox.cancel()

    def close(self) -> None:
        with self._lock:
            if self._sandbox is not None:
                self._sandbox.close()
            self._sandbox, self._device = None, None

    def _sandbox_for(self, device: str) -> Sandbox:
        """The running sandbox, replaced when the device setting changed since it started."""
        from checkers.sandbox import Sandbox

        with self._lock:
            if self._sandbox is not None and self._device != device:
                self._sandbox.close()
                self._sandbox = None
            if self._sandbox is None:
                sandbox = Sandbox(device=device)
                sandbox.start()
                self._sandbox, self._device = sandbox, device
            return self._sandbox
