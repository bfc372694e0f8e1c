"""After a run: your code against the reference solution, then the solution itself, whole."""

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
        "The reference solution, opened only after you ran your own fix. The diff shows what "
        "differs: lines marked - are yours, lines marked + are the solution's."
    )
    BINDINGS = [Binding("escape,ctrl+s", "close", "Close", tooltip="Back to your code.")]

    def __init__(self, yours: str, solution: str) -> None:
        super().__init__()
        self.yours, self.solution = yours, solution

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
            yield Static("esc closes", classes="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)
