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


class FakeGrader:
    """Stands in for the sandbox: `clean` when the code calls .item(), else `leak`, at once."""

    def __init__(self) -> None:
        self.graded: list[str] = []
        self.cancelled = 0

    def warm(self, device: str) -> None:
        pass

    def grade(self, source: str, *, device: str, steps: int):
        from checkers.verdict import Verdict

        self.graded.append(source)
        kind = "clean" if ".item()" in source else "leak"
        return Verdict(verdict=kind, device=device, steps=steps, message=f"fake grader says {kind}")

    def cancel(self) -> None:
        self.cancelled += 1

    def close(self) -> None:
        pass


@pytest.fixture
def history(tmp_path, monkeypatch):
    from app.progress.history import History

    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    with History.open(tmp_path / "history.db") as opened:
        yield opened


SIZE = (120, 40)


def app_for(session, history, clock, screen_class, **screen_kwargs):
    """A GrillApp that opens straight on a mock screen, with a fake grader and the fake clock."""
    from app.ui.app import GrillApp

    grader = FakeGrader()
    app = GrillApp(history=history, grader=grader, clock=clock,
                   start_screen=lambda: screen_class(session, **screen_kwargs))
    return app, grader


def text_of(app, selector) -> str:
    return str(app.screen.query_one(selector).render())
