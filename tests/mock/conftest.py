"""Fixtures for the mock interview tests: the fixture cards, a fake clock, a history in tmp."""

from __future__ import annotations

import pytest
from mock_helpers import FakeClock, load_fixture_cards

from questions.library import LoadedCard


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


@pytest.fixture
def shipped_item_card():
    """The shipped item-versus-detach card, whose "if tensor" signal must not match an answer
    that merely says "tensor"; skipped if the pack is absent."""
    from app.paths import SHIPPED_PACKS
    from questions.loader import load_library

    pack = SHIPPED_PACKS / "autograd-memory"
    cards = {c.card.id: c.card for c in load_library([pack]).cards} if pack.is_dir() else {}
    if "item-versus-detach-on-device" not in cards:
        pytest.skip("the shipped item-versus-detach card is not present")
    return cards["item-versus-detach-on-device"]
