"""A yes/no question before something that cannot be undone (ending a mock early)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from app.ui.base import GrillDialog


class ConfirmDialog(GrillDialog[bool]):
    HELP = "Asks before doing something that cannot be undone."
    BINDINGS = [
        Binding("enter,y", "answer(True)", "Yes", tooltip="Go ahead."),
        Binding("escape,n", "answer(False)", "No", tooltip="Back, nothing changes."),
    ]

    def __init__(self, question: str, detail: str) -> None:
        super().__init__()
        self.question, self.detail = question, detail

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm", classes="dialog"):
            yield Label(self.question, classes="dialog-title", markup=False)
            yield Static(self.detail, markup=False)
            yield Static("enter or y: yes · esc or n: no", classes="dialog-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
