"""Desired retention, fsrs's own parameter as Anki has it: stored in the history's settings,
used for every rating the history schedules, for a replay and for the rating buttons' preview."""

from __future__ import annotations

from datetime import timedelta

import pytest
from progress_factories import T0, attempt

from app.progress.history import History
from app.progress.preview import next_due


def due_after_two_goods(retention: float | None) -> timedelta:
    with History.open() as history:
        if retention is not None:
            history.set_setting("desired_retention", retention)
        history.record(attempt("a1", rating="good", at=T0))
        history.record(attempt("a1", rating="good", at=T0 + timedelta(days=1)))
        return history.due_dates()["a1"] - (T0 + timedelta(days=1))


def test_a_higher_retention_brings_a_card_back_sooner_and_a_lower_later():
    default = due_after_two_goods(None)
    assert due_after_two_goods(0.97) < default < due_after_two_goods(0.75)


@pytest.mark.parametrize("stored", [1.5, "high", 0.5, True])
def test_a_retention_grill_does_not_accept_schedules_with_fsrss_default(stored):
    assert due_after_two_goods(stored) == due_after_two_goods(None)


def test_the_rating_buttons_preview_what_recording_gives_at_that_retention():
    with History.open() as history:
        history.set_setting("desired_retention", 0.97)
        history.record(attempt("a1", rating="good", at=T0))
        at = T0 + timedelta(days=1)
        previewed = next_due(history, "a1", at)["good"]
        history.record(attempt("a1", rating="good", at=at))
        assert history.due_dates()["a1"] == previewed
