"""Small phrases the screens and commands share: counted nouns and when a card comes back."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from app.clock import local_day, to_utc


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 card`, `2 cards`; irregular plurals are passed in (`1 query`, `2 queries`)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _minutes(seconds: float) -> int:
    """Whole minutes, halves rounded up, at least 1: one rule for the buttons and the notices
    (Python's round() takes 5.5 to 6 and 4.5 to 4)."""
    return max(1, math.floor(seconds / 60 + 0.5))


def comes_back(due: datetime, now: datetime) -> str:
    """When a card is due again, as a person says it: `in 10 min`, `today`, `tomorrow`, `in 4 days`."""
    due, now = to_utc(due), to_utc(now)
    if due <= now:
        return "now"
    if due - now < timedelta(hours=1):
        return f"in {_minutes((due - now).total_seconds())} min"
    days = (local_day(due) - local_day(now)).days
    if days == 0:
        return "later today"
    if days == 1:
        return "tomorrow"
    if days < 14:
        return f"in {days} days"
    if days < 60:
        return f"in {round(days / 7)} weeks"
    return f"in {round(days / 30)} months"


def interval(due: datetime, now: datetime) -> str:
    """The same, as short as Anki writes it above its buttons: `1m`, `10m`, `3h`, `4d`, `3w`, `2mo`."""
    seconds = max(0.0, (to_utc(due) - to_utc(now)).total_seconds())
    for unit, size in (("mo", 30 * 86400), ("w", 7 * 86400), ("d", 86400), ("h", 3600)):
        if seconds >= (2 * size if unit in ("mo", "w") else size):
            return f"{round(seconds / size)}{unit}"
    return f"{_minutes(seconds)}m"


def due_status(due: datetime | None, now: datetime) -> str:
    """Home's Status column: `new`, `due` (now, or later today), `in 10 min` (a learning step
    that is not back yet, though today's queue holds it), or the day it comes back."""
    if due is None:
        return "new"
    if to_utc(due) > to_utc(now) and to_utc(due) - to_utc(now) < timedelta(hours=1):
        return comes_back(due, now)
    if local_day(due) <= local_day(now):
        return "due"
    return comes_back(due, now)
