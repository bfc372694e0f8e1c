"""A list of tick boxes whose state reads without colour and whose long items wrap.

Textual's SelectionList draws the same `X` in a ticked and an unticked box and tells them
apart by colour alone, which some themes make invisible; it also cuts each item to one line.
Key points and red flags are sentences that must be read whole before ticking them.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import OptionList, SelectionList

TICKED, UNTICKED = "✓", " "
_GUTTER = 4  # "▐✓▌ "


class TickList(SelectionList[int]):
    """A SelectionList of int values: `▐✓▌` ticked, `▐ ▌` not, every item wrapped in full."""

    DEFAULT_CSS = """
    TickList { text-wrap: wrap; text-overflow: fold; }
    TickList > .selection-list--button { color: $text-muted; }
    TickList > .selection-list--button-highlighted { color: $text-muted; }
    """

    def _get_left_gutter_width(self) -> int:
        return _GUTTER

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # OptionList measures items at the full width, but they wrap beside the boxes.
        return super().get_content_height(container, viewport, width - _GUTTER)

    def render_line(self, y: int) -> Strip:
        line = OptionList.render_line(self, y)
        try:
            index, line_offset = self._lines[self.scroll_offset.y + y]
        except IndexError:
            return line
        underlying = next(iter(line)).style or self.rich_style
        if line_offset:
            return Strip(
                [Segment(" " * _GUTTER, underlying + Style(meta={"option": index})), *line]
            )
        ticked = self.get_option_at_index(index).value in self.selected
        component = "selection-list--button" + ("-selected" if ticked else "")
        if self.highlighted == index:
            component += "-highlighted"
        meta = Style(meta={"option": index})
        button = self.get_component_rich_style(component) + meta
        side = Style.from_color(button.bgcolor, underlying.bgcolor) + meta
        return Strip(
            [
                Segment("▐", side),
                Segment(TICKED if ticked else UNTICKED, button),
                Segment("▌", side),
                Segment(" ", underlying),
                *line,
            ]
        )
