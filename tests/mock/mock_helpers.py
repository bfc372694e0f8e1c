"""Helpers for the mock interview tests: fixture cards, a fake clock, a fake code runner, an app factory.

A module of its own (not conftest) so `from mock_helpers import ...` cannot pick up another
folder's conftest.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from checkers.verdict import Verdict
from questions.library import LoadedCard
from questions.model import Card

FIXTURE_PACK = Path(__file__).parent / "fixtures" / "mockpack"
SIZE = (120, 40)


class FakeClock:
    """A monotonic clock the test moves by hand, so no test ever waits."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class FakeRunner:
    """Stands in for the sandbox: `clean` when the code calls .item(), else `leak`, at once."""

    def __init__(self) -> None:
        self.graded: list[str] = []
        self.cancelled = 0

    def warm(self, device: str) -> None:
        pass

    def grade(self, task, source: str, *, device: str) -> Verdict:
        self.graded.append(source)
        kind = "clean" if ".item()" in source else "leak"
        return Verdict(verdict=kind, device=device, steps=60, message=f"fake grader says {kind}")

    def cancel(self) -> None:
        self.cancelled += 1

    def close(self) -> None:
        pass


def load_fixture_cards() -> dict[str, LoadedCard]:
    cards = {}
    for path in sorted(FIXTURE_PACK.glob("*.yaml")):
        if path.name == "pack.yaml":
            continue
        card = Card.model_validate(yaml.safe_load(path.read_text()))
        cards[card.id] = LoadedCard(card=card, path=path, pack="mockpack")
    return cards


def app_for(session, history, clock, screen_class, **screen_kwargs):
    """A GrillApp that opens straight on a mock screen, with a fake code runner and the fake clock."""
    from app.ui.app import GrillApp

    runner = FakeRunner()
    app = GrillApp(
        history=history,
        runner=runner,
        clock=clock,
        start_screen=lambda: screen_class(session, **screen_kwargs),
    )
    return app, runner


def text_of(app, selector) -> str:
    return str(app.screen.query_one(selector).render())
