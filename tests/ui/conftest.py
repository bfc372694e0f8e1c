"""UI tests run against the fixture pack, a GRILL_HOME in tmp, frozen clocks and a fake code runner."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from ui_fakes import NOW, FakeClock, FakeRunner

from app.progress.history import History
from app.ui.app import GrillApp
from app.ui.screens.practice import practice_screen
from questions.library import Library
from questions.loader import load_library

FIXTURE_PACKS = Path(__file__).parent / "fixtures" / "packs"


@pytest.fixture(autouse=True)
def grill_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "grill-home"
    monkeypatch.setenv("GRILL_HOME", str(home))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACKS))
    return home


@pytest.fixture
def library() -> Library:
    loaded = load_library([FIXTURE_PACKS])
    assert not loaded.problems, loaded.problems
    return loaded


@pytest.fixture
def history(grill_home: Path):
    """A fresh history whose user has seen the first-run screen (its own test opens without)."""
    with History.open() as opened:
        opened.set_setting("welcomed", True)
        yield opened


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def runner() -> FakeRunner:
    return FakeRunner()


@pytest.fixture
def make_app(library, history, clock, runner):
    """Build a GrillApp over the fixtures; keyword arguments override any part."""

    def make(*, practising: Sequence[str] = (), **overrides) -> GrillApp:
        """`practising=[card ids]` opens the app on the practice of those cards, as home's
        practise would, without composing and drawing home first: for a test of the practice
        screen alone (home's own way into practice is tested through home)."""
        if practising:
            overrides["start_screen"] = lambda: practice_screen(
                app, [app.library.card(card_id) for card_id in practising]
            )
        options = {
            "library": library,
            "history": history,
            "runner": runner,
            "clock": clock,
            "now": lambda: NOW,
            **overrides,
        }
        app = GrillApp(options.pop("library"), options.pop("history"), **options)
        return app

    return make
