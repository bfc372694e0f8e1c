"""When a code task's reference solution is shown, and what having seen it does to an attempt.

One rule for the app's code task, `grill task solution` and the mock (Exercism's order, Anki's
honesty). The solution opens once it is earned: the task was solved (a fix graded clean), or a
fix that differs from the starter, comments and spacing aside, was graded. Before that it opens
only on an explicit ask, which caps the attempt at Again. Either way the view is kept in the
history (its settings table, one key per task, as hint progress is) until the next attempt on
the task is recorded, and that attempt says how it came after the solution
(`Attempt.solution_viewed`): `asked`, `copied` when its code is the solution (pasting it back
recalls nothing, so it is capped too), else `earned`.

Headless: no Textual here.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from app.clock import parse_stamp, stamp
from app.progress.rating import SolutionViewed

if TYPE_CHECKING:
    from app.progress.attempt import Attempt
    from app.progress.history import History

Earned = Literal["solved", "tried"]

VIEW_KEY = "task_solution:{card_id}"

NOT_RUN_VERDICTS = frozenset({"refused"})
"""Verdicts of code that never ran: a refused fix is no attempt at the task yet."""

_IGNORED_TOKENS = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})
_LAYOUT_TOKENS = frozenset({tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE})


def same_code(first: str, second: str) -> bool:
    """Whether two snippets are the same code, comments, blank lines and spacing aside (the
    indentation's structure still counts: it is Python's)."""
    return _tokens(first) == _tokens(second)


def _tokens(source: str) -> tuple[tuple[int, str], ...] | tuple[str, ...]:
    try:
        return tuple(
            (token.type, "" if token.type in _LAYOUT_TOKENS else token.string)
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type not in _IGNORED_TOKENS
        )
    except (tokenize.TokenError, SyntaxError):  # not Python: compare its words, line by line
        return tuple(
            " ".join(line.split())
            for line in source.splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        )


def earned_by(fixes: Iterable[tuple[str, str]], starter: str) -> Earned | None:
    """What opened the solution, from the task's graded fixes as (code, verdict): `solved` once
    one graded clean, `tried` once one that is not the starter ran; None while neither."""
    fixes = list(fixes)
    if any(verdict == "clean" for _, verdict in fixes):
        return "solved"
    if any(
        verdict not in NOT_RUN_VERDICTS and not same_code(code, starter) for code, verdict in fixes
    ):
        return "tried"
    return None


def graded_fixes(attempts: Sequence[Attempt]) -> list[tuple[str, str]]:
    """The (code, verdict) of each recorded attempt whose code was graded."""
    return [(a.code.code, a.code.verdict) for a in attempts if a.code is not None]


@dataclass(frozen=True)
class SolutionView:
    """The solution was shown at `at`; `asked`: before it was earned."""

    asked: bool
    at: datetime

    def viewed(self, code: str | None, solution: str) -> SolutionViewed:
        """How an attempt with this code comes after the view."""
        if self.asked:
            return "asked"
        if code is not None and same_code(code, solution):
            return "copied"
        return "earned"


def record_view(history: History, card_id: str, *, asked: bool, at: datetime) -> SolutionView:
    """Keep that the solution was shown; an ask stands until an attempt records it."""
    earlier = pending_view(history, card_id)
    view = SolutionView(asked=asked or (earlier is not None and earlier.asked), at=at)
    history.set_setting(VIEW_KEY.format(card_id=card_id), {"asked": view.asked, "at": stamp(at)})
    return view


def pending_view(history: History, card_id: str) -> SolutionView | None:
    """The view no attempt has recorded yet: the last one kept, if no attempt on the card was
    made after it (a stored value that is not a view, edited by hand, is none)."""
    stored = history.get_setting(VIEW_KEY.format(card_id=card_id))
    if not isinstance(stored, dict) or not isinstance(stored.get("asked"), bool):
        return None
    try:
        view = SolutionView(asked=stored["asked"], at=parse_stamp(str(stored["at"])))
    except (KeyError, ValueError):
        return None
    attempts = history.attempts(card_id)
    if attempts and max(a.started_at for a in attempts) >= view.at:
        return None
    return view


def viewed_for(view: SolutionView | None, code: str | None, solution: str) -> SolutionViewed | None:
    """What an attempt with this code records of the pending view (None: no view)."""
    return None if view is None else view.viewed(code, solution)
