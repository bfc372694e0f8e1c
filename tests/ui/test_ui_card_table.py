"""Home's card table: every row reachable however many there are, only the rows on screen
made, a header that stays, a cursor that keys and clicks move and that stays in view."""

from __future__ import annotations

from pilot_wait import until
from textual.app import App, ComposeResult

from app.ui.widgets.card_table import CardRow, CardTable

ROWS = 10_000
SIZE = (60, 12)


class TableApp(App):
    def __init__(self, count: int = ROWS, question=lambda n: f"question {n}") -> None:
        super().__init__()
        self.count, self.question = count, question
        self.made: list[int] = []
        self.highlighted: list[int] = []
        self.selected: list[int] = []

    def compose(self) -> ComposeResult:
        yield CardTable(id="table")

    def on_mount(self) -> None:
        table = self.query_one(CardTable)
        table.show(self.count, self.row)
        table.focus()

    def row(self, n: int) -> CardRow:
        self.made.append(n)
        return CardRow(self.question(n), "junior", "new")

    def on_card_table_row_highlighted(self, message: CardTable.RowHighlighted) -> None:
        self.highlighted.append(message.row)

    def on_card_table_row_selected(self, message: CardTable.RowSelected) -> None:
        self.selected.append(message.row)


def screen_lines(table: CardTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.scrollable_content_region.height)]


async def test_ten_thousand_rows_make_only_the_rows_drawn():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        await until(pilot, lambda: "question 0" in screen_lines(table)[1])
        assert table.row_count == ROWS
        assert max(app.made) < SIZE[1], "no row below the screen was made"


async def test_end_reaches_the_last_row_and_draws_it_under_the_header():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        await pilot.press("end")
        await until(pilot, lambda: table.cursor_row == ROWS - 1)
        lines = screen_lines(table)
        assert lines[0].split() == ["Question", "Level", "Status"]
        assert f"question {ROWS - 1}" in lines[-1]
        await pilot.press("home")
        await until(pilot, lambda: "question 0" in screen_lines(table)[1])
        assert table.cursor_row == 0


async def test_moving_up_past_the_top_scrolls_the_row_out_from_under_the_header():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        table.move_cursor(row=500)
        await until(pilot, lambda: any("question 500 " in line for line in screen_lines(table)))
        top = screen_lines(table)[1]
        shown_first = int(top.split()[1])
        for _ in range(500 - shown_first + 1):
            await pilot.press("up")
        await until(pilot, lambda: table.cursor_row == shown_first - 1)
        assert f"question {shown_first - 1} " in screen_lines(table)[1]


async def test_keys_move_the_cursor_and_report_each_row_highlighted():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        await pilot.press("down", "down")
        await until(pilot, lambda: app.highlighted[-1:] == [2])
        await pilot.press("pagedown")
        page = table.scrollable_content_region.height - 1
        await until(pilot, lambda: table.cursor_row == 2 + page)
        await pilot.press("up")
        await until(pilot, lambda: app.highlighted[-1:] == [1 + page])
        await pilot.press("enter")
        await until(pilot, lambda: app.selected == [1 + page])


async def test_the_cursor_stays_inside_the_rows():
    app = TableApp(count=3)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        await pilot.press("up")
        await pilot.press("pagedown", "down")
        await until(pilot, lambda: table.cursor_row == 2)
        table.move_cursor(row=99)
        assert table.cursor_row == 2


async def test_a_click_moves_the_cursor_and_a_second_click_chooses_the_row():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        await until(pilot, lambda: "question 3" in screen_lines(table)[4])
        await pilot.click(CardTable, offset=(5, 4))
        await until(pilot, lambda: table.cursor_row == 3)
        assert app.selected == []
        await pilot.click(CardTable, offset=(5, 4))
        await until(pilot, lambda: app.selected == [3])


async def test_an_empty_table_draws_its_header_and_chooses_nothing():
    app = TableApp(count=0)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        await until(
            pilot, lambda: screen_lines(table)[0].split() == ["Question", "Level", "Status"]
        )
        await pilot.press("enter", "down")
        assert app.selected == [] and table.cursor_row == 0
        assert all(not line.strip() for line in screen_lines(table)[1:])


async def test_long_and_wide_questions_are_cut_to_their_column_on_one_line():
    question = lambda n: "一二三四五 " * 20 if n == 0 else "first line\nsecond\tline"  # noqa: E731
    app = TableApp(count=2, question=question)
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(CardTable)
        width = table.scrollable_content_region.width
        await until(pilot, lambda: "first line second line" in screen_lines(table)[2])
        wide = table.render_line(1)
        assert wide.cell_length == width
        assert "…" in wide.text and "Level" not in wide.text and "junior" in wide.text
