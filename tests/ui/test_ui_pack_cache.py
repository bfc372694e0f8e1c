"""The app starts from the pack cache: home lists every card without
reading a card file, a card is read whole when it is opened, and one whose file broke after the
start is skipped with a note instead of breaking the app."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from pilot_wait import until
from textual.widgets import Static
from ui_fakes import SIZE

from app.ui import app as app_module
from app.ui.app import GrillApp
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.card_table import CardTable
from questions import cache as cache_module
from questions import loader

FIXTURE_PACKS = Path(__file__).parent / "fixtures" / "packs"


@pytest.fixture
def packs(tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "packs"
    shutil.copytree(FIXTURE_PACKS, copy)
    monkeypatch.setenv("GRILL_PACKS", str(copy))
    monkeypatch.setattr(cache_module, "RACY_NS", 0)  # the copies are not 'just changed'
    return copy


@pytest.fixture
def reads(monkeypatch) -> list[Path]:
    """Every card file the loader parses."""
    found: list[Path] = []
    real = loader._read_card

    def counted(path, *args, **kwargs):
        found.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(loader, "_read_card", counted)
    return found


async def started(app: GrillApp, pilot) -> None:
    """Wait until home lists the loaded cards (a condition, not a time)."""
    await until(
        pilot,
        lambda: (
            app.library is not None and app.screen.query_one("#home-cards", CardTable).row_count
        ),
    )


async def test_a_second_start_lists_every_card_without_reading_one(
    packs, reads, history, runner, clock
):
    first = GrillApp(None, history, runner=runner, clock=clock)
    async with first.run_test(size=SIZE) as pilot:
        await started(first, pilot)
        listed = first.screen.query_one("#home-cards", CardTable).row_count
    assert reads, "the first start reads the cards (and caches them)"
    reads.clear()
    second = GrillApp(None, history, runner=runner, clock=clock)
    async with second.run_test(size=SIZE) as pilot:
        await started(second, pilot)
        assert second.screen.query_one("#home-cards", CardTable).row_count == listed
        assert reads == [], "nothing read on a start from the cache"
        await pilot.press("enter")
        assert isinstance(second.screen, PracticeScreen)
        assert reads == [second.screen.loaded.path], "the opened card alone is read whole"


async def test_a_card_whose_file_broke_after_the_start_is_skipped_with_a_note(
    packs, history, runner, clock
):
    app = GrillApp(None, history, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
    app = GrillApp(None, history, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        home = app.screen
        ours = [n for n, card in enumerate(home.shown) if card.path.is_relative_to(packs)]
        first, second = home.shown[ours[0]], home.shown[ours[0] + 1]
        assert second.path.is_relative_to(packs), "never a shipped card's file"
        first.path.write_text("id: [not a card\n")
        table = home.query_one("#home-cards", CardTable)
        table.move_cursor(row=ours[0])
        await until(pilot, lambda: table.cursor_row == ours[0])
        await pilot.press("enter")
        assert isinstance(app.screen, PracticeScreen)
        assert app.screen.loaded is second
        notes = [n.message for n in app._notifications]
        assert any(str(first.path) in note and "no longer loads" in note for note in notes)


async def test_packs_that_load_quickly_open_home_once_with_every_card_listed(
    packs, history, runner, clock, monkeypatch
):
    """Home waits for its packs (HOME_WAIT_S) and opens whole: no 'Loading packs…' first."""
    from app.ui.screens.home import HomeScreen

    monkeypatch.setattr(app_module, "HOME_WAIT_S", 30.0)
    loaded_at_mount: list[bool] = []
    real_mount = HomeScreen.on_mount

    def mount(screen: HomeScreen) -> None:
        loaded_at_mount.append(screen.grill.library is not None)
        real_mount(screen)

    monkeypatch.setattr(HomeScreen, "on_mount", mount)
    app = GrillApp(None, history, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        assert loaded_at_mount == [True]
        assert not app.screen.query_one("#home-cards", CardTable).loading


async def test_packs_slower_than_the_wait_open_home_saying_so_then_list_them(
    packs, history, runner, clock, monkeypatch
):
    release = threading.Event()
    real_load = loader.load_library

    def slow_load(*args, **kwargs):
        release.wait(timeout=60)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(loader, "load_library", slow_load)
    monkeypatch.setattr(app_module, "HOME_WAIT_S", 0.05)
    app = GrillApp(None, history, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        due = await until(pilot, lambda: app.screen.query_one("#home-due", Static))
        await until(pilot, lambda: "Loading packs" in str(due.render()))
        assert app.screen.query_one("#home-cards", CardTable).loading
        release.set()
        await started(app, pilot)
        assert not app.screen.query_one("#home-cards", CardTable).loading
        assert "Loading packs" not in str(due.render())
