"""What each screen exists for fits the terminal: nothing cut, nothing hidden behind a scrollbar,
and an example's note set apart from its code rather than running on after it.
"""

from __future__ import annotations

from pilot_wait import until, until_screen
from textual.widgets import DataTable, Static
from ui_fakes import SIZE

from app.progress.attempt import Attempt
from app.ui.screens.home import HomeScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.screens.stats import StatsScreen
from app.ui.widgets.reveal import RevealSection
from checkers.verdict import Retained, Verdict

LEAK = Verdict(
    verdict="leak",
    device="cpu",
    steps=60,
    pattern="monotonic",
    growth_bytes_per_step=6144.0,
    samples=tuple(6144.0 * n for n in range(60)),
    message="Each backward() runs through earlier graphs.",
    retained=(
        Retained(
            path="model.running_mean",
            grad_fn="AddBackward0",
            graph_nodes=361,
            saved_bytes=31641,
            line=20,
        ),
    ),
)


async def test_at_80x24_the_editor_shows_at_least_ten_lines_of_code(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.practise([app.library.card("running-loss")])
        screen = await until_screen(pilot, PracticeScreen)
        await until(pilot, lambda: screen.code_panel)
        await pilot.press("ctrl+o")
        editor = screen.code_panel.editor
        await until(pilot, lambda: app.focused is editor and editor.region.height > 0)
        assert editor.scrollable_content_region.height >= 10


async def test_at_100_columns_the_verdict_wraps_and_the_retained_graphs_show_every_figure(
    make_app, runner
):
    runner.verdict = LEAK
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.practise([app.library.card("running-loss")])
        screen = await until_screen(pilot, PracticeScreen)
        await until(pilot, lambda: screen.code_panel)
        await pilot.press("ctrl+r")
        panel = screen.code_panel
        headline = panel.query_one("#verdict-headline", Static)
        await until(pilot, lambda: panel.completed_runs == 1 and headline.region.width > 0)
        side = panel.query_one("#code-side")
        assert headline.region.right <= side.region.right
        assert headline.size.height * headline.size.width >= len(str(headline.render()))
        retained = panel.query_one("#verdict-retained")
        assert retained.virtual_size.width <= retained.scrollable_content_region.width, (
            "no sideways scroll"
        )
        entry = str(retained.get_option_at_index(0).prompt)
        assert all(
            figure in entry for figure in ("model.running_mean", "line 20", "361 nodes", "30.9 KB")
        )


async def test_at_80_columns_stats_show_every_column_and_whole_key_points(make_app, history):
    point = "The loss tensor carries its autograd graph, and summing it chains every step's graph together"
    history.record(
        Attempt(
            card_id="running-loss",
            mode="practice",
            rating="again",
            level="middle",
            phase_seconds={"answer": 12.0},
            key_points_missed=(point,),
        )
    )
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen(pilot, HomeScreen)
        await pilot.press("s")
        screen = await until_screen(pilot, StatsScreen)
        missed = screen.query_one("#stats-missed", Static)
        await until(pilot, lambda: missed.size.height > 0)
        for table in screen.query(DataTable):
            assert table.virtual_size.width <= table.scrollable_content_region.width, table.id
        assert str(missed.render()) == f"1× running-loss: {point}"
        assert missed.size.height >= 2, "wrapped, not cut"


async def test_an_examples_note_stands_apart_from_its_code(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.practise([app.library.card("running-loss")])
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press(*["ctrl+n"] * 6)
        examples = await until(pilot, lambda: screen.query_one("#reveal-examples-0", RevealSection))
        code, note = (
            examples.query_one(".reveal-example"),
            examples.query_one(".reveal-example-note"),
        )
        await until(pilot, lambda: note.region.height > 0 and code.region.height > 0)
        assert note.region.y > code.region.bottom, "a blank line between code and note"
        assert note.styles.text_style.italic
