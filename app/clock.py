"""Times as the history stores them, and the user's local days that streaks and limits count.

A leaf beside `paths` and `wording`: the history, the phrases and the screens all read the
clock, and it imports nothing of grill.

A day starts at the hour the user chose (Anki's "next day starts at", 4 a.m. by default), not
at midnight: a card practised at 1 a.m. counts for the evening before. The hour is one for the
whole process, set by the history from its settings (`History.open`, `set_setting`), so every
screen, limit and command counts the same days.
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


DEFAULT_DAY_START_HOUR = 4
"""Anki's default: the day turns at 4 a.m. local time, after most people's late sessions."""
_day_start_hour = DEFAULT_DAY_START_HOUR


def set_day_start_hour(hour: int) -> None:
    """The local hour (0 to 23) at which every day grill counts begins."""
    global _day_start_hour
    if not isinstance(hour, int) or isinstance(hour, bool) or not 0 <= hour <= 23:
        raise ValueError(f"the day must start at an hour from 0 to 23, not {hour!r}")
    _day_start_hour = hour


def day_start_hour() -> int:
    return _day_start_hour


def local_day(moment: datetime) -> date:
    """The day `moment` counts for: its local date, or the date before when earlier than the
    hour the day starts at."""
    local = to_utc(moment).astimezone()
    return local.date() - timedelta(days=local.hour < _day_start_hour)


def day_start(day: date) -> datetime:
    """The local hour starting `day`, in UTC (right across daylight-saving changes)."""
    return to_utc(datetime.combine(day, time(hour=_day_start_hour)).astimezone())


def end_of_local_day(moment: datetime) -> datetime:
    return day_start(local_day(moment) + timedelta(days=1))
