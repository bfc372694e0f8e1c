"""Home: packs and counts, filters, search, today's queue, load problems, history trouble, settings."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from pilot_wait import until, until_screen
from textual.widgets import Input, OptionList, Select, Static
from ui_fakes import SIZE

from app.progress.attempt import Attempt
from app.ui.app import GrillApp
from app.ui.dialogs.settings import SettingsDialog
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.widgets.card_table import CardTable
from questions.library import Library, Problem


def practised(history, card_id: str, rating: str = "easy") -> None:
    """`card_id` answered once in practice, so it is seen and no longer new."""
    history.record(
        Attempt(
            card_id=card_id,
            mode="practice",
            rating=rating,
            level="middle",
            phase_seconds={"answer": 10.0},
        )
    )


def listed_ids(app: GrillApp) -> list[str]:
    return [loaded.card.id for loaded in app.screen.shown]


def table_rows(app: GrillApp) -> int:
    return app.screen.query_one("#home-cards", CardTable).row_count


async def test_home_lists_every_card_with_pack_counts(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        assert sorted(listed_ids(app)) == ["no-grad", "retain-graph", "running-loss"]
        assert table_rows(app) == 3
        packs = app.screen.query_one("#home-packs", OptionList)
        assert packs.option_count == 2
        assert packs.get_option_at_index(1).prompt.plain.endswith(
            "3 cards · 0 seen\nnew 3  learn 0  due 0"
        )
        assert "Due today: 3" in str(app.screen.query_one("#home-due", Static).render())


async def test_filters_narrow_the_list_by_level_tag_and_status(make_app, history):
    practised(history, "no-grad")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, HomeScreen)
        screen.query_one("#home-level", Select).value = "senior"
        await until(pilot, lambda: listed_ids(app) == ["retain-graph"])
        screen.query_one("#home-level", Select).clear()
        screen.query_one("#home-tag", Select).value = "memory"
        await until(pilot, lambda: listed_ids(app) == ["running-loss"])
        screen.query_one("#home-tag", Select).clear()
        screen.query_one("#home-status", Select).value = "new"
        await until(pilot, lambda: sorted(listed_ids(app)) == ["retain-graph", "running-loss"])
        assert table_rows(app) == 2


async def test_search_by_typing_after_slash(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("slash")
        await until(pilot, lambda: app.focused is app.screen.query_one("#home-search", Input))
        await pilot.press(*"retain")
        await until(pilot, lambda: listed_ids(app) == ["retain-graph"])
        await pilot.press("enter")
        await until(pilot, lambda: app.focused is app.screen.query_one("#home-cards", CardTable))


async def test_a_search_that_matches_nothing_says_so(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        empty = (await until_screen(pilot, HomeScreen)).query_one("#home-empty", Static)
        assert not empty.display
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"zzz")
        await until(pilot, lambda: table_rows(app) == 0)
        assert empty.display and "No card matches" in str(empty.render())
        await pilot.press(*["backspace"] * 3)
        await until(pilot, lambda: table_rows(app) and not empty.display)


async def test_load_problems_are_listed_with_file_and_line(library, make_app):
    broken = Library(
        packs=library.packs,
        problems=[Problem("packs/demo/bad.yaml", 7, 3, "level: 'expert' is not a level")],
    )
    app = make_app(library=broken)
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        box = app.screen.query_one("#home-problems")
        assert box.display
        text = str(app.screen.query_one("#home-problems-text", Static).render())
        assert "packs/demo/bad.yaml:7: level: 'expert' is not a level" in text


async def test_a_corrupt_history_is_shown_and_cards_stay_browsable(
    library, runner, clock, grill_home: Path
):
    grill_home.mkdir(parents=True)
    (grill_home / "history.db").write_bytes(b"this is not a database" * 100)
    app = GrillApp(library, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        banner = (await until_screen(pilot, HomeScreen)).query_one("#home-history-error", Static)
        assert banner.display
        assert "history.db" in str(banner.render())
        assert table_rows(app) == 3
        await pilot.press("p")
        await until_screen(pilot, PracticeScreen)


async def test_due_key_practises_todays_queue(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("d")
        assert len((await until_screen(pilot, PracticeScreen)).queue) == 3


async def test_settings_are_saved_and_the_theme_key_toggles_and_remembers(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        assert app.theme == "textual-dark"
        await pilot.press("t")
        await until(pilot, lambda: app.theme == "textual-light")
        assert history.get_setting("theme") == "light"
        await pilot.press("o")
        dialog = await until_screen(pilot, SettingsDialog)
        dialog.query_one("#settings-level", Select).value = "senior"
        field = dialog.query_one("#settings-new-per-day", Input)
        field.value = "2"
        dialog.query_one("#settings-new-per-pack", Input).value = "5"
        await pilot.press("ctrl+s")
        await until_screen(pilot, HomeScreen)
        assert history.get_setting("level") == "senior"
        assert history.get_setting("new_per_day") == 2
        assert history.get_setting("new_per_pack") == 5
        assert "Due today: 2" in str(app.screen.query_one("#home-due", Static).render())


async def test_settings_refuse_a_bad_number_and_say_why(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("o")
        dialog = await until_screen(pilot, SettingsDialog)
        dialog.query_one("#settings-new-per-day", Input).value = "-4"
        await pilot.press("ctrl+s")
        await until(
            pilot,
            lambda: (
                "whole number from 0 to 500" in str(dialog.query_one("#settings-error").render())
            ),
        )
        assert app.screen is dialog
        assert history.get_setting("new_per_day") is None


async def test_the_scheduling_settings_are_saved_and_the_dialog_fits_80x24(make_app, history):
    """Anki's options beside desired retention: the hour the day starts at and the learning and
    relearning steps, every field and both buttons on an 80x24 terminal."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("o")
        dialog = await until_screen(pilot, SettingsDialog)
        for widget in dialog.query("Input, Select, Button"):
            region = widget.region
            assert region.height > 0 and region.bottom <= 24 and region.right <= 80, widget.id
        dialog.query_one("#settings-day-start", Input).value = "6"
        dialog.query_one("#settings-learning-steps", Input).value = " 2m   20m "
        dialog.query_one("#settings-relearning-steps", Input).value = "5m"
        await pilot.press("ctrl+s")
        await until_screen(pilot, HomeScreen)
        assert history.get_setting("day_starts_at") == 6
        assert history.get_setting("learning_steps") == "2m 20m"
        assert history.get_setting("relearning_steps") == "5m"


