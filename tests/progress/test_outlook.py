"""Mastery per pack and tag, retention, and the 14-day due forecast that the Stats screen draws."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from progress_factories import T0, attempt, loaded_card

from app.progress.history import History
from app.progress.outlook import FORECAST_DAYS, compute_outlook
from app.progress.preview import next_due


def tagged(card_id: str, pack: str, *tags: str):
    loaded = loaded_card(card_id, pack)
    return replace(loaded, card=loaded.card.model_copy(update={"tags": list(tags)}))


CARDS = [
    tagged("a1", "autograd", "graphs"),
    tagged("a2", "autograd", "graphs", "memory"),
    tagged("a3", "autograd", "memory"),
    tagged("m1", "mixed", "memory"),
]


def test_mastery_is_the_share_of_cards_last_rated_good_or_easy_per_pack_and_tag(home):
    with History.open() as history:
        history.record(attempt("a1", "again", T0))
        history.record(attempt("a1", "good", T0 + timedelta(days=1)))
        history.record(attempt("a2", "easy", T0))
        history.record(attempt("a3", "hard", T0))
        history.record(attempt("a3", "again", T0 + timedelta(days=1)))
        outlook = compute_outlook(history, CARDS, now=T0 + timedelta(days=2))
    packs = {m.name: m for m in outlook.packs}
    assert (packs["autograd"].cards, packs["autograd"].mastered) == (3, 2)
    assert (packs["mixed"].cards, packs["mixed"].mastered, packs["mixed"].retention) == (1, 0, None)
    assert packs["autograd"].retention == 0.5, (
        "two reviews: a1 recalled (good), a3 forgotten (again)"
    )
    tags = {m.name: m for m in outlook.tags}
    assert [m.name for m in outlook.tags] == ["graphs", "memory"]
    assert (tags["graphs"].cards, tags["graphs"].mastered, tags["graphs"].share) == (2, 2, 1.0)
    assert (tags["memory"].cards, tags["memory"].mastered) == (3, 1)


def test_the_forecast_counts_cards_due_each_day_with_overdue_ones_today(home):
    with History.open() as history:
        for card_id in ("a1", "a2", "a3"):
            history.record(attempt(card_id, "good", T0))
        dues = sorted(history.progress(c).due for c in ("a1", "a2", "a3"))
        now = dues[0] + timedelta(days=1)
        outlook = compute_outlook(history, CARDS, now=now)
    assert len(outlook.forecast) == FORECAST_DAYS
    assert outlook.forecast[0].count >= 1, "the overdue card is due today"
    assert sum(day.count for day in outlook.forecast) <= 3
    assert [day.day for day in outlook.forecast] == sorted(day.day for day in outlook.forecast)


def test_cards_no_pack_has_any_more_are_left_out(home):
    with History.open() as history:
        history.record(attempt("gone", "good", T0))
        outlook = compute_outlook(history, CARDS, now=T0)
    assert all(m.name != "other" for m in outlook.packs)
    assert sum(day.count for day in outlook.forecast) == 0


def test_the_preview_gives_each_rating_its_next_due_date_and_recording_agrees(home):
    with History.open() as history:
        history.record(attempt("a1", "good", T0))
        at = T0 + timedelta(days=3)
        preview = next_due(history, "a1", at)
        assert preview["again"] < preview["hard"] <= preview["good"] < preview["easy"]
        history.record(attempt("a1", "good", at))
        assert history.progress("a1").due == preview["good"]
