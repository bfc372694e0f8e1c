"""Finding your way: help on every screen, the first-run screen, keys in the footer and the palette,
a notice below the usable size, and notices that do not outlive their screen."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from pilot_wait import drained, until, until_screen
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey
from ui_fakes import SIZE

import app.ui.dialogs.card_actions
import app.ui.dialogs.confirm
import app.ui.dialogs.help
import app.ui.dialogs.self_grade
import app.ui.dialogs.settings
import app.ui.dialogs.solution
import app.ui.dialogs.welcome
import app.ui.screens.home
import app.ui.screens.mock
import app.ui.screens.mock_interviewer
import app.ui.screens.mock_report
import app.ui.screens.mock_review
import app.ui.screens.practice
import app.ui.screens.stats
from app.progress.history import History
from app.ui.app import GrillApp
from app.ui.base import MIN_HEIGHT, MIN_WIDTH, GrillDialog, GrillScreen, TooSmallNotice
from app.ui.commands import ScreenCommands
from app.ui.dialogs.confirm import LeaveCardDialog
from app.ui.dialogs.help import HelpDialog
from app.ui.dialogs.welcome import WelcomeDialog
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.screens.stats import StatsScreen

SCREEN_MODULES = [
    app.ui.screens.home,
    app.ui.screens.practice,
    app.ui.screens.stats,
    app.ui.screens.mock,
    app.ui.screens.mock_interviewer,
    app.ui.screens.mock_review,
    app.ui.screens.mock_report,
    app.ui.dialogs.self_grade,
    app.ui.dialogs.settings,
    app.ui.dialogs.help,
    app.ui.dialogs.solution,
    app.ui.dialogs.welcome,
    app.ui.dialogs.confirm,
    app.ui.dialogs.card_actions,
]


def screen_classes() -> list[type]:
    return [
        cls
        for module in SCREEN_MODULES
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__ and issubclass(cls, (GrillScreen, GrillDialog))
    ]


@pytest.mark.parametrize("screen", screen_classes(), ids=lambda cls: cls.__name__)
def test_every_screen_says_what_it_is_for_and_styles_itself_in_the_app_stylesheet(screen):
    """The one CSS rule (app/ui/__init__.py): screens and dialogs in grill.tcss, widgets in DEFAULT_CSS."""
    assert screen.HELP or screen.__name__ == "MockStepsScreen", "the help dialog shows HELP"
    assert "DEFAULT_CSS" not in vars(screen)


def help_lines(dialog: HelpDialog) -> list[str]:
    return str(dialog.query_one("#help-keys", Static).render()).splitlines()


async def test_f1_and_question_mark_open_help_with_the_screens_purpose_and_every_key(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("question_mark")
        help_dialog = await until_screen(pilot, HelpDialog)
        assert str(help_dialog.query_one("#help-about", Static).render()) == HomeScreen.HELP
        lines = help_lines(help_dialog)
        assert "t      Theme: Switch between the dark and the light theme." in lines
        assert any(
            line.startswith("c      Clear: Clear the search and every filter") for line in lines
        )
        assert any(line.startswith("f1, ?  Help: ") for line in lines)
        assert not any("Copy" in line or "Focus" in line for line in lines), (
            "Textual's own keys are not listed"
        )
        await pilot.press("escape")
        await until_screen(pilot, HomeScreen)
        app.practise([app.library.card("running-loss")])
        await until_screen(pilot, PracticeScreen)
        await pilot.press("f1")
        keys = {line.split()[0] for line in help_lines(await until_screen(pilot, HelpDialog))}
        assert keys >= {"^n", "^g", "^t", "^o", "^r", "^l", "^s", "esc"}


async def test_typing_a_question_mark_in_an_answer_types_it(make_app):
    app = make_app(practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press("w", "h", "y", "question_mark")
        await until(pilot, lambda: screen.answer_text == "why?")
        assert app.screen is screen


async def test_the_first_run_explains_practice_grading_and_mocks_once(
    library, runner, clock, grill_home
):
    with History.open() as history:
        app = GrillApp(library, history, runner=runner, clock=clock)
        async with app.run_test(size=SIZE) as pilot:
            welcome = await until_screen(pilot, WelcomeDialog)
            lines = [str(s.render()) for s in welcome.query(".welcome-line")]
            assert [line.split(":")[0] for line in lines] == ["Practice", "Grading", "Mocks"]
            await pilot.press("enter")
            await until_screen(pilot, HomeScreen)
        app = GrillApp(library, history, runner=runner, clock=clock)
        async with app.run_test(size=SIZE) as pilot:
            await until_screen(pilot, HomeScreen)
            await until(pilot, lambda: app.screen.query_one("#home-cards").row_count == 3)
            assert isinstance(app.screen, HomeScreen), "shown once"


async def test_below_the_usable_size_every_screen_asks_for_a_bigger_terminal(make_app):
    """At 40x12 a screen shows the size notice instead of a layout squeezed out of shape."""
    app = make_app(practising=["running-loss"])
    async with app.run_test(size=(40, 12)) as pilot:
        screen = await until_screen(pilot, PracticeScreen)
        notice = await until(pilot, lambda: screen.query_one(TooSmallNotice))
        await until(pilot, lambda: notice.display)
        assert f"at least {MIN_WIDTH}x{MIN_HEIGHT}" in str(notice.render())
        assert not screen.query_one("#practice-top").display
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: not notice.display)
        assert screen.query_one("#practice-top").display


def footer_keys(app) -> dict[str, str]:
    return {key.key: key.description for key in app.screen.query_one(Footer).query(FooterKey)}


async def test_the_footer_shows_every_key_a_screen_is_used_with(make_app):
    """Practice shows ^t, ^l and ^s, and home shows t."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(
            pilot, lambda: {"p", "d", "m", "s", "o", "t", "c", "q"} <= set(footer_keys(app))
        )
        app.practise([app.library.card("running-loss")])
        await until_screen(pilot, PracticeScreen)
        keys = await until(pilot, lambda: "ctrl+n" in footer_keys(app) and footer_keys(app))
        assert {"ctrl+n", "ctrl+g", "ctrl+t", "ctrl+r", "ctrl+l", "ctrl+s", "escape"} <= set(keys)
        palette = app.screen.query_one("FooterKey.-command-palette").region
        assert all(
            key.region.right <= palette.x
            for key in app.screen.query(FooterKey)
            if not key.has_class("-command-palette")
        ), "nothing cut at 80 columns"


