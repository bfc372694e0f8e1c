"""Results that workers post back to the UI thread; only their handlers touch widgets."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from checkers.verdict import Verdict
from questions.library import Library


@dataclass
class LibraryLoaded(Message):
    library: Library


@dataclass
class GradeFinished(Message):
    run: int
    """Which run this answers; results of a cancelled run are dropped."""
    verdict: Verdict
    source: str
    """The code graded: the verdict belongs to it, not to whatever the editor holds later."""


@dataclass
class GradeFailed(Message):
    """Grading itself failed (no sandbox, no CUDA...): not a verdict on the candidate's code."""

    run: int
    message: str
    missing_device: bool = False
    """The device asked for is not there: the message says so in the app's words, whole."""


@dataclass
class SandboxWarmed(Message):
    error: str | None = None
    missing_device: bool = False
