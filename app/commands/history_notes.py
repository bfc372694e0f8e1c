"""What a command that read the history says about the rows it had to leave out."""

from __future__ import annotations

import sys

from app.progress.history import History

MAX_SHOWN = 10


def report_unreadable(command: str, history: History) -> None:
    """One line per attempt left out, on standard error, so `--json` output stays clean."""
    left_out = list(history.unreadable.items())
    for attempt_id, problem in left_out[:MAX_SHOWN]:
        print(f"grill {command}: note: left out attempt {attempt_id!r}, which grill cannot read: {problem} "
              f"(another program may have changed it)", file=sys.stderr)
    if len(left_out) > MAX_SHOWN:
        print(f"grill {command}: note: ... and {len(left_out) - MAX_SHOWN} more attempts left out", file=sys.stderr)
