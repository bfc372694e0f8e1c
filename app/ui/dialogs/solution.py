"""Your code against the reference solution, then the solution itself, whole: once earned, or
asked for (`app.practice.solution`)."""

from __future__ import annotations

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from app.ui.base import GrillDialog
from app.ui.code_diff import code_diff


class SolutionDialog(GrillDialog[None]):
    HELP = (
        "The reference solution, opened once you solved the task or ran a fix of your own, or "
        "when you asked for it before that (which records the attempt as Again). The diff shows "
        "what differs: lines marked - are yours, lines marked + are the solution's. Pasting the "
        "solution back and grading it records the attempt as Again too."
    )
    BINDINGS = [Binding("escape,ctrl+s", "close", "Close", tooltip="Back to your code.")]

    def __init__(self, yours: str, solution: str, *, asked: bool = False) -> None:
        """`asked`: shown before it was earned, so the attempt is capped at Again."""
        super().__init__()
        self.yours, self.solution, self.asked = yours, solution, asked

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="solution", classes="dialog"):
            yield Label("Your code against the reference solution", classes="dialog-title")
            yield Static(
                code_diff(
                    self.yours,
                    self.solution,
                    names=("your code", "reference solution"),
                    same="Your code is the reference solution, line for line.",
                ),
                id="solution-diff",
            )
            yield Label("Reference solution", classes="dialog-title")
            yield Static(
                Syntax(
                    self.solution.rstrip(),
                    "python",
                    theme="ansi_dark",
                    line_numbers=True,
                    word_wrap=True,
                ),
                id="solution-code",
            )
            yield Static(
                "Shown before you solved the task: this attempt is recorded as Again."
                if self.asked
                else "Graded next, this solution as your fix is recorded as Again.",
                id="solution-cap",
            )
            yield Static("esc closes", classes="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)
