"""Spaced-repetition scheduling: one FSRS state per card, folded from that card's attempts.

grill does not implement the algorithm; it drives the `fsrs` package (the one modern Anki
uses). Fuzzing is off on purpose: a card's schedule is then a pure function of its attempts,
so replaying them (after an import, or an attempt recorded out of order) gives exactly the
state that recording them live gave.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cache
from typing import Literal

import fsrs

from app.clock import to_utc
from app.progress.rating import Rating
from checkers.inputs import Range

StateName = Literal["learning", "review", "relearning"]

FSRS_RATING: dict[Rating, fsrs.Rating] = {
    "again": fsrs.Rating.Again,
    "hard": fsrs.Rating.Hard,
    "good": fsrs.Rating.Good,
    "easy": fsrs.Rating.Easy,
}
STATE_NAME: dict[fsrs.State, StateName] = {
    fsrs.State.Learning: "learning",
    fsrs.State.Review: "review",
    fsrs.State.Relearning: "relearning",
}

DEFAULT_RETENTION = 0.9
"""fsrs's own default desired retention: the chance of recalling a card when it comes due."""
RETENTION = Range("desired retention", 0.7, 0.99)
"""The shares Anki's option accepts."""


@cache
def scheduler(desired_retention: float = DEFAULT_RETENTION) -> fsrs.Scheduler:
    """fsrs's scheduler at a desired retention (Anki's setting of that name): higher brings
    cards back sooner, lower later. Its other parameters are fsrs's defaults."""
    return fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=False)


@dataclass(frozen=True)
class CardSchedule:
    """Where one card stands: the fsrs state plus the counts people ask about."""

    memory: fsrs.Card
    reps: int
    lapses: int
    """Times the card was forgotten after it had graduated to review."""
    last_rating: Rating
    last_seen: datetime
    introduced_at: datetime
    """The first attempt: what the daily limit of new cards counts."""

    @property
    def due(self) -> datetime:
        return self.memory.due

    @property
    def state(self) -> StateName:
        return STATE_NAME[self.memory.state]

    @property
    def interval(self) -> timedelta:
        """How long the last review pushed the card away."""
        return self.memory.due - self.last_seen


def review(
    schedule: CardSchedule | None,
    rating: Rating,
    at: datetime,
    retention: float = DEFAULT_RETENTION,
) -> CardSchedule:
    """The card's schedule after one more attempt (None: the card was new)."""
    at = to_utc(at)
    memory = schedule.memory if schedule else fsrs.Card(card_id=0, due=at)
    lapsed = rating == "again" and memory.state == fsrs.State.Review
    memory, _ = scheduler(retention).review_card(memory, FSRS_RATING[rating], review_datetime=at)
    if schedule is None:
        return CardSchedule(
            memory, reps=1, lapses=0, last_rating=rating, last_seen=at, introduced_at=at
        )
    return replace(
        schedule,
        memory=memory,
        reps=schedule.reps + 1,
        lapses=schedule.lapses + lapsed,
        last_rating=rating,
        last_seen=at,
    )


def replay(
    reviews: list[tuple[Rating, datetime]], retention: float = DEFAULT_RETENTION
) -> CardSchedule | None:
    """Fold a card's attempts, oldest first, into its schedule."""
    schedule = None
    for rating, at in sorted(reviews, key=lambda item: to_utc(item[1])):
        schedule = review(schedule, rating, at, retention)
    return schedule
