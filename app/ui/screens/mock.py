"""The timed mock interview, candidate mode: countdown, session progress, typed answers, code.

`MockStepsScreen` holds what both modes share (the clock bar, stepping through the session,
the code task); `MockScreen` adds the candidate's answer box. The session's own clock drives
the countdown, so tests inject a fake one and call `tick_clock()` instead of waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Header, ProgressBar, Static, TextArea

from app.mock.report import clock
from app.mock.session import Event, MockSession, Step, mmss
from app.ui.base import GrillScreen
from app.ui.card_text import card_text
from app.ui.dialogs.confirm import ConfirmDialog
from app.ui.widgets.code_task import CODE_TASK_KEYS, CodeTaskPanel
from app.ui.widgets.editor import BoundedTextArea
from app.ui.widgets.footer import KeysFooter

TICK_SECONDS = 0.25
STEP_NAMES = {"answer": "answer", "code": "code task", "follow_up": "follow-up"}


def show(static: Static, content: str | Text) -> None:
    """`static.update(content)` unless it shows that already: the bar is refreshed four times a
    second, and each update lays out the whole screen."""
    if static.content != content:
        static.update(content)


class MockStepsScreen(GrillScreen):
    """Steps through a `MockSession`; subclasses show each step and say what was answered."""

    BINDINGS = [
        Binding(
            "ctrl+n",
            "next",
            "Next",
            priority=True,
            tooltip="Done with this step: on to the next one.",
        ),
        Binding(
            "ctrl+r",
            "run_code",
            "Run",
            priority=True,
            tooltip="Grade the code in the sandbox; the last run counts.",
        ),
        Binding(
            "ctrl+l",
            "reset_code",
            "Reset",
            priority=True,
            tooltip="Put the starter code back in the editor.",
        ),
        Binding("escape", "cancel_run", "Cancel run", tooltip="Stop the code run in progress."),
        *CODE_TASK_KEYS,
        # F8: every ctrl+letter means something to some editor (ctrl+e is end of line).
        Binding(
            "f8",
            "end",
            "End mock",
            priority=True,
            tooltip="End the interview now, after asking; questions not reached score 0.",
        ),
    ]

    def __init__(self, session: MockSession, *, report_path: Path | None = None) -> None:
        super().__init__()
        self.session, self.report_path = session, report_path
        self.sub_title = f"Mock interview · {session.level} · {session.role}"
        self._panel: CodeTaskPanel | None = None
        """The code step's panel once fully mounted: the clock ticks while a panel is still
        being composed or removed, and must not read one then."""
        self.shown: Step | None = None
        """The step whose layout is complete (what to type into is on screen); None before
        the first one and after the last."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="mock-bar"):
            yield Static("", id="mock-step")
            yield Static("", id="mock-countdown")
            yield Static("", id="mock-session-clock")
            yield ProgressBar(total=100, show_eta=False, id="mock-progress")
        yield Static("", id="mock-notice")
        with Vertical(id="mock-body"):
            yield from self.compose_body()
        yield KeysFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    async def on_mount(self) -> None:
        if self.session.state == "ready":
            self.session.start()
        self.set_interval(TICK_SECONDS, self.tick_clock)
        await self._show(self.session.current)

    # -- the clock -------------------------------------------------------------------------

    async def tick_clock(self) -> None:
        """Called a few times a second (tests call it after moving their fake clock)."""
        if self.session.state == "finished":
            return
        self.sync_step()
        event = self.session.tick()
        self._refresh_bar()
        if event is not None:
            await self._after(event)

    def _refresh_bar(self) -> None:
        session, step = self.session, self.session.current
        if step is None:
            return
        name = STEP_NAMES[step.kind]
        if step.follow_up is not None:
            name += f" {step.follow_up + 1}"
        show(
            self.query_one("#mock-step", Static),
            Text.assemble(
                f"Question {step.question + 1} of {len(session.cards)} · ", (name, "bold")
            ),
        )
        countdown = self.query_one("#mock-countdown", Static)
        show(countdown, f"⏱ {mmss(max(0.0, session.remaining()))}")
        countdown.set_class(session.state == "overtime", "-over")
        show(self.query_one("#mock-session-clock", Static), session_clock(session))
        self.query_one("#mock-progress", ProgressBar).update(progress=100 * session.progress)
        notice = self.query_one("#mock-notice", Static)
        if session.state == "overtime":
            what = "The interview's time is up" if session.session_overrun else "Time is up"
            show(notice, f"{what}: moving on in {mmss(session.grace_left())}. ctrl+n moves on now.")
        notice.display = session.state == "overtime"

    # -- moving through the steps -------------------------------------------------------------

    def action_next(self) -> None:
        self._after_typing(self._next)

    def action_end(self) -> None:
        self.app.push_screen(
            ConfirmDialog(
                "End the interview now?",
                "Questions not reached score 0. What you typed so far is kept and scored.",
            ),
            self._confirm_end,
        )

    def _confirm_end(self, yes: bool | None) -> None:
        if yes:
            self._after_typing(self._end)

    def _after_typing(self, callback: Callable) -> None:
        """Run `callback` once the focused widget has handled the keys already queued for it.

        A priority binding runs before the editor has processed keys typed just before it, so
        moving on at once would drop the last words of a fast typist's answer.
        """
        if self.focused is not None:
            # Hop through the focused widget's queue, then run on the screen's own, so the
            # callback may remove that widget without waiting on itself.
            self.focused.call_later(self.call_later, callback)
        else:
            self.call_later(callback)

    async def _next(self) -> None:
        if self.session.current is None:
            return
        self.sync_step()
        await self._after(self.session.submit())

    async def _end(self) -> None:
        if self.session.current is None:
            return
        self.sync_step()
        self.session.finish_early()
        await self._after("finished")

    async def _after(self, event: Event) -> None:
        if event == "timed_out":
            self.app.bell()
            return
        self._cancel_code_run()
        if event == "finished":
            self.shown = None
            self.finish()
        else:
            await self._show(self.session.current)

    async def _show(self, step: Step | None) -> None:
        self.shown = None
        await self.show_step(step)
        self.shown = step

    async def show_step(self, step: Step | None) -> None:
        """Lay out the step now current; subclasses extend it."""
        self._refresh_bar()
        body = self.query_one("#mock-body")
        self._panel = None
        await self.query(CodeTaskPanel).remove()
        if step is not None and step.kind == "code":
            task = self.session.cards[step.question].card.code_task
            assert task is not None, "a code step comes only from a card with a code task"
            device = self.grill.settings.device
            device = task.grading.device if device == "auto" else device
            panel = CodeTaskPanel(
                task, self.grill.runner, device=device, clock=self.grill.clock, id="mock-code"
            )
            await body.mount(panel)
            self._panel = panel
            panel.editor.focus()
        self.refresh_bindings()

    def sync_step(self) -> None:
        """Hand the session what is on screen now: the typed text, or the code and its verdict."""
        step = self.session.current
        if step is None or step.kind != "code":
            return
        panel = self._code_panel()
        if panel is not None:
            self.session.set_draft(panel.editor.text)
            self.session.set_verdict(panel.verdict)

    def finish(self) -> None:
        raise NotImplementedError

    # -- code ------------------------------------------------------------------------------

    def _code_panel(self) -> CodeTaskPanel | None:
        return self._panel

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("run_code", "cancel_run", "reset_code", "hint", "switch_pane"):
            step = self.session.current
            return step is not None and step.kind == "code"
        return True

    def action_run_code(self) -> None:
        panel = self._code_panel()
        if panel is not None:
            panel.run()

    def action_reset_code(self) -> None:
        panel = self._code_panel()
        if panel is not None:
            panel.reset()

    def action_cancel_run(self) -> None:
        self._cancel_code_run()

    def action_hint(self) -> None:
        panel = self._code_panel()
        if panel is not None:
            why_none = panel.show_next_hint()
            if why_none:
                self.notify(why_none, title="No more hints", markup=False)

    def action_switch_pane(self) -> None:
        panel = self._code_panel()
        if panel is not None:
            panel.switch_pane()

    def _cancel_code_run(self) -> None:
        panel = self._code_panel()
        if panel is not None:
            panel.cancel()


