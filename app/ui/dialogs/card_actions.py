"""What to do with a card instead of rating it: skip it for now, bury it until tomorrow, or
suspend it until it is brought back on home (Anki's skip, bury and suspend)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from app.ui.base import GrillDialog


class CardActionsDialog(GrillDialog[str | None]):
    """Returns `skip`, `bury` or `suspend`, or None to stay on the card."""

    HELP = (
        "Move on from a card without rating it. Skip: the next card now; this one stays in "
        "today's queue. Bury: out of the queues until tomorrow. Suspend: out of every queue "
        "until you bring it back on home (x on the card). None of them records an answer."
    )
    BINDINGS = [
        Binding("s", "choose('skip')", "Skip", tooltip="The next card; this one stays due."),
        Binding("b", "choose('bury')", "Bury", tooltip="Out of the queues until tomorrow."),
        Binding(
            "x",
            "choose('suspend')",
            "Suspend",
            tooltip="Out of every queue until x on home brings it back.",
        ),
        Binding("escape", "choose(None)", "Back", tooltip="Back to the card, nothing changes."),
    ]

    def __init__(self, card_id: str, *, work_lost: bool) -> None:
        super().__init__()
        self.card_id, self.work_lost = card_id, work_lost

    def compose(self) -> ComposeResult:
        with Vertical(id="card-actions", classes="dialog"):
            yield Label(
                f"Move on from {self.card_id} without rating it",
                classes="dialog-title",
                markup=False,
            )
            yield Static(
                "s  Skip: the next card now; this one stays in today's queue", markup=False
            )
            yield Static("b  Bury: out of the queues until tomorrow", markup=False)
            yield Static(
                "x  Suspend: out of every queue until x on home brings it back", markup=False
            )
            if self.work_lost:
                yield Static(
                    "What you typed and the code you changed are not recorded.",
                    id="card-actions-lost",
                    markup=False,
                )
            yield Static("s, b or x · esc back to the card", classes="dialog-keys")

    def action_choose(self, action: str | None) -> None:
        self.dismiss(action)
