"""Today's queue per pack, as Anki builds a deck's: each pack's own limit of new cards, one limit
over every pack, reviews and learning counted apart; suspended and buried cards in none; a
rating taken back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from progress_factories import T0, attempt

from app.clock import end_of_local_day
from app.progress.history import CardFlags, History
from app.progress.queue import DayCounts, Seen, build_queue
from app.progress.scheduler import review

NOW = T0 + timedelta(days=60)
CUTOFF = end_of_local_day(NOW)
PACKS = {"a": ["a1", "a2", "a3", "a4"], "b": ["b1", "b2"], "c": ["c1", "c2", "c3"]}


@pytest.fixture
def history():
    with History.open() as opened:
        yield opened


def test_every_pack_offers_its_new_cards_on_day_one_though_the_overall_limit_is_small():
    """The first pack no longer takes the whole daily ration."""
    queue = build_queue(PACKS, {}, cutoff=CUTOFF, new_per_day=3, new_per_pack=10)
    assert queue.of("b") == ("b1", "b2") and queue.of("c") == ("c1", "c2", "c3")
    assert queue.counts_of("a") == DayCounts(new=3), (
        "each pack within what the overall limit leaves"
    )


def test_every_pack_together_takes_new_cards_from_each_pack_in_turn_up_to_the_overall_limit():
    queue = build_queue(PACKS, {}, cutoff=CUTOFF, new_per_day=5, new_per_pack=10)
    assert queue.cards == ("a1", "b1", "c1", "a2", "b2")
    assert queue.total == DayCounts(new=5)


def test_a_packs_own_limit_holds_in_its_queue_and_in_every_packs():
    queue = build_queue(PACKS, {}, cutoff=CUTOFF, new_per_day=20, new_per_pack=1)
    assert queue.of("a") == ("a1",)
    assert queue.cards == ("a1", "b1", "c1")


def test_cards_introduced_today_count_against_their_pack_and_the_overall_limit():
    seen = {"a1": Seen(NOW + timedelta(days=3)), "a2": Seen(NOW + timedelta(days=2))}
    queue = build_queue(
        PACKS,
        seen,
        cutoff=CUTOFF,
        new_per_day=4,
        new_per_pack=2,
        introduced_today={"a1", "a2"},
    )
    assert queue.of("a") == (), "pack a introduced its two today"
    assert queue.of("b") == ("b1", "b2")
    assert queue.new_left == 2 and queue.cards == ("b1", "c1")


def test_due_cards_come_first_most_overdue_first_and_learning_is_counted_apart():
    seen = {
        "a3": Seen(NOW - timedelta(days=2)),
        "b1": Seen(NOW + timedelta(minutes=10), learning=True),
        "a1": Seen(NOW - timedelta(days=5)),
        "c1": Seen(NOW + timedelta(days=9)),
    }
    queue = build_queue(PACKS, seen, cutoff=CUTOFF, new_per_day=0, new_per_pack=10)
    assert queue.of("a") == ("a1", "a3")
    assert queue.cards == ("a1", "a3", "b1")
    assert queue.counts_of("b") == DayCounts(learning=1)
    assert queue.total == DayCounts(reviews=2, learning=1)
    assert queue.counts_of("c") == DayCounts()


def test_hidden_cards_are_in_no_queue():
    seen = {"a1": Seen(NOW - timedelta(days=1))}
    queue = build_queue(
        PACKS, seen, cutoff=CUTOFF, new_per_day=10, new_per_pack=10, hidden={"a1", "b1"}
    )
    assert "a1" not in queue.cards and "b1" not in queue.cards
    assert queue.of("b") == ("b2",)


def test_the_history_builds_the_queue_from_its_schedules_and_todays_introductions(history):
    history.record(attempt("a1", rating="again", at=NOW - timedelta(minutes=5)))
    history.record(attempt("b1", rating="good", at=T0))
    queue = history.todays_queue(PACKS, now=NOW, new_per_day=3, new_per_pack=2)
    assert queue.counts_of("a").learning == 1, "Again on a new card leaves it in learning"
    assert queue.of("a") == ("a1", "a2"), "a1 is due in minutes; a2 is the one new card left"
    assert queue.new_left == 2


def test_a_suspended_card_stays_out_until_it_is_brought_back(history):
    history.set_suspended("a1", True)
    assert history.card_flags() == {"a1": CardFlags(suspended=True)}
    assert "a1" not in history.todays_queue(PACKS, now=NOW).cards
    assert "a1" not in history.due_queue(PACKS["a"], now=NOW)
    history.set_suspended("a1", False)
    assert history.card_flags() == {}
    assert "a1" in history.todays_queue(PACKS, now=NOW).cards


def test_a_buried_card_comes_back_when_its_burial_ends(history):
    history.bury("b1", NOW + timedelta(hours=12))
    assert "b1" not in history.todays_queue(PACKS, now=NOW).cards
    assert "b1" in history.todays_queue(PACKS, now=NOW + timedelta(hours=13)).cards
    history.bury("b1", None)
    assert history.card_flags() == {}


def test_taking_back_a_rating_replays_the_card_or_makes_it_new_again(history):
    first = attempt("a1", rating="good", at=T0)
    second = attempt("a1", rating="again", at=T0 + timedelta(days=3))
    history.record(first)
    history.record(second)
    assert history.progress("a1").reps == 2
    assert history.undo(second.id)
    assert [a.id for a in history.attempts("a1")] == [first.id]
    after = history.progress("a1")
    assert (after.reps, after.last_rating) == (1, "good")
    assert after.due == review(None, "good", T0).due, "the schedule the first rating gave"
    assert history.undo(first.id)
    assert history.progress("a1") is None, "no attempt left: the card is new again"
    assert not history.undo(first.id)


def test_cards_a_mock_asked_today_leave_the_new_card_limit_to_practice(history):
    """A five-question mock on new cards used up the day's limit (10 new cards became 3): the
    limit is what practice introduces; the mock's cards are seen, due as their ratings say."""
    for card_id in ("a1", "a2", "b1"):
        history.record(attempt(card_id, rating="good", at=NOW - timedelta(hours=1), mode="mock"))
    history.record(attempt("c1", rating="good", at=NOW - timedelta(hours=1)))
    queue = history.todays_queue(PACKS, now=NOW, new_per_day=3, new_per_pack=2)
    assert queue.new_left == 2, "c1, from practice, is the one new card used today"
    queue = history.due_queue(PACKS["a"] + PACKS["c"], now=NOW, new_per_day=3)
    assert [card for card in queue if card in ("a3", "a4", "c2", "c3")] == ["a3", "a4"]


def test_a_card_practised_first_and_then_drawn_in_a_mock_still_counts_as_practised(history):
    history.record(attempt("a1", rating="good", at=NOW - timedelta(hours=2)))
    history.record(attempt("a1", rating="good", at=NOW - timedelta(hours=1), mode="mock"))
    assert history.todays_queue(PACKS, now=NOW, new_per_day=3).new_left == 2
