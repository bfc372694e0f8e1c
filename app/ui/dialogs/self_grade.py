"""Self-grade: tick the key points you made and the red flags you said, see the rating, record it."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, SelectionList, Static

from app.ui.card_text import card_text
from app.ui.review import SelfGrade, rate
from app.ui.widgets.tick_list import TickList
from checkers.verdict import Verdict
from questions.model import Card


class SelfGradeDialog(ModalScreen[SelfGrade | None]):
    """Returns the confirmed SelfGrade, or None to go back to the card."""

    BINDINGS = [
        Binding("ctrl+g", "record", "Record", priority=True),
        Binding("escape", "back", "Back to the card"),
    ]

    def __init__(self, card: Card, *, points: frozenset[int], flags: frozenset[int],
                 verdict: Verdict | None) -> None:
        super().__init__()
        self.card, self.verdict = card, verdict
        self._points, self._flags = points, flags

    def compose(self) -> ComposeResult:
        with Vertical(id="self-grade"):
            yield Label("Self-grade: space ticks, tab moves between lists", id="self-grade-title")
            with VerticalScroll(id="self-grade-lists"):
                yield Label("Key points you made (pre-ticked from your typed answer)",
                            classes="self-grade-heading")
                yield TickList(
                    *[(card_text(p.point), i, i in self._points) for i, p in enumerate(self.card.key_points)],
                    compact=True, id="self-grade-points")
                yield Label("Red flags you said", classes="self-grade-heading")
                yield TickList(
                    *[(card_text(f.flag), i, i in self._flags) for i, f in enumerate(self.card.red_flags)],
                    compact=True, id="self-grade-flags")
            yield Static("", id="self-grade-rating")
            with Horizontal(id="self-grade-buttons"):
                yield Button("Record (ctrl+g)", variant="primary", compact=True, id="self-grade-record")
                yield Button("Back (esc)", compact=True, id="self-grade-back")

    def on_mount(self) -> None:
        self._show_rating()

    @property
    def grade(self) -> SelfGrade:
        return SelfGrade(
            points_hit=frozenset(self.query_one("#self-grade-points", SelectionList).selected),
            flags_said=frozenset(self.query_one("#self-grade-flags", SelectionList).selected),
        )

    @on(SelectionList.SelectedChanged)
    def _show_rating(self) -> None:
        grade = self.grade
        rating = rate(self.card, grade, self.verdict)
        detail = f"{len(grade.points_hit)} of {len(self.card.key_points)} key points"
        if grade.flags_said:
            detail += ", a red flag said"
        if self.card.code_task is not None:
            if self.verdict is None:
                detail += "; code not run, so only your answer counts"
            elif self.verdict.verdict != "clean":
                detail += f"; code verdict {self.verdict.verdict} caps the rating"
        self.query_one("#self-grade-rating", Static).update(f"Rating: [b]{rating.capitalize()}[/b]  ({detail})")

    @on(Button.Pressed, "#self-grade-record")
    def action_record(self) -> None:
        self.dismiss(self.grade)

    @on(Button.Pressed, "#self-grade-back")
    def action_back(self) -> None:
        self.dismiss(None)