async def test_the_footer_is_rebuilt_only_when_what_it_shows_changes(make_app):
    """Textual's footer composes its keys again on every update of the screen's bindings, which
    each focus change makes; grill's keeps its keys while they stay the same, compact."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        keys = await until(pilot, lambda: "p" in footer_keys(app) and list(home.query(FooterKey)))
        assert all(key.has_class("-compact") for key in keys)
        home.refresh_bindings()
        await drained(pilot)
        assert list(home.query(FooterKey)) == keys
        app.practise([app.library.card("running-loss")])
        await until_screen(pilot, PracticeScreen)
        await until(pilot, lambda: "ctrl+n" in footer_keys(app))


async def test_the_palette_gives_each_command_its_key_and_what_it_does(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        hits = {hit.display: hit.help async for hit in ScreenCommands(app.screen).discover()}
        assert hits["Theme"] == "t · Switch between the dark and the light theme."
        assert hits["Practise"].startswith("p · Practise the listed cards")
        assert not any(name.islower() for name in hits), "no lowercase 'palette' entry"
        assert not any(text.endswith("command") for text in hits.values())


async def test_a_screens_notice_does_not_follow_you_to_the_next_screen(make_app, runner):
    """Practice's notices (a run's "No more hints", say) are gone once the Stats screen opens."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        app.practise([app.library.card("no-grad")])
        await until_screen(pilot, PracticeScreen)
        app.screen.notify("a notice of the card's", title="Card notice")
        await pilot.press(*"draft", "escape")
        await until_screen(pilot, LeaveCardDialog)
        await pilot.press("enter")
        await until_screen(pilot, HomeScreen)
        await pilot.press("s")
        await until_screen(pilot, StatsScreen)
        assert not any(n.title == "Card notice" for n in app._notifications)


async def test_with_a_broken_history_a_theme_change_says_it_is_not_saved(
    library, runner, clock, grill_home: Path
):
    """Rather than the change being lost at the next start without a word."""
    grill_home.mkdir(parents=True)
    (grill_home / "history.db").write_bytes(b"this is not a database" * 100)
    app = GrillApp(library, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("t")
        await until(pilot, lambda: app.theme == "textual-light")
        assert any(
            n.title == "Settings not saved" and "history" in n.message for n in app._notifications
        )


async def test_a_practice_screen_reaches_the_app_through_its_typed_accessor(make_app):
    app = make_app(practising=["no-grad"])
    async with app.run_test(size=SIZE) as pilot:
        assert (await until_screen(pilot, PracticeScreen)).grill is app
