"""When a card would come back for each rating: the intervals Anki shows on its rating buttons.

Kept out of `history` on purpose: it only reads. The card's schedule is replayed from its
attempts (the scheduler is deterministic, so this is the state the history holds) and one
more review is tried with each rating.
"""

from __future__ import annotations

from datetime import datetime

from app.progress.history import History
from app.progress.rating import RATINGS, Rating
from app.progress.scheduler import replay, review


def next_due(history: History, card_id: str, at: datetime) -> dict[Rating, datetime]:
    """For each rating, when the card is due again if that rating is recorded at `at`."""
    settings = history.scheduling()
    schedule = replay(
        [(attempt.rating, attempt.started_at) for attempt in history.attempts(card_id)], settings
    )
    return {rating: review(schedule, rating, at, settings).due for rating in RATINGS}
