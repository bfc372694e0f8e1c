"""What the parent learns from one sandboxed run, before the grader turns it into a Verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from checkers.verdict import ErrorInfo, NotGraded

Status = Literal["ok", NotGraded]


@dataclass(frozen=True)
class Outcome:
    status: Status
    result: dict[str, object] | None
    """What the job returned (validated JSON object), only when status is ok."""
    output: str
    """What the run printed, capped, with a note where it was cut."""
    error: ErrorInfo | None
    """Why it is not ok: kind (exception type, `refused`, `timeout`, `memory`, `cpu`,
    `output`...), message, and the candidate's own line when known."""
    device: str
    wall_s: float
    traceback: str = ""
    """The candidate's traceback (only their own frames) when status is error."""
