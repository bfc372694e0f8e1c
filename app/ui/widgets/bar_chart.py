"""A bar chart in block characters with a labelled scale: memory per step, answers per day.

Textual's Sparkline scales from the smallest value to the largest, so a curve that varies by
a few bytes fills its whole height and looks like a leak. Here the scale starts at zero (or
the lowest value, if negative) and reaches at least `full_scale`, and both ends are labelled,
so a flat curve is drawn flat and every chart says what it measures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

BLOCKS = " ▁▂▃▄▅▆▇█"


def fit(values: Sequence[float], columns: int) -> list[float | None]:
    """One entry per column (None for a gap): with more values than columns, each column is the
    largest in its share of them; with fewer, each value is a bar as wide as fits, a gap after it."""
    if not values or columns <= 0:
        return []
    if len(values) > columns:
        per = len(values) / columns
        return [
            max(values[int(i * per) : max(int((i + 1) * per), int(i * per) + 1)])
            for i in range(columns)
        ]
    width = columns // len(values)
    bar = width - 1 if width >= 2 else width
    return [cell for value in values for cell in [value] * bar + [None] * (width - bar)]


class BarChart(Widget):
    """`values` as columns `rows` high over an axis labelled `first` ... `last`."""

    DEFAULT_CSS = """
    BarChart { height: auto; color: $accent; }
    """

    def __init__(
        self,
        values: Sequence[float],
        *,
        label: Callable[[float], str],
        first: str,
        last: str,
        full_scale: float = 1.0,
        rows: int = 5,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.values, self.label, self.first, self.last = list(values), label, first, last
        self.full_scale, self.rows = full_scale, rows

    def show(self, values: Sequence[float], *, first: str, last: str) -> None:
        self.values, self.first, self.last = list(values), first, last
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.rows + 2

    def render(self) -> Text:
        low = min([0.0, *self.values])
        top = max([self.full_scale, *self.values])
        labels = [self.label(top), self.label(low)]
        gutter = max(map(len, labels)) + 1
        columns = max(1, self.size.width - gutter - 1)
        shown = fit(self.values, columns)
        levels = [
            0 if value is None else round((value - low) / (top - low) * self.rows * 8)
            for value in shown
        ]
        lines = Text()
        for row in range(self.rows - 1, -1, -1):
            label = labels[0] if row == self.rows - 1 else labels[1] if row == 0 else ""
            lines.append(f"{label:>{gutter - 1}} │", style="dim")
            lines.append("".join(BLOCKS[max(0, min(8, level - row * 8))] for level in levels))
            lines.append("\n")
        lines.append(f"{'':>{gutter - 1}} └{'─' * len(shown)}\n", style="dim")
        room = max(0, len(shown) - len(self.first) - len(self.last))
        lines.append(f"{'':>{gutter}}{self.first}{' ' * room}{self.last}", style="dim")
        return lines
