"""Home's list of cards: every matching card, however many, drawing only the rows on screen.

Textual's DataTable builds and measures every row it is given (about 0.3 ms a row), so a list
of 10,000 cards took seconds each time a filter changed, and home had to stop at the first
500. This table is given how many rows it has and how to make one, and makes a row only to
draw it on screen: a fill costs the same for ten cards or ten thousand. Its columns are fixed
(the question takes what the level and status leave), so nothing is ever measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, NamedTuple

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

_UNPRINTABLE = {code: " " for code in (*range(32), 127)}


class CardRow(NamedTuple):
    question: str
    level: str
    status: str


class Column(NamedTuple):
    title: str
    width: int
    """Cells; the question's is what the others leave."""


class CardTable(ScrollView, can_focus=True):
    """Rows of (question, level, status) under a header that stays put; a cursor row, moved by
    keys or a click, and chosen by enter or a click on the row already under the cursor."""

    LEVEL_WIDTH, STATUS_WIDTH = 9, 11
    MIN_QUESTION_WIDTH = 20
    PADDING = 1
    """Cells either side of each column's text."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "select", "Choose", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "card-table--header",
        "card-table--cursor",
        "card-table--even-row",
    }

    DEFAULT_CSS = """
    CardTable {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        & > .card-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .card-table--even-row { background: $surface-lighten-1 50%; }
        & > .card-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .card-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .card-table--even-row { background: $surface-darken-1 40%; }
        }
    }
    """

    class _RowMessage(Message):
        def __init__(self, table: CardTable, row: int) -> None:
            super().__init__()
            self.table, self.row = table, row

        @property
        def control(self) -> CardTable:
            return self.table

    class RowHighlighted(_RowMessage):
        """The cursor moved to `row` (also when rows are set: the cursor's row is new)."""

    class RowSelected(_RowMessage):
        """`row` was chosen: enter, or a click on the row under the cursor."""

    cursor_row: reactive[int] = reactive(0, always_update=True, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._count = 0
        self._row_of: Callable[[int], CardRow] = _no_row

    # -- the rows ------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return self._count

    def row_at(self, row: int) -> CardRow:
        if not 0 <= row < self._count:
            raise IndexError(f"row {row} of {self._count}")
        return self._row_of(row)

    def show(self, count: int, row_of: Callable[[int], CardRow], cursor: int = 0) -> None:
        """Hold `count` rows, row n being `row_of(n)` (called only to draw it), with the cursor
        on row `cursor` (kept inside them)."""
        self._count, self._row_of = count, row_of
        self.virtual_size = Size(self.size.width, count + 1)
        self.cursor_row = cursor
        self.refresh()

    # -- the cursor ----------------------------------------------------------------------

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, self._count - 1))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()
        if self._count:
            self.post_message(self.RowHighlighted(self, new))

    def move_cursor(self, *, row: int) -> None:
        self.cursor_row = row

    def _scroll_to_cursor(self) -> None:
        """Scroll the least that shows the cursor's row below the header (screen line y shows
        row `scroll_y + y - 1`)."""
        row, top = self.cursor_row, round(self.scroll_offset.y)
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row > top + self._rows_on_screen() - 1:
            self.scroll_to(y=row - self._rows_on_screen() + 1, animate=False, immediate=True)

    def _rows_on_screen(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_cursor(self, step: int) -> None:
        self.cursor_row += step

    def action_page(self, pages: int) -> None:
        self.cursor_row += pages * self._rows_on_screen()

    def action_first(self) -> None:
        self.cursor_row = 0

    def action_last(self) -> None:
        self.cursor_row = self._count - 1

    def action_select(self) -> None:
        if self._count:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        row = event.style.meta.get("row")
        if not isinstance(row, int):
            return
        if row == self.cursor_row:
            self.action_select()
        else:
            self.cursor_row = row

    def _on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self._count + 1)
        self._scroll_to_cursor()

    # -- drawing -------------------------------------------------------------------------

    def columns(self) -> tuple[Column, Column, Column]:
        pad = 2 * self.PADDING
        rest = self.scrollable_content_region.width - (self.LEVEL_WIDTH + pad)
        question = max(self.MIN_QUESTION_WIDTH, rest - (self.STATUS_WIDTH + pad) - pad)
        return (
            Column("Question", question),
            Column("Level", self.LEVEL_WIDTH),
            Column("Status", self.STATUS_WIDTH),
        )

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            titles = [column.title for column in self.columns()]
            style = base + self.get_component_rich_style("card-table--header")
            return self._line(titles, style, width)
        row = self.scroll_offset.y + y - 1
        if row >= self._count:
            return Strip.blank(width, base)
        style = base
        if row == self.cursor_row:
            style += self.get_component_rich_style("card-table--cursor")
        elif row % 2:
            style += self.get_component_rich_style("card-table--even-row")
        return self._line(self._row_of(row), style + Style(meta={"row": row}), width)

    def _line(self, cells: Sequence[str], style: Style, width: int) -> Strip:
        pad = " " * self.PADDING
        text = "".join(
            pad + _fitted(cell, column.width) + pad
            for cell, column in zip(cells, self.columns(), strict=True)
        )
        return Strip([Segment(set_cell_size(text, width), style)], width)


def _fitted(text: str, width: int) -> str:
    """`text` on one line in exactly `width` cells, cut with an ellipsis when longer."""
    text = text.translate(_UNPRINTABLE)
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + "…"


def _no_row(row: int) -> CardRow:
    raise IndexError(f"row {row} of none")
