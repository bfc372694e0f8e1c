"""The first-run screen: how practice, grading and mocks work, in three lines."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from app.ui.base import GrillDialog

HOW_IT_WORKS = (
    "Practice: answer a card in your words, reveal the model answer part by part, then rate "
    "yourself (1-4); grill brings the card back when you are about to forget it.",
    "Grading: a card's code task runs your fix in a sandbox and says whether it still keeps "
    "autograd graphs alive, and whether it still does the job.",
    "Mocks: m runs a timed interview of five questions and scores it; press F1 or ? on any "
    "screen for its keys.",
)


class WelcomeDialog(GrillDialog[None]):
    HELP = "Shown once, the first time grill opens."
    BINDINGS = [
        Binding("enter", "start", "Start", tooltip="Close this and go to the cards."),
        Binding("escape", "start", "Start", show=False, tooltip="Close this and go to the cards."),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="welcome", classes="dialog"):
            yield Label("Welcome to grill", classes="dialog-title")
            for line in HOW_IT_WORKS:
                yield Static(line, classes="welcome-line", markup=False)
            yield Static("enter starts", classes="dialog-keys")

    def action_start(self) -> None:
        self.dismiss(None)
