"""Fixtures for the mock interview tests: the fixture cards, a fake clock, a history in tmp."""

from __future__ import annotations

import pytest

from mock_helpers import FakeClock, load_fixture_cards
from questions.model import LoadedCard


@pytest.fixture
def cards() -> dict[str, LoadedCard]:
    return load_fixture_cards()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def history(tmp_path, monkeypatch):
    from app.progress.history import History

    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    with History.open(tmp_path / "history.db") as opened:
        yield opened
