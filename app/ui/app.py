"""GrillApp: owns the library, the history, the settings and the shared code runner.

Packs load in a worker after the first paint; the history opens on mount (SQLite, quick). A
history that cannot be opened is shown on screen and the app keeps working without it.
Screens reach this class through `GrillScreen.grill`, typed, rather than `self.app`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer

from app.clock import utc_now
from app.practice.drafts import Drafts
from app.ui.base import HORIZONTAL_BREAKPOINTS, VERTICAL_BREAKPOINTS, GrillScreen
from app.ui.code_runner import CodeRunner, SandboxRunner
from app.ui.commands import PaletteCommands
from app.ui.messages import LibraryLoaded
from app.ui.settings import Settings
from questions.library import Library, LoadedCard, Problem

if TYPE_CHECKING:
    from rich.console import RenderableType

    from app.mock.session import MockSession
    from app.practice.solution import Earned, SolutionView
    from app.progress.attempt import Attempt
    from app.progress.history import CardFlags, History
    from app.progress.queue import TodaysQueue
    from app.progress.rating import Rating
    from app.ui.screens.practice import LastRating


HOME_WAIT_S = 0.5
"""How long home waits for its packs before it opens saying they are loading: a start from the
pack cache takes about half of that with 10,000 cards; a cold one, seconds."""
RUNNER_CLOSE_WAIT_S = 10.0
"""How long quitting waits for the sandbox to close (it stops its worker, or kills it)."""


class GrillApp(App):
    TITLE = "grill"
    CSS_PATH = "grill.tcss"
    COMMANDS = {PaletteCommands}
    HORIZONTAL_BREAKPOINTS = HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = VERTICAL_BREAKPOINTS
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
        Binding(
            "f1",
            "help",
            "Help",
            show=False,
            tooltip="What this screen is for, and every key on it.",
        ),
        Binding(
            "question_mark",
            "help",
            "Help",
            show=False,
            key_display="?",
            tooltip="What this screen is for, and every key on it.",
        ),
    ]

    def __init__(
        self,
        library: Library | None = None,
        history: History | None = None,
        *,
        start_screen: Callable[[], Screen] | None = None,
        then: Callable[[], Screen] | None = None,
        start_with_due: bool = False,
        runner: CodeRunner | None = None,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        """`start_screen` replaces home; `then` opens over home (`grill task open`);
        `start_with_due` opens today's queue once packs are loaded; `runner`, `clock` (for
        timers) and `now` (for dates: due, statistics) serve tests."""
        super().__init__()
        self.library = library
        self.history = history
        self._owns_history = history is None
        self.history_error: str | None = None
        self.settings = Settings()
        self.runner: CodeRunner = runner or SandboxRunner()
        self.clock = clock
        self.now = now
        self._start_screen = start_screen
        self._then = then
        self._start_with_due = start_with_due
        self.drafts = Drafts()
        """Each code task's code, kept between sessions in the data folder."""
        self._runner_closing: threading.Thread | None = None
        self._home_wait: Timer | None = None
        self.last_rating: LastRating | None = None
        self.undone: str | None = None
        """The card whose rating was taken back last: a second undo says so."""

    def on_mount(self) -> None:
        if self.library is None and self._start_screen is None:
            self._load_library()  # first: the packs are read while the history opens
        if self.history is None:
            self.history, self.history_error = open_history()
        self.settings = Settings.load(self.history)
        self.theme = self.settings.textual_theme
        if self._start_screen is not None:
            self.push_screen(self._start_screen())
            return
        if self.library is None:
            self._home_wait = self.set_timer(HOME_WAIT_S, self._open_home)
        else:
            self._open_home()

    async def on_event(self, event: events.Event) -> None:
        """A key typed before the screen it would land on was drawn is dropped where that
        screen asks for it (`GrillScreen.DROPS_KEYS_TYPED_UNSEEN`)."""
        if isinstance(event, events.Key) and self.screen_stack:
            screen = self.screen
            if isinstance(screen, GrillScreen) and screen.typed_unseen(event):
                event.stop()
                return
        await super().on_event(event)

    def _open_home(self) -> None:
        """Home, once its packs are loaded or after HOME_WAIT_S, whichever comes first: a
        start from the pack cache opens home whole, painted once, and a slow one (a cold
        cache, a pack on a slow disk) opens it saying the packs are loading."""
        from app.ui.screens.home import HomeScreen

        if self._home_wait is not None:
            self._home_wait.stop()
            self._home_wait = None
        if any(isinstance(screen, HomeScreen) for screen in self.screen_stack):
            return
        self.push_screen(HomeScreen())
        if self.history_error:
            self._say_history_unavailable()
        if self._then is not None:
            self.push_screen(self._then())
        # `grill practice --due` asked to start at once; the first-run screen waits for a plain start.
        starts_at_once = self._start_with_due or self._then is not None
        if self.history is not None and not self.settings.welcomed and not starts_at_once:
            from app.ui.dialogs.welcome import WelcomeDialog

            self.push_screen(WelcomeDialog(), self._welcomed)
        if self.library is not None and self._start_with_due:
            self._open_due_queue()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's system commands but its theme picker, which set themes grill neither
        offers nor remembers beside grill's own Theme (t, and Settings); and its key panel,
        which F1's help replaces."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Theme", "Keys"):
                yield command

    def _welcomed(self, _: None) -> None:
        self.settings = replace(self.settings, welcomed=True)
        self._save_settings()

    @work(thread=True, exclusive=True, exit_on_error=False, group="library")
    def _load_library(self) -> None:
        from app.paths import load_packs

        try:
            library = load_packs()
        except Exception as error:  # shown on home like any load problem, never as a traceback
            library = Library(
                problems=[Problem("<pack search path>", 0, 0, f"could not load packs: {error}")]
            )
        self.post_message(LibraryLoaded(library))

    @on(LibraryLoaded)
    def _library_loaded(self, message: LibraryLoaded) -> None:
        self.library = message.library
        from app.ui.screens.home import HomeScreen

        homes = [screen for screen in self.screen_stack if isinstance(screen, HomeScreen)]
        if not homes:
            self._open_home()
            return
        for screen in homes:
            screen.refresh_all()
        if self._start_with_due:
            self._open_due_queue()

    def _open_due_queue(self) -> None:
        from app.ui.screens.home import HomeScreen

        home = next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)
        if home is not None:
            self.call_after_refresh(home.action_practise_due)

    def action_help(self) -> None:
        from app.ui.dialogs.help import HelpDialog

        if not isinstance(self.screen, HelpDialog):
            self.push_screen(HelpDialog(self.screen))

    def practise(self, queue: Sequence[LoadedCard]) -> None:
        from app.ui.screens.practice import practice_screen

        screen = practice_screen(self, list(queue))
        if screen is not None:
            self.push_screen(screen)

    def start_mock(self, cards: Sequence[LoadedCard], questions: int = 5) -> None:
        """Draw a mock as `grill mock` does (weak and due cards first) and open its first screen."""
        from app.mock.setup import MockSetupError, build_session

        try:
            session = build_session(
                cards,
                level=self.settings.level,
                questions=questions,
                history=self.history,
                now=self.now(),
            )
        except MockSetupError as error:
            self.notify(str(error), title="No mock", severity="warning", markup=False)
            return
        self.push_screen(mock_screen(session, None))

    def todays_queue(self, library: Library) -> TodaysQueue:
        """Today's queue of each pack and of every pack; without a history every card is new,
        so the new-card limits apply."""
        packs = {pack.info.name: [c.id for c in pack.cards] for pack in library.packs}
        per_day, per_pack = self.settings.new_per_day, self.settings.new_per_pack
        if self.history is not None:
            from app.progress.history import HistoryError

            try:
                return self.history.todays_queue(
                    packs, now=self.now(), new_per_day=per_day, new_per_pack=per_pack
                )
            except HistoryError as error:
                self._lose_history(error)
        from app.clock import end_of_local_day
        from app.progress.queue import build_queue

        cutoff = end_of_local_day(self.now())
        return build_queue(packs, {}, cutoff=cutoff, new_per_day=per_day, new_per_pack=per_pack)

    def due_dates(self, card_ids: list[str]) -> dict[str, datetime]:
        """When each card seen before comes back; cards never practised are absent."""
        if self.history is not None:
            from app.progress.history import HistoryError

            try:
                known = self.history.due_dates()
            except HistoryError as error:
                self._lose_history(error)
            else:
                return {card_id: known[card_id] for card_id in card_ids if card_id in known}
        return {}

    def next_due(self, card_id: str, at: datetime) -> dict[Rating, datetime] | None:
        """When the card comes back after each rating recorded `at`; None without a history."""
        if self.history is not None:
            from app.progress.history import HistoryError
            from app.progress.preview import next_due

            try:
                return next_due(self.history, card_id, at)
            except HistoryError as error:
                self._lose_history(error)
        return None

    def hints_shown(self, card_id: str) -> int:
        """How many of the card's code-task hints were shown (`grill task hint` or the app)."""
        if self.history is not None:
            from app.practice.hints import hints_shown
            from app.progress.history import HistoryError

            try:
                return hints_shown(self.history, card_id)
            except HistoryError as error:
                self._lose_history(error)
        return 0

    def record_hints_shown(self, card_id: str, shown: int) -> None:
        if self.history is not None:
            from app.practice.hints import record_hints_shown
            from app.progress.history import HistoryError

            try:
                record_hints_shown(self.history, card_id, shown)
            except HistoryError as error:
                self._lose_history(error)

    def solution_earned(self, card_id: str, starter: str) -> Earned | None:
        """Whether the history's attempts on the task opened its solution (`solved`, `tried`)."""
        if self.history is not None:
            from app.practice.solution import earned_by, graded_fixes
            from app.progress.history import HistoryError

            try:
                return earned_by(graded_fixes(self.history.attempts(card_id)), starter)
            except HistoryError as error:
                self._lose_history(error)
        return None

    def solution_view(self, card_id: str) -> SolutionView | None:
        """The view of the task's solution no attempt has recorded yet (`grill task solution`,
        or the app, before this card was opened)."""
        if self.history is not None:
            from app.practice.solution import pending_view
            from app.progress.history import HistoryError

            try:
                return pending_view(self.history, card_id)
            except HistoryError as error:
                self._lose_history(error)
        return None

    def record_solution_view(self, card_id: str, *, asked: bool) -> SolutionView:
        """Keep that the task's solution was shown now (in the history when there is one)."""
        from app.practice.solution import SolutionView, record_view

        if self.history is not None:
            from app.progress.history import HistoryError

            try:
                return record_view(self.history, card_id, asked=asked, at=self.now())
            except HistoryError as error:
                self._lose_history(error)
        return SolutionView(asked=asked, at=self.now())

    def card_flags(self) -> dict[str, CardFlags]:
        """The cards suspended or buried; none without a history."""
        if self.history is not None:
            from app.progress.history import HistoryError

            try:
                return self.history.card_flags()
            except HistoryError as error:
                self._lose_history(error)
        return {}

    def set_suspended(self, card_id: str, suspended: bool) -> str | None:
        """Suspend a card (or bring it back); None when done, else why not."""
        return self._change_flags(lambda history: history.set_suspended(card_id, suspended))

    def bury(self, card_id: str, *, until_tomorrow: bool = True) -> str | None:
        """Keep a card out of the queues until the start of tomorrow (or bring it back now)."""
        from app.clock import end_of_local_day

        until = end_of_local_day(self.now()) if until_tomorrow else None
        return self._change_flags(lambda history: history.bury(card_id, until))

    def _change_flags(self, change: Callable[[History], None]) -> str | None:
        if self.history is None:
            return "Not possible: the history, which keeps it, is unavailable."
        from app.progress.history import HistoryError

        try:
            change(self.history)
        except HistoryError as error:
            return f"Not saved: {error}"
        return None

    def undo_last_rating(self) -> str | None:
        """Take back the last practice rating and open its card again; None when done, else
        a sentence saying why not."""
        last = self.last_rating
        if last is None and self.undone is not None:
            return (
                f"Nothing more to undo: the rating of {self.undone} was taken back, and grill"
                " takes back only the last rating."
            )
        if last is None:
            return "Nothing to undo: no card was rated since grill started."
        if self.history is None:
            return "Cannot undo: the history is unavailable."
        from app.progress.history import HistoryError
        from app.ui.screens.practice import PracticeScreen

        try:
            self.history.undo(last.attempt_id)
        except HistoryError as error:
            return f"Could not undo: {error}"
        self.last_rating = None
        self.undone = last.queue[last.position].id
        screen = PracticeScreen(list(last.queue), last.position, last.ratings_before)
        if isinstance(self.screen, PracticeScreen):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        card = last.queue[last.position].id
        self.notify(f"Rating of {card} taken back: the card is as it was before it.", timeout=4)
        return None

    def _lose_history(self, error: Exception) -> None:
        """The history failed mid-session: say so and carry on without it."""
        self.history_error = str(error)
        self.history = None
        self._say_history_unavailable()

    def _say_history_unavailable(self) -> None:
        self.notify(
            self.history_error or "",
            title="History unavailable",
            severity="error",
            timeout=10,
            markup=False,
        )

    def record(self, attempts: Iterable[Attempt]) -> str | None:
        """Store attempts; None when stored, else a sentence saying why they were not."""
        if self.history is None:
            return "Not recorded: the history is unavailable."
        from app.progress.history import HistoryError

        try:
            for attempt in attempts:
                self.history.record(attempt)
        except HistoryError as error:
            return f"Could not record: {error}"
        return None

    def open_settings(self) -> None:
        from app.ui.dialogs.settings import SettingsDialog

        self.push_screen(SettingsDialog(self.settings), self._apply_settings)

    def _apply_settings(self, settings: Settings | None) -> None:
        if settings is None or settings == self.settings:
            return
        if settings.device == "cuda" and self.settings.device != "cuda":
            from app.ui.code_runner import cuda_device_present

            if not cuda_device_present():
                self.notify(
                    "This machine has no CUDA device, so code tasks will not run until the "
                    "device is auto or cpu.",
                    title="Saved: device cuda",
                    severity="warning",
                    markup=False,
                )
        self.settings = settings
        self.theme = settings.textual_theme
        self._save_settings()
        from app.ui.screens.home import HomeScreen

        if isinstance(self.screen, HomeScreen):
            self.screen.refresh_all()

    def action_toggle_theme(self) -> None:
        self._apply_settings(
            replace(self.settings, theme="light" if self.settings.theme == "dark" else "dark")
        )

    def _save_settings(self) -> None:
        """Settings live in the history file, so without it they last until grill closes: say so."""
        if self.history is None:
            self.notify(
                "Settings apply until grill closes: they are saved in the history, which is "
                "unavailable.",
                title="Settings not saved",
                severity="warning",
                markup=False,
            )
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
        from app.progress.outlook import compute_outlook
        from app.progress.stats import compute_stats
        from app.ui.screens.stats import StatsScreen

        cards = self.library.cards if self.library else None
        now = self.now()
        try:
            stats = compute_stats(self.history, cards, now=now)
            outlook = compute_outlook(self.history, cards or [], now=now)
        except HistoryError as error:
            self.notify(str(error), title="No statistics", severity="error", markup=False)
            return
        self.push_screen(StatsScreen(stats, outlook))

    def exit(
        self, result: object = None, return_code: int = 0, message: RenderableType | None = None
    ) -> None:
        """Quit; the sandbox starts closing now, beside Textual's own shutdown, instead of
        after it (its worker takes most of a second to end after a run)."""
        if self._runner_closing is None:
            self._runner_closing = threading.Thread(
                target=self.runner.close, name="grill-close-sandbox", daemon=True
            )
            self._runner_closing.start()
        super().exit(result, return_code, message)

    def on_unmount(self) -> None:
        if self._runner_closing is None:
            self.runner.close()
        else:
            self._runner_closing.join(timeout=RUNNER_CLOSE_WAIT_S)
        if self._owns_history and self.history is not None:
            self.history.close()


def mock_screen(session: MockSession, report_path: Path | None) -> Screen:
    """The first screen of a mock: the candidate's or the interviewer's."""
    if session.role == "interviewer":
        from app.ui.screens.mock_interviewer import MockInterviewerScreen

        return MockInterviewerScreen(session, report_path=report_path)
    from app.ui.screens.mock import MockScreen

    return MockScreen(session, report_path=report_path)


def open_history() -> tuple[History | None, str | None]:
    """The user's history, or None and a message saying what is wrong and what to do."""
    from app.progress.history import History, HistoryError

    try:
        return History.open(), None
    except HistoryError as error:
        return None, str(error)
