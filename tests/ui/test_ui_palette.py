"""The command palette offers the current screen's commands, so it changes with the screen."""

from __future__ import annotations

from pilot_wait import until, until_screen
from ui_fakes import SIZE

from app.ui.commands import ScreenCommands, screen_commands
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen


async def command_names(app) -> set[str]:
    provider = ScreenCommands(app.screen)
    return {hit.display for hit in [hit async for hit in provider.discover()]}


async def test_palette_commands_follow_the_screen(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        home = await command_names(app)
        assert {
            "Practise",
            "Due",
            "Mock",
            "Stats",
            "Settings",
            "Theme",
            "Clear",
            "Search",
            "Help",
        } <= home
        assert "Cursor down" not in home, "the focused table's keys are not commands"
        assert "Reveal" not in home
        app.practise([app.library.card("no-grad")])
        await until_screen(pilot, PracticeScreen)
        practice = await command_names(app)
        assert {"Reveal", "Grade", "Tier"} <= practice
        assert "Run" not in practice, "code commands only on cards with a code task"


async def test_a_palette_command_runs_its_action(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        provider = ScreenCommands(app.screen)
        hits = [hit async for hit in provider.search("due")]
        assert hits
        hits[0].command()
        await until_screen(pilot, PracticeScreen)


async def test_textuals_own_keys_are_not_listed_as_the_screens_commands(make_app):
    """Tab, shift+tab and ctrl+c are not commands of a screen; Quit is offered once, by the system."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        app.practise([app.library.card("no-grad")])
        await until_screen(pilot, PracticeScreen)
        practice = await command_names(app)
        assert not {"Focus Next", "Focus Previous", "Copy selected text", "Quit"} & practice


async def test_the_palette_lists_grills_commands_first_and_one_theme(make_app):
    """Textual's provider answered first with its own theme picker, a second Theme beside grill's."""
    from textual.command import CommandList, CommandPalette

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        grills = {command.name for command in screen_commands(home)}
        await pilot.press("ctrl+p")
        palette = await until_screen(pilot, CommandPalette)
        listed = palette.query_one(CommandList)
        names = await until(
            pilot,
            lambda: (
                listed.option_count > len(grills)
                and [
                    str(listed.get_option_at_index(i).prompt).split("\n")[0]
                    for i in range(listed.option_count)
                ]
            ),
        )
        assert set(names[: len(grills)]) == grills, names
        assert names.count("Theme") == 1
        assert "Quit" in names[len(grills) :], "Textual's other commands follow"
