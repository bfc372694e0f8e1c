"""The due queue: reviews first, then a daily ration of new cards, then more when asked."""

from __future__ import annotations

from datetime import timedelta

import pytest
from progress_factories import T0, attempt

from app.progress.history import DEFAULT_NEW_PER_DAY, History

NOW = T0 + timedelta(days=60)


@pytest.fixture
def history():
    with History.open() as opened:
        yield opened


def seen(history: History, card_id: str, due_in: timedelta) -> None:
    """Record one attempt on `card_id`, then force its due time relative to NOW."""
    history.record(attempt(card_id, at=T0))
    history.connection.execute(
        "UPDATE card_state SET due = ? WHERE card_id = ?",
        ((NOW + due_in).isoformat(timespec="microseconds"), card_id),
    )


def test_due_cards_come_first_most_overdue_first(history):
    seen(history, "a-bit-late", -timedelta(hours=1))
    seen(history, "very-late", -timedelta(days=5))
    seen(history, "not-yet", timedelta(days=3))
    queue = history.due_queue(
        ["a-bit-late", "not-yet", "very-late", "new-one"], now=NOW, new_per_day=0
    )
    assert queue == ["very-late", "a-bit-late"]


def test_new_cards_follow_in_the_given_order_up_to_the_daily_limit(history):
    seen(history, "late", -timedelta(days=1))
    queue = history.due_queue(["n1", "late", "n2", "n3"], now=NOW, new_per_day=2)
    assert queue == ["late", "n1", "n2"]


def test_cards_introduced_today_use_up_the_new_card_limit(history):
    history.record(attempt("started-this-morning", at=NOW - timedelta(minutes=5)))
    queue = history.due_queue(["n1", "n2", "n3"], now=NOW, new_per_day=2)
    assert queue == ["n1"]


def test_the_limit_comes_from_the_setting_when_not_given(history):
    new_cards = [f"new-{n}" for n in range(DEFAULT_NEW_PER_DAY + 5)]
    assert len(history.due_queue(new_cards, now=NOW)) == DEFAULT_NEW_PER_DAY
    history.set_setting("new_per_day", 2)
    assert history.due_queue(new_cards, now=NOW) == new_cards[:2]


def test_extra_adds_not_yet_due_cards_soonest_first_then_more_new_cards(history):
    seen(history, "in-a-week", timedelta(days=7))
    seen(history, "in-two-days", timedelta(days=2))
    queue = history.due_queue(
        ["in-a-week", "in-two-days", "n1", "n2"], now=NOW, new_per_day=1, extra=3
    )
    assert queue == ["n1", "in-two-days", "in-a-week", "n2"]


def test_without_extra_nothing_beyond_what_is_due_is_offered(history):
    seen(history, "in-a-week", timedelta(days=7))
    assert history.due_queue(["in-a-week"], now=NOW, new_per_day=5) == []


def test_cards_the_caller_cannot_show_are_left_out(history):
    seen(history, "from-a-removed-pack", -timedelta(days=1))
    assert history.due_queue(["n1"], now=NOW, new_per_day=5) == ["n1"]


def test_a_card_failed_just_now_is_due_again_later_today(history):
    history.record(attempt("failed", rating="again", at=NOW - timedelta(minutes=1)))
    assert history.due_queue(["failed"], now=NOW, new_per_day=0) == ["failed"]


def test_a_nonsense_limit_setting_falls_back_to_the_default(history):
    history.set_setting("new_per_day", "ten")
    new_cards = [f"new-{n}" for n in range(DEFAULT_NEW_PER_DAY + 5)]
    assert len(history.due_queue(new_cards, now=NOW)) == DEFAULT_NEW_PER_DAY
