"""Anki's scheduling settings beyond desired retention: the hour a new day starts at (today's
queue and the daily new-card limit follow it) and the learning and relearning steps (used for
live ratings, for replays and for the rating buttons' preview), each refused with a message
when it cannot be used."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from progress_factories import T0, attempt, loaded_card

from app.clock import DEFAULT_DAY_START_HOUR, day_start_hour, local_day, set_day_start_hour
from app.practice.drafts import Drafts
from app.progress.history import History
from app.progress.preview import next_due
from app.progress.scheduler import parse_steps
from app.progress.stats import compute_stats
from app.progress.user_state import current_state
from app.ui.settings import Settings


@pytest.fixture(autouse=True)
def default_day_start() -> Iterator[None]:
    """The hour is the process's: each test leaves it as it found it."""
    yield
    set_day_start_hour(DEFAULT_DAY_START_HOUR)


def local(day: int, hour: int) -> datetime:
    """A local wall-clock time in March 2026, whatever the machine's time zone."""
    return datetime(2026, 3, day, hour, 0).astimezone()


def test_the_day_starts_at_4_am_by_default_and_at_the_hour_the_history_keeps():
    with History.open():
        assert day_start_hour() == 4
        assert local_day(local(3, 2)) == local(2, 12).date(), "2 a.m. is still the evening before"
        assert local_day(local(3, 5)) == local(3, 12).date()
    with History.open() as history:
        Settings(day_starts_at=0).save(history)
        assert local_day(local(3, 2)) == local(3, 12).date(), "midnight starts the day now"
    with History.open():
        assert day_start_hour() == 0, "read again when the history is opened"


def test_a_card_rated_at_2_am_counts_against_the_new_card_limit_of_the_day_before():
    with History.open() as history:
        history.record(attempt("a1", rating="easy", at=local(2, 23)))
        cards = ["a1", "b2", "c3"]
        assert history.due_queue(cards, now=local(3, 2), new_per_day=1) == [], (
            "a1 is due days later; the one new card of the day (until 4 a.m.) is taken"
        )
        assert history.due_queue(cards, now=local(3, 5), new_per_day=1)[-1] == "b2", (
            "after 4 a.m. a new day gives a new card"
        )
        Settings(day_starts_at=0).save(history)
        assert "b2" in history.due_queue(cards, now=local(3, 2), new_per_day=1)


def due_after(steps: str | None, rating: str, tmp_path: Path) -> timedelta:
    """How long after a new card's first rating it is due, in a history of its own."""
    with History.open(tmp_path / f"{steps}-{rating}.db") as history:
        if steps is not None:
            Settings(learning_steps=steps).save(history)
        history.record(attempt("a1", rating=rating, at=T0))
        return history.due_dates()["a1"] - T0


def test_learning_steps_set_when_a_new_card_comes_back(tmp_path: Path):
    assert due_after(None, "again", tmp_path) == timedelta(minutes=1), "Anki's default 1m 10m"
    assert due_after(None, "good", tmp_path) == timedelta(minutes=10)
    assert due_after("30m 2h", "again", tmp_path) == timedelta(minutes=30)
    assert due_after("30m 2h", "good", tmp_path) == timedelta(hours=2)


def test_changed_steps_replay_every_card_and_the_preview_follows_them():
    with History.open() as history:
        history.record(attempt("a1", rating="good", at=T0))
        assert history.due_dates()["a1"] == T0 + timedelta(minutes=10)
        Settings(learning_steps="5m 1h").save(history)
        assert history.due_dates()["a1"] == T0 + timedelta(hours=1), "replayed under the new steps"
        at = T0 + timedelta(hours=1)
        previewed = next_due(history, "a1", at)["again"]
        history.record(attempt("a1", rating="again", at=at))
        assert history.due_dates()["a1"] == previewed == at + timedelta(minutes=5)


def test_relearning_steps_set_when_a_forgotten_review_card_comes_back():
    with History.open() as history:
        Settings(relearning_steps="45m").save(history)
        history.record(attempt("a1", rating="easy", at=T0))
        lapse = T0 + timedelta(days=30)
        history.record(attempt("a1", rating="again", at=lapse))
        assert history.due_dates()["a1"] == lapse + timedelta(minutes=45)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1m 10x", "'10x' is not a step; write a whole number and a unit (s, m, h or d)"),
        ("ten minutes", "'ten' is not a step"),
        ("1.5m", "'1.5m' is not a step"),
        ("0m", "'0m' must be from 1s to 30d"),
        ("31d", "'31d' must be from 1s to 30d"),
        (" ".join(["1m"] * 11), "at most 10 steps, not 11"),
    ],
)
def test_steps_grill_cannot_use_are_refused_saying_what_is_wrong(text, message):
    with pytest.raises(ValueError, match="learning steps: " + re.escape(message)):
        parse_steps(text)
    with pytest.raises(ValueError):
        Settings(learning_steps=text)


def test_steps_parse_as_anki_writes_them_and_none_is_allowed():
    assert parse_steps("1m 10m") == (timedelta(minutes=1), timedelta(minutes=10))
    assert parse_steps(" 30s  2h 1d ") == (
        timedelta(seconds=30),
        timedelta(hours=2),
        timedelta(days=1),
    )
    assert parse_steps("") == ()


@pytest.mark.parametrize("hour", [-1, 24, 4.5, "4", True])
def test_a_day_start_that_is_no_hour_is_refused_and_a_stored_one_falls_back(hour):
    with pytest.raises(ValueError, match="hour the day starts at must be"):
        Settings(day_starts_at=hour)
    with History.open() as history:
        history.set_setting("day_starts_at", hour)
        assert day_start_hour() == 4 == Settings.load(history).day_starts_at


def test_a_stored_step_text_grill_cannot_use_schedules_with_the_default():
    with History.open() as history:
        history.set_setting("learning_steps", "soon")
        history.record(attempt("a1", rating="again", at=T0))
        assert history.due_dates()["a1"] == T0 + timedelta(minutes=1)
        assert Settings.load(history).learning_steps == "1m 10m"


def test_the_export_carries_the_scheduling_settings(tmp_path: Path):
    with History.open() as history:
        Settings(day_starts_at=6, learning_steps="2m 20m", relearning_steps="5m").save(history)
        settings = current_state(history, Drafts(tmp_path))["settings"]
    assert (
        settings["day_starts_at"],
        settings["learning_steps"],
        settings["relearning_steps"],
    ) == (
        6,
        "2m 20m",
        "5m",
    )


def test_statistics_count_an_attempt_at_2_am_for_the_day_before():
    with History.open() as history:
        history.record(attempt("a1", at=local(3, 2)))
        stats = compute_stats(history, [loaded_card("a1")], now=local(3, 12))
        assert [day.attempts for day in stats.activity[-2:]] == [1, 0], "the evening's day"
        assert stats.streak_days == 1, "yesterday's practice keeps the streak until today ends"
        Settings(day_starts_at=0).save(history)
        stats = compute_stats(history, [loaded_card("a1")], now=local(3, 12))
        assert [day.attempts for day in stats.activity[-2:]] == [0, 1]
