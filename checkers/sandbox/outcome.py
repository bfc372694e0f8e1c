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


EndedBy = Literal["finished", "stall", "failure", "timeout", "cancel", "limit", "lost"]
"""How a ranked run ended: every rank answered; the ranks stopped making progress; one rank
failed (raised, was refused, crashed, hit its own limit) and the rest were ended with it, as
torchrun does; the wall clock ran out; it was cancelled; the ranks together passed a limit of
the whole run; or the worker was lost."""


@dataclass(frozen=True)
class RankedOutcome:
    """What the parent learns from a ranked run: each rank's own outcome, and how it ended."""

    ranks: tuple[Outcome, ...]
    """One per rank. A rank ended before it answered (a stall, another's failure, the clock)
    has status `error` with kind `ended`, or `timeout`."""
    ended_by: EndedBy
    device: str
    wall_s: float
    failed_rank: int | None = None
    """The rank whose failure ended the run (`failure`)."""
    answered: tuple[bool, ...] = ()
    """Which ranks answered (their snippet finished, or its budget stopped it)."""
    dumps: tuple[str, ...] = ()
    """Each rank's last stack dump (faulthandler's text; empty where none was taken): taken
    when the ranks stalled, and before ending the others when one failed or time ran out."""
    limit: ErrorInfo | None = None
    """A limit of the whole run the ranks passed together (memory added, the scratch folder)."""
