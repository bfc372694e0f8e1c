"""Times as the history stores them, and the user's local days that streaks and limits count.

A leaf beside `paths` and `wording`: the history, the phrases and the screens all read the
clock, and it imports nothing of grill.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta


def utc_now() -> datetime:
    return datetime.now(UTC)


def to_utc(moment: datetime) -> datetime:
    """A naive time is taken to be UTC already (fsrs and the database both want UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def stamp(moment: datetime) -> str:
    """Fixed-width ISO text in UTC, so that SQL string order is time order."""
    return to_utc(moment).isoformat(timespec="microseconds")


def parse_stamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


def local_day(moment: datetime) -> date:
    return to_utc(moment).astimezone().date()


def day_start(day: date) -> datetime:
    """Local midnight starting `day`, in UTC (right across daylight-saving changes)."""
    return to_utc(datetime.combine(day, time()).astimezone())


def end_of_local_day(moment: datetime) -> datetime:
    return day_start(local_day(moment) + timedelta(days=1))
