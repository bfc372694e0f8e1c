"""The app's one sandbox, shared by every code run, and the calls the UI makes on it.

Named a runner, not a grader: `checkers` has the grader (what judges a run); this is the UI's
handle on the sandbox that runs it. Only the parent side of `checkers` is imported, and only
when a code task opens, so the UI process never imports torch and startup never pays for it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from checkers.sandbox import Sandbox
    from checkers.verdict import Device, Verdict
    from questions.model import CodeTask


NO_CUDA = (
    "This machine has no CUDA device, so your code cannot run on cuda: choose cpu for code "
    "tasks in Settings (o on home)."
)
"""What the app says when code is to run on CUDA where there is none, in the app's own terms
(the sandbox's message names `grill check`'s --device flag)."""


class DeviceMissing(RuntimeError):
    """Code is to run on a device this machine does not have; the message says what to do."""


def cuda_device_present() -> bool:
    """Whether this machine shows an NVIDIA GPU, without starting anything (nor importing torch)."""
    from checkers.sandbox.isolation import host_has_cuda_devices

    return host_has_cuda_devices()


class CodeRunner(Protocol):
    """What the code task view needs; tests pass their own to avoid running torch."""

    def warm(self, device: Device) -> None: ...
    def grade(self, task: CodeTask, source: str, *, device: Device) -> Verdict: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


class SandboxRunner:
    """Grades a card's code task on one warm sandbox per device.

    `warm` and `grade` block, so they run in worker threads; `cancel` returns at once and may
    be called from the UI thread while a grade is running.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sandbox: Sandbox | None = None
        self._device: Device | None = None

    def warm(self, device: Device) -> None:
        self._sandbox_for(device)

    def grade(self, task: CodeTask, source: str, *, device: Device) -> Verdict:
        """`clean` only when the code keeps no graph alive and keeps the task's contract."""
        from checkers.api import grade_task

        spec = task.spec.model_copy(
            update={"grading": task.grading.model_copy(update={"device": device})}
        )
        return grade_task(source, spec, sandbox=self._sandbox_for(device), filename="<your code>")

    def cancel(self) -> None:
        sandbox = self._sandbox
        if sandbox is not None:
            sandbox.cancel()

    def close(self) -> None:
        with self._lock:
            if self._sandbox is not None:
                self._sandbox.close()
            self._sandbox, self._device = None, None

    def _sandbox_for(self, device: Device) -> Sandbox:
        """The running sandbox, replaced when the device setting changed since it started."""
        from checkers.api import grading_sandbox

        with self._lock:
            if self._sandbox is not None and self._device != device:
                self._sandbox.close()
                self._sandbox = None
            if self._sandbox is None:
                from checkers.sandbox import SandboxError

                sandbox = grading_sandbox(device)
                try:
                    sandbox.start()
                except SandboxError as error:
                    if error.kind == "device":
                        raise DeviceMissing(NO_CUDA) from error
                    raise
                self._sandbox, self._device = sandbox, device
            return self._sandbox
