"""Fixture cards and a fake clock for the mock interview tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from questions.model import Card, LoadedCard

FIXTURE_PACK = Path(__file__).parent / "fixtures" / "mockpack"


class FakeClock:
    """A monotonic clock the test moves by hand, so no test ever waits."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def load_fixture_cards() -> dict[str, LoadedCard]:
    cards = {}
    for path in sorted(FIXTURE_PACK.glob("*.yaml")):
        if path.name == "pack.yaml":
            continue
        card = Card.model_validate(yaml.safe_load(path.read_text()))
        cards[card.id] = LoadedCard(card=card, path=path, pack="mockpack")
    return cards


@pytest.fixture
def cards() -> dict[str, LoadedCard]:
    return load_fixture_cards()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