async def test_settings_refuse_steps_and_hours_grill_cannot_use_and_say_why(make_app, history):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("o")
        dialog = await until_screen(pilot, SettingsDialog)
        error = dialog.query_one("#settings-error")
        steps = dialog.query_one("#settings-learning-steps", Input)
        steps.value = "1m ten"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "'ten' is not a step" in str(error.render()))
        assert app.focused is steps
        steps.value = "1m 10m"
        dialog.query_one("#settings-day-start", Input).value = "24"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "whole hour from 0 to 23" in str(error.render()))
        assert app.screen is dialog
        assert history.get_setting("learning_steps") is None
        assert history.get_setting("day_starts_at") is None


async def test_library_loads_in_the_background_when_not_given(history, runner, clock):
    app = GrillApp(None, history, runner=runner, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.library is not None and table_rows(app) > 0)
        assert {"no-grad", "retain-graph", "running-loss"} <= set(listed_ids(app)), (
            "GRILL_PACKS is searched"
        )
        assert table_rows(app) == len(app.library.cards)
        second = listed_ids(app)[1]
        await pilot.press("down", "p")
        practice = await until_screen(pilot, PracticeScreen)
        assert practice.card.id == second, "the list has focus once loaded"


async def test_mock_key_starts_a_mock_at_the_settings_level(make_app, history):
    from app.ui.screens.mock import MockScreen

    history.set_setting("level", "senior")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("m")
        mock = await until_screen(pilot, MockScreen)
        assert mock.session.level == "senior"
        assert len(mock.session.cards) == 3


async def test_stats_key_opens_the_statistics_with_this_history(make_app, history):
    from app.ui.screens.stats import StatsScreen

    practised(history, "no-grad", "good")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("s")
        assert (await until_screen(pilot, StatsScreen)).stats.attempts == 1
        await pilot.press("escape")
        await until_screen(pilot, HomeScreen)


