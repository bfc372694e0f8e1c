"""What every screen and dialog of grill shares: the typed app, its help text, the size guard.

Screens reach the app through `grill`, typed as `GrillApp`, instead of `self.app` (an
`App[Any]` to the type checker), so every attribute the UI reads from the app is checked.

Below `MIN_WIDTH` x `MIN_HEIGHT` no screen can lay itself out, so instead of a broken layout
each one shows only a notice asking for a bigger terminal. The app's breakpoints set the
`-too-narrow` / `-too-short` classes on the screen; grill.tcss hides everything but the notice.
"""

from __future__ import annotations

from time import monotonic
from typing import TYPE_CHECKING, ClassVar, TypeVar, cast

from textual import events, on
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

if TYPE_CHECKING:
    from app.ui.app import GrillApp

MIN_WIDTH, MIN_HEIGHT = 60, 18
HORIZONTAL_BREAKPOINTS = [(0, "-too-narrow"), (MIN_WIDTH, "-wide-enough")]
VERTICAL_BREAKPOINTS = [(0, "-too-short"), (MIN_HEIGHT, "-tall-enough")]

ResultType = TypeVar("ResultType")


class TooSmallNotice(Static):
    """Shown instead of the screen's content while the terminal is below the minimum size."""

    DEFAULT_CSS = """
    TooSmallNotice { display: none; width: 1fr; height: 1fr; content-align: center middle; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(
            f"Make the terminal at least {MIN_WIDTH}x{MIN_HEIGHT} to use grill (ctrl+q quits).",
            classes="too-small-notice",
        )


class GrillScreen(Screen):
    HELP: ClassVar[str] = ""
    """What the screen is for, in a sentence or two: the top of its help (F1, ?)."""
    DROPS_KEYS_TYPED_UNSEEN: ClassVar[bool] = False
    """Whether keys typed before the screen was first drawn are dropped (`GrillApp.on_event`):
    they were meant for the screen before it, such as the rest of an answer typed as a mock's
    time ran out, and would tick, untick or close what the candidate has not seen yet."""
    shown_at: float | None = None
    """When the screen was first drawn (Textual's clock, as an event's `time`)."""

    @property
    def grill(self) -> GrillApp:
        return cast("GrillApp", self.app)

    def typed_unseen(self, key: events.Key) -> bool:
        """Whether `key` was typed before this screen was drawn, and so is not for it."""
        return self.DROPS_KEYS_TYPED_UNSEEN and (self.shown_at is None or key.time < self.shown_at)

    @on(events.Mount)
    def _note_when_shown(self) -> None:
        self.call_after_refresh(self._shown)

    def _shown(self) -> None:
        if self.shown_at is None:
            self.shown_at = monotonic()

    @on(events.Mount)
    def _mount_size_notice(self) -> None:
        if self.is_attached:  # not when the app closed as the screen opened (a quit, a signal)
            self.mount(TooSmallNotice())


class GrillDialog(ModalScreen[ResultType]):
    HELP: ClassVar[str] = ""
    """What the dialog is for: the top of its help (F1)."""

    @property
    def grill(self) -> GrillApp:
        return cast("GrillApp", self.app)

    @on(events.Mount)
    def _mount_size_notice(self) -> None:
        if self.is_attached:  # not when the app closed as the screen opened (a quit, a signal)
            self.mount(TooSmallNotice())
