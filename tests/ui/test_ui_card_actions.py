"""What Anki users expect: undo the last rating; skip, bury or suspend a card; see each pack's
reviews, learning and new cards on home."""

from __future__ import annotations

from pilot_wait import drained, until, until_screen
from textual.widgets import OptionList
from ui_fakes import SIZE

from app.ui.dialogs.card_actions import CardActionsDialog
from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.card_table import CardTable


def status_of(home: HomeScreen, card_id: str) -> str:
    table = home.query_one("#home-cards", CardTable)
    row = [c.card.id for c in home.shown].index(card_id)
    return table.row_at(row).status


async def rate(pilot, key: str) -> None:
    await pilot.press("ctrl+g")
    await until_screen(pilot, SelfGradeDialog)
    await pilot.press(key)


async def test_ctrl_z_takes_back_the_last_rating_and_opens_its_card_again(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        app.practise([app.library.card(c) for c in ("no-grad", "retain-graph")])
        first = await until_screen(pilot, PracticeScreen)
        await rate(pilot, "1")
        second = await until(
            pilot,
            lambda: (
                isinstance(app.screen, PracticeScreen) and app.screen is not first and app.screen
            ),
        )
        assert second.card.id == "retain-graph" and len(history.attempts()) == 1
        assert any(n.title == "Recorded · ctrl+z takes it back" for n in app._notifications)
        await pilot.press(*"typing")
        await until(pilot, lambda: second.answer_text == "typing")
        await pilot.press("ctrl+z")
        await until(pilot, lambda: second.answer_text == "")
        assert app.screen is second, "typing is undone before the rating"
        await pilot.press("ctrl+z")
        again = await until(
            pilot,
            lambda: (
                isinstance(app.screen, PracticeScreen)
                and app.screen.card.id == "no-grad"
                and app.screen
            ),
        )
        assert history.attempts() == [] and history.progress("no-grad") is None
        assert again.ratings == () and len(again.queue) == 2
        await pilot.press("ctrl+z")
        notice = await until(
            pilot,
            lambda: [n.message for n in app._notifications if n.message.startswith("Nothing more")],
        )
        assert notice == [
            "Nothing more to undo: the rating of no-grad was taken back, and grill takes back"
            " only the last rating."
        ], "a card was rated: not 'no card was rated since grill started'"


async def test_u_on_home_takes_back_the_rating_that_ended_the_queue(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        app.practise([app.library.card("no-grad")])
        await until_screen(pilot, PracticeScreen)
        await rate(pilot, "3")
        await until(pilot, lambda: app.screen is home)
        assert status_of(home, "no-grad") != "new"
        await pilot.press("u")
        practice = await until_screen(pilot, PracticeScreen)
        assert practice.card.id == "no-grad" and history.attempts() == []


async def test_skip_moves_on_without_a_rating_and_the_card_stays_due(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        app.practise([app.library.card(c) for c in ("no-grad", "retain-graph")])
        await until_screen(pilot, PracticeScreen)
        await pilot.press("f4")
        await until_screen(pilot, CardActionsDialog)
        await pilot.press("s")
        await until(
            pilot,
            lambda: isinstance(app.screen, PracticeScreen) and app.screen.card.id == "retain-graph",
        )
        assert history.attempts() == []
        app.pop_screen()
        await until(pilot, lambda: app.screen is home)
        assert "no-grad" in home.due


async def test_bury_keeps_a_card_out_of_todays_queue_and_home_says_so(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        app.practise([app.library.card("no-grad")])
        await until_screen(pilot, PracticeScreen)
        await pilot.press("f4")
        await until_screen(pilot, CardActionsDialog)
        await pilot.press("b")
        await until(pilot, lambda: app.screen is home)
        await until(pilot, lambda: status_of(home, "no-grad") == "buried")
        assert "no-grad" not in home.due and history.attempts() == []
        table = home.query_one("#home-cards", CardTable)
        table.move_cursor(row=[c.card.id for c in home.shown].index("no-grad"))
        await pilot.press("b")
        await until(pilot, lambda: status_of(home, "no-grad") == "new")
        assert "no-grad" in home.due


async def test_suspend_takes_a_card_out_of_every_queue_until_x_on_home(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        table = home.query_one("#home-cards", CardTable)
        table.move_cursor(row=[c.card.id for c in home.shown].index("retain-graph"))
        await until(pilot, lambda: home.selected_card.card.id == "retain-graph")
        await pilot.press("x")
        await until(pilot, lambda: status_of(home, "retain-graph") == "suspended")
        assert "retain-graph" not in home.due
        packs = home.query_one("#home-packs", OptionList)
        assert packs.get_option_at_index(1).prompt.plain.endswith("new 2  learn 0  due 0")
        await pilot.press("d")
        practice = await until_screen(pilot, PracticeScreen)
        assert "retain-graph" not in [c.card.id for c in practice.queue]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is home)
        await until(pilot, lambda: home.selected_card.card.id == "retain-graph")
        await pilot.press("x")
        await until(pilot, lambda: status_of(home, "retain-graph") == "new")
        await drained(pilot)
        assert "retain-graph" in home.due


async def test_home_counts_cards_in_learning_apart(make_app, history):
    from ui_fakes import NOW

    from app.progress.attempt import Attempt

    history.record(
        Attempt(
            card_id="no-grad",
            mode="practice",
            rating="again",
            level="middle",
            phase_seconds={},
            started_at=NOW,
        )
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        packs = home.query_one("#home-packs", OptionList)
        assert packs.get_option_at_index(1).prompt.plain.endswith(
            "3 cards · 1 seen\nnew 2  learn 1  due 0"
        )


async def test_undoing_one_edit_too_many_asks_before_leaving_this_cards_work(make_app, history):
    from app.ui.dialogs.confirm import LeaveCardDialog

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        app.practise([app.library.card(c) for c in ("no-grad", "running-loss")])
        first = await until_screen(pilot, PracticeScreen)
        await rate(pilot, "1")
        second = await until(
            pilot,
            lambda: (
                isinstance(app.screen, PracticeScreen) and app.screen is not first and app.screen
            ),
        )
        panel = await until(pilot, lambda: second.code_panel)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: app.focused is panel.editor)
        await pilot.press("x")
        await until(pilot, lambda: panel.editor.text.startswith("x"))
        second.query_one("#practice-answer").load_text("an answer typed before")
        await pilot.press("ctrl+z")
        await until(pilot, lambda: not panel.editor.text.startswith("x"))
        await pilot.press("ctrl+z")
        await until_screen(pilot, LeaveCardDialog)
        await pilot.press("escape")
        assert await until_screen(pilot, PracticeScreen) is second
        assert len(history.attempts()) == 1, "nothing taken back"
        await pilot.press("ctrl+z")
        await until_screen(pilot, LeaveCardDialog)
        await pilot.press("enter")
        await until(
            pilot,
            lambda: isinstance(app.screen, PracticeScreen) and app.screen.card.id == "no-grad",
        )
        assert history.attempts() == []
