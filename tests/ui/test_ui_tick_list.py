"""Tick lists (self-grade, mock review, interviewer): the state reads without colour, items wrap whole."""

from __future__ import annotations

from textual.app import App, ComposeResult

from app.ui.widgets.tick_list import TickList

LONG = "A gradient that carries a graph pins both the forward and the backward graph; storing it leaks."


class TickApp(App):
    def compose(self) -> ComposeResult:
        yield TickList(("ticked", 0, True), ("not ticked", 1, False), (LONG, 2, False), id="ticks")


def lines(ticks: TickList) -> list[str]:
    return [ticks.render_line(y).text for y in range(ticks.size.height)]


async def test_a_ticked_box_shows_a_tick_and_an_unticked_one_is_empty():
    app = TickApp()
    async with app.run_test(size=(40, 10)) as pilot:
        ticks = app.query_one(TickList)
        shown = lines(ticks)
        assert shown[0].startswith("▐✓▌ ticked")
        assert shown[1].startswith("▐ ▌ not ticked")
        ticks.focus()
        await pilot.press("down", "space")
        assert lines(ticks)[1].startswith("▐✓▌ not ticked")
        assert ticks.selected == [0, 1]


async def test_a_long_item_wraps_in_full_beside_its_box():
    app = TickApp()
    async with app.run_test(size=(40, 10)):
        ticks = app.query_one(TickList)
        shown = lines(ticks)[2:]
        assert shown[0].startswith("▐ ▌ A gradient")
        assert all(line.startswith("    ") for line in shown[1:] if line.strip())
        assert " ".join(" ".join(line[4:].split()) for line in shown if line.strip()) == LONG
        assert "…" not in "".join(shown)
        assert ticks.size.height == 2 + len([line for line in shown if line.strip()])


async def test_clicking_a_wrapped_line_toggles_its_item():
    app = TickApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.click(
            TickList, offset=(3, 4)
        )  # inside the border and padding: the second line of LONG
        assert 2 in app.query_one(TickList).selected
