"""How far the candidate has got through a code task's hints, and the grader's hint from the
last check of it: kept in the history (its settings table, one key per task), so `grill task
hint` and the app's code task go on from the same place.

Headless: no Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from app.clock import parse_stamp, stamp
from checkers.verdict import Verdict

if TYPE_CHECKING:
    from app.progress.history import History

SHOWN_KEY = "task_hints:{card_id}"
CHECK_KEY = "task_check:{card_id}"


def hints_shown(history: History, card_id: str) -> int:
    """How many of the card's hints the candidate has been shown (0 for a stored value that is
    not a count, edited by hand)."""
    stored = history.get_setting(SHOWN_KEY.format(card_id=card_id), 0)
    return stored if isinstance(stored, int) and not isinstance(stored, bool) and stored > 0 else 0


def record_hints_shown(history: History, card_id: str, shown: int) -> None:
    """The candidate has now seen the first `shown` hints; progress never goes back."""
    if shown > hints_shown(history, card_id):
        history.set_setting(SHOWN_KEY.format(card_id=card_id), shown)


@dataclass(frozen=True)
class LastCheck:
    """The grader's word on the last fix checked from the command line."""

    verdict: str
    message: str
    hint: str
    at: datetime


def remember_check(history: History, card_id: str, verdict: Verdict, at: datetime) -> None:
    history.set_setting(
        CHECK_KEY.format(card_id=card_id),
        {
            "verdict": verdict.verdict,
            "message": verdict.message,
            "hint": verdict.hint,
            "at": stamp(at),
        },
    )


def last_check(history: History, card_id: str) -> LastCheck | None:
    stored = history.get_setting(CHECK_KEY.format(card_id=card_id))
    if not isinstance(stored, dict):
        return None
    try:
        return LastCheck(
            verdict=str(stored["verdict"]),
            message=str(stored.get("message", "")),
            hint=str(stored.get("hint", "")),
            at=parse_stamp(str(stored["at"])),
        )
    except (KeyError, ValueError):
        return None
