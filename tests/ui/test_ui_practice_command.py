"""`grill practice`: --due opens today's queue, --pack keeps named packs and refuses unknown ones."""

from __future__ import annotations

from argparse import Namespace

from pilot_wait import drained, until_screen
from ui_fakes import SIZE

from app.commands.practice import run
from app.ui.app import GrillApp
from app.ui.screens.practice import PracticeScreen


async def test_due_opens_todays_queue_once_packs_are_loaded(history, runner, clock):
    app = GrillApp(None, history, start_with_due=True, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        # The load starts after the first refresh and the queue opens after the next one.
        await until_screen(pilot, PracticeScreen)
        assert len(app.screen.queue) == min(10, len(app.library.cards)), (
            "the default daily limit of new cards"
        )
        # Textual's Header sets its title in a callback queued on mount; leaving the app in the
        # same frame would run it after the header is gone.
        await drained(pilot)


async def test_due_with_a_given_library_opens_the_queue_at_once(make_app):
    app = make_app(start_with_due=True)
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, PracticeScreen)
        assert {loaded.card.id for loaded in app.screen.queue} == {
            "no-grad",
            "retain-graph",
            "running-loss",
        }


def test_an_unknown_pack_exits_2_naming_the_loaded_packs(capsys):
    assert run(Namespace(pack=["nope"], due=False)) == 2
    error = capsys.readouterr().err
    assert "no pack named 'nope'" in error
    assert "demo" in error


async def test_due_on_a_first_start_goes_straight_to_the_queue(library, runner, clock, grill_home):
    """The first-run screen waits for a plain start rather than lie under the queue."""
    from app.progress.history import History
    from app.ui.dialogs.welcome import WelcomeDialog

    with History.open() as fresh:
        app = GrillApp(library, fresh, start_with_due=True, runner=runner, clock=clock)
        async with app.run_test(size=SIZE) as pilot:
            await until_screen(pilot, PracticeScreen)
            assert not any(isinstance(screen, WelcomeDialog) for screen in app.screen_stack)
            await drained(pilot)
