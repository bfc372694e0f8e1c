"""A file's problems, listing at most a few of each kind: the 30,000th unknown field says nothing
the 50th did not, and locating each one is work the author never reads."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from questions.library import Problem

MAX_OF_A_KIND = 50
"""More than a real card can have of one kind (a fresh `grill new` skeleton holds about 35 TODOs)."""


class ProblemList:
    """Collects problems by kind; past MAX_OF_A_KIND of one kind, only counts them."""

    def __init__(self) -> None:
        self._listed: list[Problem] = []
        self._count: Counter[str] = Counter()
        self._first_unlisted: dict[str, Problem] = {}

    def add(self, kind: str, make: Callable[[], Problem]) -> None:
        """`make` locates the problem; it is called only for the problems that will be shown."""
        self._count[kind] += 1
        if self._count[kind] <= MAX_OF_A_KIND:
            self._listed.append(make())
        elif self._count[kind] == MAX_OF_A_KIND + 1:
            self._first_unlisted[kind] = make()

    def problems(self) -> list[Problem]:
        """What was listed, and for each kind cut short one problem where the unlisted ones start."""
        summaries = [
            Problem(
                first.path,
                first.line,
                first.column,
                f"{self._count[kind] - MAX_OF_A_KIND:,} more problems like the {MAX_OF_A_KIND} above, "
                f"from here on: {first.message}",
                "fix the ones listed, then check the file again",
            )
            for kind, first in self._first_unlisted.items()
        ]
        return self._listed + summaries