def header_text(app: GrillApp) -> str:
    from textual.widgets._header import HeaderTitle

    return str(app.screen.query_one(HeaderTitle).render())


async def test_each_screen_names_itself_in_the_header(make_app):
    """Each screen owns its subtitle, so nothing has to restore it when a screen closes."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "Home" in header_text(app))
        await pilot.press("s")
        await until(pilot, lambda: "Statistics" in header_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: "Home" in header_text(app))
        app.practise([app.library.card("no-grad")])
        await until(pilot, lambda: "Practice · card 1 of 1" in header_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: "Home" in header_text(app))


async def test_stats_show_missed_key_points_and_red_flags_verbatim(make_app, history):
    """Key points are card text: `[/b]` in one must neither crash the stats nor be taken as markup."""
    from dataclasses import replace

    from app.progress.stats import Missed
    from app.ui.screens.stats import StatsScreen

    point, flag = "keeps [/b] losses[17] alive", "says [bold]gc[/bold] frees it"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("s")
        first = await until_screen(pilot, StatsScreen)
        stats = replace(
            first.stats,
            missed_key_points=(Missed("no-grad", point, 2),),
            red_flags_said=(Missed("no-grad", flag, 1),),
        )
        outlook = first.outlook
        first.dismiss()
        await until_screen(pilot, HomeScreen)
        app.push_screen(StatsScreen(stats, outlook))
        screen = await until_screen(pilot, StatsScreen)
        assert str(screen.query_one("#stats-missed", Static).render()) == f"2× no-grad: {point}"
        assert str(screen.query_one("#stats-flags", Static).render()) == f"1× no-grad: {flag}"


async def test_a_history_failing_mid_session_is_reported_and_dropped(
    make_app, history, monkeypatch
):
    from app.progress.history import HistoryError

    def broken(*args, **kwargs):
        raise HistoryError(
            Path("/tmp/history.db"), "the disk went away", "check the disk and restart grill"
        )

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        monkeypatch.setattr(history, "todays_queue", broken)
        app.screen.refresh_all()
        await until(pilot, lambda: app.history is None)
        banner = app.screen.query_one("#home-history-error", Static)
        assert banner.display and "the disk went away" in str(banner.render())
        assert table_rows(app) == 3


async def test_pack_titles_and_questions_that_look_like_markup_are_listed_verbatim(
    library, make_app
):
    from questions.library import LoadedCard, Pack

    [pack] = library.packs
    odd = "[/b] losses[17] [bold]"
    cards = tuple(
        LoadedCard(c.card.model_copy(update={"question": odd}), c.path, c.pack) for c in pack.cards
    )
    strange = Library(packs=[Pack(pack.info._replace(title=odd), pack.root, cards)])
    app = make_app(library=strange)
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        packs = app.screen.query_one("#home-packs", OptionList)
        assert packs.get_option_at_index(1).prompt.plain.startswith(f"{odd}\n3 cards")
        assert app.screen.query_one("#home-cards", CardTable).row_at(0).question == odd


def two_packs(library: Library) -> Library:
    """The demo pack split in two: `demo` keeps no-grad and retain-graph, `other` takes running-loss."""
    from dataclasses import replace

    [pack] = library.packs
    mine = tuple(c for c in pack.cards if c.card.id != "running-loss")
    moved = tuple(replace(c, pack="other") for c in pack.cards if c.card.id == "running-loss")
    other = replace(
        pack,
        info=pack.info._replace(name="other", title="Other"),
        cards=moved,
    )
    return Library(packs=[replace(pack, cards=mine), other])


async def test_due_practises_the_queue_of_the_pack_chosen_on_the_left(library, make_app):
    """`d` takes the selected pack's queue, not every pack's."""
    app = make_app(library=two_packs(library))
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        home.query_one("#home-packs", OptionList).highlighted = 2
        await until(
            pilot,
            lambda: (
                "Due today in this pack: 1" in str(home.query_one("#home-due", Static).render())
            ),
        )
        await pilot.press("d")
        practice = await until_screen(pilot, PracticeScreen)
        assert [c.card.id for c in practice.queue] == ["running-loss"]


async def test_one_key_clears_the_search_and_every_filter(library, make_app):
    app = make_app(library=two_packs(library))
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, HomeScreen)
        screen.query_one("#home-packs", OptionList).highlighted = 1
        screen.query_one("#home-level", Select).value = "senior"
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"zzz", "enter")
        await until(pilot, lambda: table_rows(app) == 0 and screen.card_filter.text == "zzz")
        await until(pilot, lambda: isinstance(app.focused, CardTable))
        await pilot.press("c")
        await until(pilot, lambda: table_rows(app) == 3)
        assert screen.card_filter.pack is None and screen.card_filter.level is None
        assert screen.query_one("#home-search", Input).value == ""


async def test_the_selected_question_is_shown_whole_at_80_columns(make_app):
    """The question column cuts questions at 80 columns; the selected one is shown whole below."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        home = await until_screen(pilot, HomeScreen)
        selected = home.selected_card.card
        preview = home.query_one("#home-preview", Static)
        assert str(preview.render()).startswith(selected.question)
        await pilot.press("down")
        await until(pilot, lambda: home.selected_card.card != selected)
        await until(
            pilot, lambda: str(preview.render()).startswith(home.selected_card.card.question)
        )


