"""What a command says, on standard error, about what it had to leave out (so `--json` stays clean)."""

from __future__ import annotations

import sys

from app.progress.history import History
from app.wording import count
from questions.library import Library

MAX_SHOWN = 10


def report_unreadable(command: str, history: History) -> None:
    """One line per attempt the history could not give back."""
    left_out = list(history.unreadable.items())
    for attempt_id, problem in left_out[:MAX_SHOWN]:
        print(
            f"grill {command}: note: left out attempt {attempt_id!r}, which grill cannot read: {problem} "
            f"(another program may have changed it)",
            file=sys.stderr,
        )
    if len(left_out) > MAX_SHOWN:
        print(
            f"grill {command}: note: ... and {len(left_out) - MAX_SHOWN} more attempts left out",
            file=sys.stderr,
        )


def report_pack_problems(command: str, library: Library) -> None:
    """One line: the cards of a broken or unreadable pack are missing from what follows."""
    if library.problems:
        print(
            f"grill {command}: note: {count(len(library.problems), 'problem')} in the packs; "
            "`grill lint` lists them",
            file=sys.stderr,
        )
