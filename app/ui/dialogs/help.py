"""Help for the screen underneath: what it is for, then every key it answers to."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from app.ui.base import GrillDialog
from app.ui.commands import screen_commands


class HelpDialog(GrillDialog[None]):
    HELP = "This help. Every screen has one: F1 anywhere, or ? where you are not typing."
    BINDINGS = [Binding("escape", "close", "Close", tooltip="Back to the screen.")]

    def __init__(self, explained: Screen) -> None:
        super().__init__()
        self.explained = explained

    def compose(self) -> ComposeResult:
        explained = self.explained
        with Vertical(id="help", classes="dialog"):
            yield Label(f"Help · {_title(explained)}", classes="dialog-title")
            yield Static(getattr(explained, "HELP", ""), id="help-about", markup=False)
            table: DataTable = DataTable(id="help-keys", cursor_type="none", zebra_stripes=True)
            table.add_columns("key", "command", "what it does")
            for command in screen_commands(explained):
                table.add_row(Text(command.keys, style="bold"), Text(command.name), Text(command.description))
            yield table
            yield Static("esc closes · ctrl+p lists the same commands to run by name", classes="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)


def _title(screen: Screen) -> str:
    return screen.sub_title or type(screen).__name__.removesuffix("Screen").removesuffix("Dialog")
