"""A yes/no question before something that cannot be undone (ending a mock early, leaving a card
whose answer or code would be lost, seeing a solution not yet earned)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from app.ui.base import GrillDialog


class Question(GrillDialog[bool]):
    """A question with two answers; subclasses give the keys (never inherited from each other:
    one dialog's `y` must not answer another's)."""

    HELP = "Asks before going on."
    KEYS: ClassVar[str] = ""

    def __init__(self, question: str, detail: str) -> None:
        super().__init__()
        self.question, self.detail = question, detail

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm", classes="dialog"):
            yield Label(self.question, classes="dialog-title", markup=False)
            yield Static(self.detail, markup=False)
            yield Static(self.KEYS, classes="dialog-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ConfirmDialog(Question):
    HELP = "Asks before doing something that cannot be undone."
    BINDINGS = [
        Binding("enter,y", "answer(True)", "Yes", tooltip="Go ahead."),
        Binding("escape,n", "answer(False)", "No", tooltip="Back, nothing changes."),
    ]
    KEYS = "enter or y: yes · esc or n: no"


class LeaveCardDialog(Question):
    """Leaving a card would throw away a typed answer or edited code. Letters do nothing here:
    someone still typing when it opens must not leave by typing a `y`."""

    HELP = (
        "Leaving this card throws away what you typed and the code you changed: nothing of it "
        "is recorded. Stay to self-grade it (ctrl+g), or leave."
    )
    BINDINGS = [
        Binding("enter", "answer(True)", "Leave", tooltip="Leave the card; nothing is recorded."),
        Binding("escape", "answer(False)", "Stay", tooltip="Back to the card, as you left it."),
    ]
    KEYS = "enter: leave · esc: stay on the card"


class GiveUpDialog(Question):
    """Asking for the solution before solving or trying the task caps the attempt at Again.
    Only `y` shows it: an enter meant for the editor must not give the task up."""

    HELP = (
        "The reference solution opens once you have solved the task or run a fix of your own. "
        "Seeing it before that records this attempt as Again, as a card whose answer you "
        "looked up."
    )
    BINDINGS = [
        Binding("y", "answer(True)", "Show it", tooltip="Show the solution; rated Again."),
        Binding("escape,n", "answer(False)", "Keep trying", tooltip="Back to your code."),
    ]
    KEYS = "y: show the solution, rated Again · esc or n: keep trying"
