"""What a command says, on standard error, about what it had to leave out (so `--json` stays clean)."""

from __future__ import annotations

import sys
from pathlib import Path

from app.progress.history import History
from app.wording import count
from questions.library import Library, Problem
from questions.loader import MANIFEST_NAME

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
    """One line per pack or card the problems left out, saying which and why: a pack whose
    manifest is broken (or written for a newer grill) is left out whole, in one line for all
    its problems; otherwise each broken card is. At most `MAX_SHOWN` lines, then how many more."""
    lines = [f"grill {command}: note: left out {what}" for what in left_out(library.problems)]
    for line in lines[:MAX_SHOWN]:
        print(line, file=sys.stderr)
    if len(lines) > MAX_SHOWN:
        print(
            f"grill {command}: note: ... and {len(lines) - MAX_SHOWN} more left out;"
            " `grill lint` lists every problem",
            file=sys.stderr,
        )


def left_out(problems: list[Problem]) -> list[str]:
    """What the problems cost, one line each, in the packs' order: `the pack DIR: why` for a
    pack left out whole, `FILE: why` for a card file; the first problem says why, and how
    many more there are follows."""
    broken_packs = {
        Path(problem.path).parent
        for problem in problems
        if Path(problem.path).name == MANIFEST_NAME
    }
    units: dict[Path, list[Problem]] = {}
    for problem in problems:
        path = Path(problem.path)
        units.setdefault(path.parent if path.parent in broken_packs else path, []).append(problem)
    said = []
    for unit, found in units.items():
        what = f"the pack {unit}" if unit in broken_packs else str(unit)
        more = f" (and {count(len(found) - 1, 'more problem')} there)" if len(found) > 1 else ""
        said.append(f"{what}: {found[0].message}{more}")
    return said
