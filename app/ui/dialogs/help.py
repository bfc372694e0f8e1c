"""Help for the screen underneath: what it is for, then every key it answers to."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Label, Static

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
        with VerticalScroll(id="help", classes="dialog"):
            yield Label(f"Help · {_title(explained)}", classes="dialog-title")
            yield Static(getattr(explained, "HELP", ""), id="help-about", markup=False)
            yield Static(keys_text(explained), id="help-keys")
            yield Static(
                "esc closes · ctrl+p lists the same commands to run by name", classes="dialog-keys"
            )

    def action_close(self) -> None:
        self.dismiss(None)


def keys_text(screen: Screen) -> Content:
    """One line per command, `key  Name: what it does`, wrapping rather than cut at any width."""
    commands = screen_commands(screen)
    width = max((len(command.keys) for command in commands), default=0)
    return Content("\n").join(
        Content.assemble(
            (command.keys.ljust(width), "bold $accent"),
            "  ",
            (command.name, "bold"),
            f": {command.description}" if command.description else "",
        )
        for command in commands
    )


def _title(screen: Screen) -> str:
    return screen.sub_title or type(screen).__name__.removesuffix("Screen").removesuffix("Dialog")
