"""GrillApp: owns the library, the history, the settings and the shared sandbox grader.

Packs load in a worker after the first paint; the history opens on mount (SQLite, quick). A
history that cannot be opened is shown on screen and the app keeps working without it.
"""

from __future__ import annotations

import time
from argparse import Namespace
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from app.ui.commands import ScreenCommands
from app.ui.grading import Grader, SandboxGrader
from app.ui.messages import LibraryLoaded
from app.ui.settings import Settings
from questions.model import Library, LoadedCard, Problem

if TYPE_CHECKING:
    from app.progress.attempt import Attempt
    from app.progress.history import History


class GrillApp(App):
    TITLE = "grill"
    CSS_PATH = "grill.tcss"
    COMMANDS = App.COMMANDS | {ScreenCommands}
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True, show=False)]

    def __init__(self, library: Library | None = None, history: History | None = None, *,
                 start_screen: Callable[[], Screen] | None = None,
                 start_with_due: bool = False, grader: Grader | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`start_with_due` opens today's queue once packs are loaded; `grader` and `clock` serve tests."""
        super().__init__()
        self.library = library
        self.history = history
        self._owns_history = history is None
        self.history_error: str | None = None
        self.settings = Settings()
        self.grader: Grader = grader or SandboxGrader()
        self.clock = clock
        self._start_screen = start_screen
        self._start_with_due = start_with_due

    def on_mount(self) -> None:
        if self.history is None:
            self.history, self.history_error = open_history()
        self.settings = Settings.load(self.history)
        self.theme = self.settings.textual_theme
        if self._start_screen is not None:
            self.push_screen(self._start_screen())
            return
        from app.ui.screens.home import HomeScreen

        self.push_screen(HomeScreen())
        if self.history_error:
            self.notify(self.history_error, title="History unavailable", severity="error", timeout=10,
                        markup=False)
        if self.library is None:
            self.call_after_refresh(self._load_library)
        elif self._start_with_due:
            self._open_due_queue()

    @work(thread=True, exclusive=True, exit_on_error=False, group="library")
    def _load_library(self) -> None:
        from app.paths import pack_search_path
        from questions.loader import load_library

        try:
            library = load_library(pack_search_path())
        except Exception as error:  # shown on home like any load problem, never as a traceback
            library = Library(problems=[Problem("<pack search path>", 0, 0, f"could not load packs: {error}")])
        self.post_message(LibraryLoaded(library))

    @on(LibraryLoaded)
    def _library_loaded(self, message: LibraryLoaded) -> None:
        self.library = message.library
        from app.ui.screens.home import HomeScreen

        for screen in self.screen_stack:
            if isinstance(screen, HomeScreen):
                screen.refresh_all()
        if self._start_with_due:
            self._open_due_queue()

    def _open_due_queue(self) -> None:
        from app.ui.screens.home import HomeScreen

        if isinstance(self.screen, HomeScreen):
            self.call_after_refresh(self.screen.action_practise_due)

    def practise(self, queue: Sequence[LoadedCard]) -> None:
        from app.ui.screens.practice import PracticeScreen

        if queue:
            self.push_screen(PracticeScreen(list(queue)))

    def start_mock(self, cards: Sequence[LoadedCard], questions: int = 5) -> None:
        """Draw a mock as `grill mock` would (weak and due cards first) and open its first screen."""
        from app.commands.mock import MockSetupError, build_session, start_screen
        from app.mock.draw import standings_from

        options = Namespace(questions=questions, level=self.settings.tier, minutes=None, seed=None,
                            interviewer=False)
        standings = None
        if self.history is not None:
            standings = standings_from(self.history, [c.card.id for c in cards], datetime.now(timezone.utc))
        try:
            session = build_session(options, cards, standings)
        except MockSetupError as error:
            self.notify(str(error), title="No mock", severity="warning", markup=False)
            return
        self.push_screen(start_screen(session, None))

    def due_queue(self, card_ids: list[str]) -> list[str]:
        """Today's queue; without a history every card is new, so the new-card limit applies."""
        if self.history is not None:
            from app.progress.history import HistoryError

            try:
                return self.history.due_queue(card_ids, new_per_day=self.settings.new_per_day)
            except HistoryError as error:
                self._lose_history(error)
        return card_ids[: self.settings.new_per_day]

    def seen_cards(self, card_ids: list[str]) -> set[str]:
        if self.history is not None:
            from app.progress.history import HistoryError

            try:
                return {card_id for card_id in card_ids if self.history.progress(card_id) is not None}
            except HistoryError as error:
                self._lose_history(error)
        return set()

    def _lose_history(self, error: Exception) -> None:
        """The history failed mid-session: say so and carry on without it."""
        self.history_error = str(error)
        self.history = None
        self.notify(self.history_error, title="History unavailable", severity="error", timeout=10, markup=False)

    def record_attempt(self, attempt: Attempt) -> None:
        if self.history is None:
            self.notify(f"Rated {attempt.rating}; not recorded because the history is unavailable.",
                        severity="warning")
            return
        from app.progress.history import HistoryError

        try:
            self.history.record(attempt)
        except HistoryError as error:
            self.notify(str(error), title="Could not record", severity="error", timeout=10, markup=False)
        else:
            self.notify(f"Rated {attempt.rating.capitalize()} and recorded.", timeout=3)

    def open_settings(self) -> None:
        from app.ui.dialogs.settings import SettingsDialog

        self.push_screen(SettingsDialog(self.settings), self._apply_settings)

    def _apply_settings(self, settings: Settings | None) -> None:
        if settings is None or settings == self.settings:
            return
        self.settings = settings
        self.theme = settings.textual_theme
        self._save_settings()
        from app.ui.screens.home import HomeScreen

        if isinstance(self.screen, HomeScreen):
            self.screen.refresh_all()

    def action_toggle_theme(self) -> None:
        self._apply_settings(replace(self.settings, theme="light" if self.settings.theme == "dark" else "dark"))

    def _save_settings(self) -> None:
        if self.history is None:
            return
        from app.progress.history import HistoryError

        try:
            self.settings.save(self.history)
        except HistoryError as error:
            self.notify(str(error), title="Settings not saved", severity="error", markup=False)

    def open_stats(self) -> None:
        if self.history is None:
            self.notify("Statistics need the history, which is unavailable.", severity="warning")
            return
        from app.progress.history import HistoryError
        from app.progress.stats import compute_stats
        from app.ui.screens.stats import StatsScreen

        try:
            stats = compute_stats(self.history, self.library.cards if self.library else None)
        except HistoryError as error:
            self.notify(str(error), title="No statistics", severity="error", markup=False)
            return
        self.push_screen(StatsScreen(stats))

    def on_unmount(self) -> None:
        self.grader.close()
        if self._owns_history and self.history is not None:
            self.history.close()


def open_history() -> tuple[History | None, str | None]:
    """The user's history, or None and a message saying what is wrong and what to do."""
    from app.progress.history import History, HistoryError

    try:
        return History.open(), None
    except HistoryError as error:
        return None, str(error)
