"""`grill queue [--days N]`: the queue `d` practises today or on another day, read only."""

from __future__ import annotations

from pathlib import Path

import pytest
from progress_factories import attempt

from app import paths
from app.cli import main
from app.clock import utc_now
from app.progress.history import History

FIXTURE_PACKS = Path(__file__).resolve().parents[1] / "ui" / "fixtures" / "packs"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACKS))
    monkeypatch.setattr(paths, "SHIPPED_PACKS", tmp_path / "no-shipped-packs")


def test_a_card_due_in_three_days_is_in_that_days_queue_not_todays(capsys):
    with History.open() as history:
        history.record(attempt("running-loss", rating="easy", at=utc_now()))
        due = history.due_dates()["running-loss"]
        count_before = len(history.attempts())
    days = (due - utc_now()).days + 1
    assert main(["queue"]) == 0
    today = capsys.readouterr().out
    assert main(["queue", "--days", str(days)]) == 0
    later = capsys.readouterr().out
    assert "running-loss" not in today.split("in order:")[1]
    assert f"in {days} days" in later and "running-loss" in later.split("in order:")[1]
    assert "every pack" in later and "1 due" in later
    with History.open() as history:
        assert len(history.attempts()) == count_before, "nothing recorded"


def test_a_negative_day_is_a_usage_error_saying_the_range(capsys):
    assert main(["queue", "--days", "-1"]) == 2
    assert "from 0 to 3,650" in capsys.readouterr().err