def session_clock(session: MockSession) -> str:
    """The whole interview's clock, beside the step's: time left under a limit, else time used."""
    left = session.overall_remaining()
    if left is not None and session.minutes is not None:
        return f"interview {clock(max(0.0, left))} left of {clock(session.minutes * 60)}"
    return f"interview {clock(session.elapsed())} of {clock(session.budget)}"


class MockScreen(MockStepsScreen):
    """Candidate mode: read the question, type the answer before the countdown ends."""

    HELP = (
        "A timed mock interview. Read each question and type your answer before the countdown "
        "(the step's clock) runs out; the other clock is the whole interview's. Follow-ups come "
        "one at a time. On a code task, fix the code and run it: the last run before you move on "
        "counts. Afterwards you confirm what was matched in your answers and get a report."
    )

    def compose_body(self) -> ComposeResult:
        yield Static("", id="mock-prompt")
        yield BoundedTextArea(
            id="mock-answer",
            fill_lines=True,
            soft_wrap=True,
            placeholder="Type your answer. ctrl+n when done; the clock keeps running.",
        )

    @property
    def answer(self) -> TextArea:
        return self.query_one("#mock-answer", TextArea)

    async def show_step(self, step: Step | None) -> None:
        await super().show_step(step)
        if step is None:
            return
        self.query_one("#mock-prompt", Static).update(self._prompt(step))
        self.answer.display = step.kind != "code"
        self.answer.load_text("")
        if step.kind != "code":
            self.answer.focus()

    def _prompt(self, step: Step) -> Content:
        if step.kind == "follow_up":
            return Content.styled("Follow-up: ", "bold") + card_text(step.prompt)
        if step.kind == "code":
            return Content.assemble(
                ("Code task: ", "bold"),
                "fix the code and run it (ctrl+r) before moving on: the last run counts. "
                "f2 gives a hint, f6 moves between the code and its result.",
            )
        return card_text(step.prompt).stylize("bold")

    def sync_step(self) -> None:
        step = self.session.current
        if step is not None and step.kind != "code":
            self.session.set_draft(self.answer.text)
        super().sync_step()

    def finish(self) -> None:
        from app.ui.screens.mock_review import MockReviewScreen

        self.app.switch_screen(MockReviewScreen(self.session, report_path=self.report_path))
