"""Test doubles for the UI (a clock that moves only when told, a code runner without torch) and the screen size."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime

from checkers.verdict import Verdict

SIZE = (120, 36)
"""Terminal size of the Pilot tests."""

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
"""The wall clock of UI tests: due dates and statistics must not depend on the day they run."""


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class FakeRunner:
    """Returns `verdict` for every grade; with `block=True` a grade waits until cancelled or released."""

    verdict: Verdict | None = None
    block: bool = False
    failure: str | None = None
    sources: list[str] = field(default_factory=list)
    warmed: list[str] = field(default_factory=list)
    cancels: int = 0
    closed: bool = False
    _release: threading.Event = field(default_factory=threading.Event)

    def warm(self, device: str) -> None:
        self.warmed.append(device)

    def grade(self, task, source: str, *, device: str) -> Verdict:
        self.sources.append(source)
        if self.block:
            self._release.wait(timeout=30)
        if self.failure:
            raise RuntimeError(self.failure)
        return self.verdict or Verdict.not_graded("timeout", device, "cancelled")

    def release(self) -> None:
        self._release.set()

    def cancel(self) -> None:
        self.cancels += 1
        self._release.set()

    def close(self) -> None:
        self.closed = True
        self._release.set()
