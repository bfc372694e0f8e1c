"""Spaced-repetition scheduling: one FSRS state per card, folded from that card's attempts.

grill does not implement the algorithm; it drives the `fsrs` package (the one modern Anki
uses). Fuzzing is off on purpose: a card's schedule is then a pure function of its attempts,
so replaying them (after an import, or an attempt recorded out of order) gives exactly the
state that recording them live gave.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
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


DEFAULT_LEARNING_STEPS = "1m 10m"
DEFAULT_RELEARNING_STEPS = "10m"
"""Anki's and fsrs's defaults, written as Anki's options take them."""
MAX_STEPS = 10
STEP_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
LONGEST_STEP = timedelta(days=30)
_STEP = re.compile(r"(\d+)([smhd])")


def parse_steps(text: str, what: str = "learning steps") -> tuple[timedelta, ...]:
    """Anki's notation: steps apart by spaces, each a whole number and a unit (s, m, h or d),
    e.g. "1m 10m"; none at all is allowed (a new card goes straight to review). ValueError
    says which step is wrong and how to write one."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be text such as {DEFAULT_LEARNING_STEPS!r}, not {text!r}")
    steps = []
    for word in text.split():
        match = _STEP.fullmatch(word)
        if match is None:
            raise ValueError(
                f"{what}: {word!r} is not a step; write a whole number and a unit "
                f"(s, m, h or d), steps apart by spaces, e.g. {DEFAULT_LEARNING_STEPS!r}"
            )
        step = timedelta(seconds=int(match[1]) * STEP_UNITS[match[2]])
        if not timedelta(seconds=1) <= step <= LONGEST_STEP:
            raise ValueError(f"{what}: {word!r} must be from 1s to {LONGEST_STEP.days}d")
        steps.append(step)
    if len(steps) > MAX_STEPS:
        raise ValueError(f"{what}: at most {MAX_STEPS} steps, not {len(steps)}")
    return tuple(steps)


@dataclass(frozen=True)
class Scheduling:
    """The scheduler's settings as the user chose them (Anki's deck options): a card's schedule
    is a pure function of its attempts and these."""

    desired_retention: float = DEFAULT_RETENTION
    """Higher brings cards back sooner, lower later."""
    learning_steps: str = DEFAULT_LEARNING_STEPS
    """The short intervals a new card is shown again at before it graduates to review."""
    relearning_steps: str = DEFAULT_RELEARNING_STEPS
    """The same for a review card that was forgotten (rated Again)."""

    def __post_init__(self) -> None:
        if isinstance(self.desired_retention, bool) or not isinstance(
            self.desired_retention, float
        ):
            raise ValueError(f"desired retention must be a share, not {self.desired_retention!r}")
        RETENTION.check(self.desired_retention)
        parse_steps(self.learning_steps, "learning steps")
        parse_steps(self.relearning_steps, "relearning steps")


DEFAULT_SCHEDULING = Scheduling()
SCHEDULING_KEYS = tuple(item.name for item in fields(Scheduling))
"""The history's settings of these names (`app.ui.settings` has the same fields)."""


@cache
def scheduler(settings: Scheduling = DEFAULT_SCHEDULING) -> fsrs.Scheduler:
    """fsrs's scheduler with the user's settings; its other parameters are fsrs's defaults."""
    return fsrs.Scheduler(
        desired_retention=settings.desired_retention,
        learning_steps=parse_steps(settings.learning_steps),
        relearning_steps=parse_steps(settings.relearning_steps),
        enable_fuzzing=False,
    )


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
    settings: Scheduling = DEFAULT_SCHEDULING,
) -> CardSchedule:
    """The card's schedule after one more attempt (None: the card was new)."""
    at = to_utc(at)
    memory = schedule.memory if schedule else fsrs.Card(card_id=0, due=at)
    lapsed = rating == "again" and memory.state == fsrs.State.Review
    memory, _ = scheduler(settings).review_card(memory, FSRS_RATING[rating], review_datetime=at)
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
    reviews: list[tuple[Rating, datetime]], settings: Scheduling = DEFAULT_SCHEDULING
) -> CardSchedule | None:
    """Fold a card's attempts, oldest first, into its schedule."""
    schedule = None
    for rating, at in sorted(reviews, key=lambda item: to_utc(item[1])):
        schedule = review(schedule, rating, at, settings)
    return schedule
