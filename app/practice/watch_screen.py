"""One screen of `grill task watch`: the verdict's headline on the first line, then as many of
its details as the terminal's height holds, the essential ones first (what happened, the hint,
the contract), and a line naming what was left out (`--full` shows everything).

A verdict that scrolled its headline off the top at each save is what rustlings' watch avoids:
the one thing to read after a save is the top line. Headless: sizes are handed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Section = tuple[str, str]
"""A named paragraph of the report (`checkers.report.sections`)."""

MIN_CUT_ROWS = 3
"""A section cut to fit keeps at least this many rows, or is left out whole."""


def rows(text: str, width: int) -> int:
    """Terminal rows `text` takes at `width` columns: a long line wraps."""
    return sum(max(1, -(-len(line) // max(width, 1))) for line in text.split("\n"))


@dataclass(frozen=True)
class Fitted:
    text: str
    """The sections kept, in the report's order, separated by blank lines."""
    left_out: tuple[str, ...]
    """The names of the sections left out or cut, in the report's order."""


def fit(details: Sequence[Section], essential: frozenset[str], budget: int, width: int) -> Fitted:
    """The details (the report less its headline) within `budget` rows: essential sections in
    order while they fit, the first that does not cut to the rows left; then the others, each
    whole where it still fits."""
    kept: dict[int, str] = {}
    left = budget
    cut_one = False
    for wanted in (True, False):
        for index, (name, text) in enumerate(details):
            if (name in essential) != wanted or (cut_one and wanted):
                continue
            need = rows(text, width) + (1 if kept else 0)
            if need <= left:
                kept[index], left = text, left - need
            elif wanted and left - (1 if kept else 0) >= MIN_CUT_ROWS:
                kept[index] = _cut(text, left - (1 if kept else 0), width)
                left, cut_one = 0, True
    left_out = dict.fromkeys(
        name for index, (name, text) in enumerate(details) if kept.get(index) != text
    )
    return Fitted("\n\n".join(kept[i] for i in sorted(kept)), tuple(left_out))


def _cut(text: str, budget: int, width: int) -> str:
    """The first lines of `text` within `budget` rows, the last of them saying how many more."""
    lines = text.split("\n")
    shown: list[str] = []
    used = 0
    for line in lines:
        need = rows(line, width)
        if used + need > budget - 1:
            break
        shown.append(line)
        used += need
    return "\n".join([*shown, f"  … {len(lines) - len(shown)} more lines"])