async def test_status_says_when_a_card_comes_back(make_app, history):
    """Home's Status column says when a card is due again, not just "later"."""
    from datetime import timedelta

    from ui_fakes import NOW

    history.record(
        Attempt(
            card_id="no-grad",
            mode="practice",
            rating="easy",
            level="middle",
            phase_seconds={},
            started_at=NOW - timedelta(hours=1),
        )
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        table = app.screen.query_one("#home-cards", CardTable)
        status = {c.card.id: table.row_at(n).status for n, c in enumerate(app.screen.shown)}
        assert status["no-grad"].startswith("in ") and status["no-grad"].endswith(("days", "weeks"))
        assert status["running-loss"] == "new"


async def test_counted_nouns_agree_with_their_number(library, make_app):
    """ "1 card" and "2 cards", never "1 cards" or "1 problem(s)"."""
    from dataclasses import replace

    [pack] = library.packs
    one = Library(
        packs=[replace(pack, cards=pack.cards[:1])],
        problems=[Problem("packs/demo/bad.yaml", 7, 3, "level: 'expert' is not a level")],
    )
    app = make_app(library=one)
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        packs = app.screen.query_one("#home-packs", OptionList)
        assert packs.get_option_at_index(0).prompt.plain == "All packs  1 card"
        assert packs.get_option_at_index(1).prompt.plain.endswith(
            "1 card · 0 seen\nnew 1  learn 0  due 0"
        )
        problems = str(app.screen.query_one("#home-problems-text", Static).render())
        assert problems.startswith("1 problem loading packs")
        assert "Due today: 1\n0 reviews · 1 new" in str(
            app.screen.query_one("#home-due", Static).render()
        )


async def test_on_day_one_each_pack_offers_its_own_new_cards(library, make_app, history):
    """With a daily limit smaller than the first pack, the second pack still has its new card
    (the limit applied to one queue over every pack gave all of it to the first pack)."""
    history.set_setting("new_per_day", 2)
    app = make_app(library=two_packs(library))
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        packs = home.query_one("#home-packs", OptionList)
        assert packs.get_option_at_index(2).prompt.plain.endswith(
            "1 card · 0 seen\nnew 1  learn 0  due 0"
        )
        assert [c.card.id for c in home.queue()] == ["no-grad", "running-loss"], "a pack in turn"
        packs.highlighted = 2
        await until(pilot, lambda: home.card_filter.pack == "other")
        await pilot.press("d")
        practice = await until_screen(pilot, PracticeScreen)
        assert [c.card.id for c in practice.queue] == ["running-loss"]


async def test_home_says_why_a_pack_has_no_new_card_today(library, make_app, history):
    from ui_fakes import NOW

    history.set_setting("new_per_day", 1)
    history.record(
        Attempt(
            card_id="no-grad",
            mode="practice",
            rating="easy",
            level="middle",
            phase_seconds={},
            started_at=NOW - timedelta(hours=1),
        )
    )
    app = make_app(library=two_packs(library))
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        home.query_one("#home-packs", OptionList).highlighted = 2
        due = home.query_one("#home-due", Static)
        await until(pilot, lambda: "Due today in this pack: 0" in str(due.render()))
        assert "Today's new cards are done (1 a day; o changes it)" in str(due.render())
        await pilot.press("d")
        notice = await until(
            pilot, lambda: [n.message for n in app._notifications if "Nothing is due" in n.message]
        )
        assert notice[0].startswith(
            "Nothing is due today in this pack: today's new cards are done (1 a day"
        )


async def test_settings_warn_when_the_device_chosen_is_not_on_this_machine(
    make_app, history, monkeypatch
):
    import app.ui.code_runner as code_runner
    import app.ui.dialogs.settings as settings_dialog

    monkeypatch.setattr(code_runner, "cuda_device_present", lambda: False)
    monkeypatch.setattr(settings_dialog, "cuda_device_present", lambda: False)
    grill = make_app()
    async with grill.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("o")
        dialog = await until_screen(pilot, SettingsDialog)
        warning = dialog.query_one("#settings-device-warning")
        assert not warning.display
        dialog.query_one("#settings-device", Select).value = "cuda"
        await until(pilot, lambda: warning.display)
        assert "no CUDA device" in str(warning.render())
        await pilot.press("ctrl+s")
        await until_screen(pilot, HomeScreen)
        assert history.get_setting("device") == "cuda"
        assert any(n.title == "Saved: device cuda" for n in grill._notifications)


async def test_every_card_of_ten_thousand_is_listed_and_the_last_is_one_key_away(library, make_app):
    from dataclasses import replace

    from questions.library import LoadedCard

    [pack] = library.packs
    first = pack.cards[0]
    many = tuple(
        LoadedCard.listed(
            first.summary._replace(id=f"card-{n:05d}", question=f"Question number {n}"),
            first.path,
            first.pack,
            lambda: first.card,
        )
        for n in range(10_000)
    )
    app = make_app(library=Library(packs=[replace(pack, cards=many)]))
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        await until(pilot, lambda: table_rows(app) == 10_000)
        assert not home.query_one("#home-empty", Static).display
        await pilot.press("end")
        await until(pilot, lambda: home.selected_card is home.shown[-1])
        preview = home.query_one("#home-preview", Static)
        await until(
            pilot, lambda: str(preview.render()).startswith(home.shown[-1].summary.question)
        )
        await pilot.press("p")
        practice = await until_screen(pilot, PracticeScreen)
        assert [c.id for c in practice.queue] == [home.shown[-1].id]


async def test_a_filter_keeps_the_selected_card_selected_while_it_still_matches(make_app, history):
    """The cursor follows the card, not the row: narrowing the list keeps it on the same card."""
    practised(history, "no-grad", "good")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        home = await until_screen(pilot, HomeScreen)
        order = listed_ids(app)
        table = home.query_one("#home-cards", CardTable)
        table.move_cursor(row=order.index("retain-graph"))
        await until(pilot, lambda: home.selected_card.id == "retain-graph")
        home.query_one("#home-status", Select).value = "new"
        await until(pilot, lambda: "no-grad" not in listed_ids(app))
        assert home.selected_card.id == "retain-graph"
        assert listed_ids(app).index("retain-graph") != order.index("retain-graph")


async def test_g_goes_to_the_pack_list_and_the_code_task_filter_lists_code_tasks(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        home = await until_screen(pilot, HomeScreen)
        await until(pilot, lambda: home.query_one("#home-cards").row_count > 0)
        await pilot.press("g")
        await until(pilot, lambda: app.focused is home.query_one("#home-packs"))
        home.query_one("#home-status").value = "code"
        await until(pilot, lambda: home.card_filter.status == "code")
        assert home.shown and all(card.summary.code_task for card in home.shown)
        assert len(home.shown) < len(app.library.cards)
        await pilot.press("escape")
        await until(pilot, lambda: app.focused is home.query_one("#home-cards"))
