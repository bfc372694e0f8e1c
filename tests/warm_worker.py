"""The test process's shared warm grading worker, lent to a command run in this process.

A command that grades (`grill check`, `grill check --task`, the app's runner) starts a worker of
its own and closes it when done: each start imports torch, about 3 CPU-seconds. What such a
command prints, returns and records does not depend on whose worker graded its code, so a test
of what it says borrows the process's shared one (`checkers.api.shared_sandbox`), which the
command's close leaves running. The tests about a command's own worker (that it starts one,
shares it between files, leaves no process or folder behind, stops on a signal) start theirs.
"""

from __future__ import annotations

import pytest

from checkers import api
from checkers.sandbox import Sandbox
from checkers.verdict import Device


class Lent:
    """The shared sandbox as a command's own: every call goes to it, but closing it, which the
    command does when it is done, leaves it warm for the next test."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox

    def __getattr__(self, name: str) -> object:
        return getattr(self._sandbox, name)

    def start(self) -> Lent:
        self._sandbox.start()
        return self

    def __enter__(self) -> Lent:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """The shared sandbox outlives the command (the process closes it at exit)."""


def lend_shared_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every grading sandbox a command asks for (`checkers.api.grading_sandbox`) is, until the
    test ends, the shared one of its device."""
    own = api.grading_sandbox

    def lent(device: Device = "auto", *, warm: bool = True) -> Lent:
        with pytest.MonkeyPatch.context() as making:  # the shared one is made by the real one
            making.setattr(api, "grading_sandbox", own)
            return Lent(api.shared_sandbox(device))

    monkeypatch.setattr(api, "grading_sandbox", lent)
