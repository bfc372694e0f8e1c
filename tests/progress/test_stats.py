"""The progress figures: per pack, per level, streak, answer time, misses and activity."""

from __future__ import annotations

import json
import time
from datetime import date, timedelta

import pytest
from progress_factories import T0, attempt, loaded_card

from app.progress.history import History
from app.progress.stats import ACTIVITY_DAYS, ALL_PACKS, OTHER_PACK, compute_stats

NOW = T0 + timedelta(days=40, hours=3)  # 2026-04-11 12:00 UTC
TODAY = date(2026, 4, 11)
CARDS = [
    loaded_card("a1", "autograd"),
    loaded_card("a2", "autograd"),
    loaded_card("m1", "memory", basic=30, solid=60),
]


@pytest.fixture(autouse=True)
def utc_local_time(monkeypatch):
    """Days are the user's local days; pin them so expectations do not depend on the machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def history():
    with History.open() as opened:
        yield opened


def test_an_empty_history_has_zero_figures_and_lists_every_pack(history):
    stats = compute_stats(history, CARDS, now=NOW)
    assert (stats.attempts, stats.cards_seen, stats.due_today, stats.streak_days) == (0, 0, 0, 0)
    assert [(p.pack, p.cards, p.seen, p.retention) for p in stats.packs] == [
        ("autograd", 2, 0, None),
        ("memory", 1, 0, None),
    ]
    assert len(stats.activity) == ACTIVITY_DAYS and all(day.attempts == 0 for day in stats.activity)
    assert stats.answer_time.answers == 0 and stats.answer_time.mean_seconds is None


def test_cards_seen_and_due_are_counted_per_pack(history):
    history.record(
        attempt("a1", "again", at=NOW - timedelta(days=1))
    )  # relearning: due within minutes
    history.record(attempt("a2", "easy", at=NOW - timedelta(hours=1)))  # pushed days away
    history.record(attempt("m1", "again", at=NOW - timedelta(days=2)))
    packs = {p.pack: p for p in compute_stats(history, CARDS, now=NOW).packs}
    assert (packs["autograd"].seen, packs["autograd"].due) == (2, 1)
    assert (packs["memory"].seen, packs["memory"].due) == (1, 1)


def test_retention_counts_only_returns_to_a_card_and_again_as_forgotten(history):
    for days_ago, rating in [(30, "again"), (20, "good"), (10, "again"), (5, "hard")]:
        history.record(attempt("a1", rating, at=NOW - timedelta(days=days_ago)))
    history.record(attempt("m1", "good", at=NOW - timedelta(days=3)))
    packs = {p.pack: p for p in compute_stats(history, CARDS, now=NOW).packs}
    assert (packs["autograd"].reviews, packs["autograd"].recalled) == (3, 2)
    assert packs["autograd"].retention == pytest.approx(2 / 3)
    assert packs["memory"].retention is None  # one first attempt: nothing to retain yet


def test_retention_per_level_follows_the_level_answered_at(history):
    history.record(attempt("a1", "good", at=NOW - timedelta(days=9), level="junior"))
    history.record(attempt("a1", "good", at=NOW - timedelta(days=5), level="senior"))
    history.record(attempt("a1", "again", at=NOW - timedelta(days=1), level="senior"))
    tiers = {t.level: t for t in compute_stats(history, CARDS, now=NOW).levels}
    assert (tiers["junior"].reviews, tiers["senior"].reviews, tiers["senior"].recalled) == (0, 2, 1)


def test_the_json_figures_keep_calling_the_levels_tiers(history):
    history.record(attempt("a1", "good", at=NOW - timedelta(days=9), level="junior"))
    figures = compute_stats(history, CARDS, now=NOW).to_dict()
    assert "levels" not in figures
    assert figures["tiers"] == [{"tier": "junior", "reviews": 0, "recalled": 0, "retention": None}]


@pytest.mark.parametrize(
    "days_practised, streak",
    [
        ([0, 1, 2, 4], 3),
        ([1, 2, 3], 3),  # nothing yet today: yesterday's streak is still alive
        ([2, 3], 0),  # a whole day missed
        ([0], 1),
    ],
)
def test_the_streak_counts_consecutive_days_ending_today_or_yesterday(
    history, days_practised, streak
):
    for n, days_ago in enumerate(days_practised):
        history.record(attempt(f"card-{n}", at=NOW - timedelta(days=days_ago)))
    assert compute_stats(history, CARDS, now=NOW).streak_days == streak


def test_days_are_local_days(history, monkeypatch):
    monkeypatch.setenv("TZ", "JST-9")  # POSIX form (UTC+9) needs no tz database
    time.tzset()
    late_evening_utc = NOW.replace(hour=20) - timedelta(days=1)  # already today in Tokyo
    history.record(attempt("a1", at=late_evening_utc))
    stats = compute_stats(history, CARDS, now=NOW)
    assert stats.activity[-1].attempts == 1 and stats.streak_days == 1


def test_answer_time_is_measured_against_each_cards_budgets(history):
    for n, (card, seconds) in enumerate([("a1", 15.0), ("a2", 40.0), ("m1", 70.0), ("gone", 5.0)]):
        history.record(
            attempt(card, at=NOW - timedelta(hours=n + 1), phase_seconds={"answer": seconds})
        )
    history.record(
        attempt("a1", at=NOW, phase_seconds={"review": 3.0})
    )  # no answer phase: not timed
    timing = compute_stats(history, CARDS, now=NOW).answer_time
    assert (timing.answers, timing.budgeted, timing.within_basic, timing.within_solid) == (
        4,
        3,
        1,
        2,
    )
    assert timing.mean_seconds == pytest.approx(32.5)
    assert timing.mean_basic_budget == pytest.approx((20 + 20 + 30) / 3)


def test_the_most_missed_key_points_and_red_flags_come_first(history):
    misses = [
        ("a1", ("zero_grad",), ()),
        ("a1", ("zero_grad", "detach"), ("item leaks",)),
        ("m1", ("detach",), ()),
    ]
    for n, (card, missed, flags) in enumerate(misses):
        history.record(
            attempt(
                card, at=NOW - timedelta(hours=n), key_points_missed=missed, red_flags_said=flags
            )
        )
    stats = compute_stats(history, CARDS, now=NOW)
    assert [(m.card_id, m.text, m.times) for m in stats.missed_key_points] == [
        ("a1", "zero_grad", 2),
        ("a1", "detach", 1),
        ("m1", "detach", 1),
    ]
    assert [(m.text, m.times) for m in stats.red_flags_said] == [("item leaks", 1)]


def test_the_activity_strip_counts_attempts_per_day_oldest_first(history):
    for n, days_ago in enumerate([0, 0, 3, ACTIVITY_DAYS + 2]):
        history.record(attempt(f"c{n}", at=NOW - timedelta(days=days_ago)))
    activity = compute_stats(history, CARDS, now=NOW).activity
    assert activity[-1].day == TODAY and activity[0].day == TODAY - timedelta(
        days=ACTIVITY_DAYS - 1
    )
    assert [a.attempts for a in activity[-4:]] == [1, 0, 0, 2]
    assert sum(a.attempts for a in activity) == 3


def test_cards_no_pack_has_any_more_are_grouped_as_other_and_never_due(history):
    history.record(attempt("removed-card", "again", at=NOW - timedelta(days=1)))
    stats = compute_stats(history, CARDS, now=NOW)
    other = next(p for p in stats.packs if p.pack == OTHER_PACK)
    assert (other.seen, other.due, stats.due_today) == (1, 0, 0)


def test_without_cards_everything_is_one_group(history):
    history.record(attempt("a1", "again", at=NOW - timedelta(days=1)))
    history.record(attempt("m1", "easy", at=NOW - timedelta(days=1)))
    stats = compute_stats(history, now=NOW)
    assert [(p.pack, p.cards, p.seen, p.due) for p in stats.packs] == [(ALL_PACKS, 2, 2, 1)]


def test_to_dict_is_json_with_retention_included(history):
    history.record(attempt("a1", at=NOW - timedelta(days=3)))
    history.record(attempt("a1", at=NOW - timedelta(days=1)))
    data = json.loads(json.dumps(compute_stats(history, CARDS, now=NOW).to_dict()))
    assert data["packs"][0]["retention"] == 1.0
    assert data["activity"][-1] == {"day": TODAY.isoformat(), "attempts": 0}
    assert data["generated_at"].startswith("2026-04-11T12:00")


def test_an_answer_given_in_code_alone_times_no_answer_and_misses_no_key_point(history):
    """A code task opened with nothing typed: its answer clock stopped as the code opened (4 s,
    '100% within basic'), and the key points left unticked were never answered in words. An
    answer typed before the code counts as any other."""
    code_only = {"answer": 4.0, "code": 300.0}
    history.record(
        attempt(
            "a1", at=NOW - timedelta(hours=2), phase_seconds=code_only, key_points_missed=("p",)
        )
    )
    history.record(
        attempt(
            "a2",
            at=NOW - timedelta(hours=1),
            phase_seconds={"answer": 40.0, "code": 100.0},
            answer_text="the loss keeps its graph",
            key_points_missed=("q",),
        )
    )
    stats = compute_stats(history, CARDS, now=NOW)
    assert (stats.answer_time.answers, stats.answer_time.mean_seconds) == (1, 40.0)
    assert [(m.card_id, m.text) for m in stats.missed_key_points] == [("a2", "q")]
