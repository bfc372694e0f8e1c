"""The code task view: the editor, running it in the sandbox, and the result beside it."""

from __future__ import annotations

import time

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets.text_area import Selection
from textual.widgets import DataTable, Label, LoadingIndicator, Static, TextArea

from app.ui.card_text import card_text
from app.ui.grading import Grader
from app.ui.messages import GradeFailed, GradeFinished, SandboxWarmed
from app.ui.widgets.verdict_panel import VerdictPanel
from checkers.verdict import Verdict
from questions.model import CodeTask


KEYS_HELP = "ctrl+r run · esc cancel · ctrl+l reset to starter · ctrl+s solution (after a run)"


class CodeTaskPanel(Vertical):
    """Edit the starter, run it (ctrl+r), cancel (esc), reset (ctrl+l), and after one run, see the solution.

    Grading runs in a thread worker so the UI stays responsive; `cancel` kills the sandbox
    child at once and drops whatever that run would have returned.
    """

    DEFAULT_CSS = """
    CodeTaskPanel { height: 1fr; }
    CodeTaskPanel > #code-split { height: 1fr; }
    CodeTaskPanel #code-editor { width: 3fr; height: 1fr; }
    CodeTaskPanel #code-side { width: 2fr; height: 1fr; }
    CodeTaskPanel.-narrow > #code-split { layout: vertical; }
    CodeTaskPanel.-narrow #code-editor { width: 1fr; height: 3fr; min-height: 6; }
    CodeTaskPanel.-narrow #code-side { width: 1fr; height: 2fr; }
    CodeTaskPanel #code-prompt { padding: 0 1; text-style: italic; }
    CodeTaskPanel #code-keys { padding: 0 1; color: $text-muted; }
    CodeTaskPanel #code-progress { height: 1; display: none; padding: 0 1; }
    CodeTaskPanel.-running #code-progress { display: block; }
    CodeTaskPanel #code-progress LoadingIndicator { width: 8; height: 1; }
    CodeTaskPanel #code-status { padding: 0 1; color: $warning; }
    CodeTaskPanel VerdictPanel { height: auto; }
    CodeTaskPanel #code-hints { display: none; height: auto; padding: 0 1; margin: 1 0 0 0; color: $accent; }
    CodeTaskPanel #code-solution { display: none; height: auto; padding: 0 1; }
    CodeTaskPanel.-solution #code-solution { display: block; }
    """

    NARROW_BELOW = 100
    """Below this many columns the result goes under the editor instead of beside it."""

    def __init__(self, task: CodeTask, grader: Grader, *, device: str, clock=time.monotonic,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.code_task, self.grader, self.device, self._clock = task, grader, device, clock
        self.run_number = 0
        """Increases with every run and cancel, so a stale result is recognised and dropped."""
        self.completed_runs = 0
        self.hints_shown = 0
        """The card's hints are offered one more after each run that is not clean."""
        self.running = False
        self.verdict: Verdict | None = None
        self._run_started = 0.0

    def compose(self) -> ComposeResult:
        with Horizontal(id="code-split"):
            yield TextArea.code_editor(self.code_task.starter, language="python", show_line_numbers=True,
                                       id="code-editor")
            with VerticalScroll(id="code-side"):
                yield Static(card_text(self.code_task.prompt), id="code-prompt")
                yield Static(KEYS_HELP, id="code-keys")
                with Horizontal(id="code-progress"):
                    yield LoadingIndicator()
                    yield Label("", id="code-elapsed")
                yield Label("", id="code-status", markup=False)
                yield VerdictPanel()
                yield Static("", id="code-hints")
                yield Static("", id="code-solution")

    @property
    def editor(self) -> TextArea:
        return self.query_one("#code-editor", TextArea)

    def on_mount(self) -> None:
        self._elapsed_timer = self.set_interval(0.2, self._show_elapsed, pause=True)
        self.watch(self.app, "theme", self._match_editor_theme)
        self._warm()

    def _match_editor_theme(self, theme: str) -> None:
        self.editor.theme = "github_light" if "light" in theme else "monokai"

    def on_resize(self) -> None:
        self.set_class(self.size.width < self.NARROW_BELOW, "-narrow")

    @work(thread=True, exclusive=True, exit_on_error=False, group="warm")
    def _warm(self) -> None:
        """Start the sandbox's warm worker now, so the first run does not wait for torch."""
        try:
            self.grader.warm(self.device)
        except Exception as error:  # shown to the user; the run itself reports it again
            self.post_message(SandboxWarmed(error=str(error)))
        else:
            self.post_message(SandboxWarmed())

    def run(self) -> None:
        if self.running:
            return
        self.run_number += 1
        self.running = True
        self._run_started = self._clock()
        self.add_class("-running")
        self._set_status("")
        self._show_elapsed()
        self.query_one("#code-side", VerticalScroll).scroll_home(animate=False)
        self._elapsed_timer.resume()
        self._grade(self.run_number, self.editor.text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="grade")
    def _grade(self, run: int, source: str) -> None:
        try:
            verdict = self.grader.grade(source, device=self.device, steps=self.code_task.grading.steps)
        except Exception as error:  # the sandbox could not grade at all; say why, no traceback
            self.post_message(GradeFailed(run, f"{type(error).__name__}: {error}"))
        else:
            self.post_message(GradeFinished(run, verdict))

    def cancel(self) -> bool:
        """Stop the running grade at once; returns whether anything was running."""
        if not self.running:
            return False
        self.grader.cancel()
        self.run_number += 1
        self._finish_run()
        self._set_status("Cancelled. ctrl+r runs again.")
        self.editor.focus()
        return True

    def reset(self) -> None:
        self.editor.load_text(self.code_task.starter)
        self.editor.focus()

    def show_solution(self) -> bool:
        if self.completed_runs == 0:
            return False
        self.query_one("#code-solution", Static).update(
            Syntax(self.code_task.solution.rstrip(), "python", theme="ansi_dark", line_numbers=True))
        self.add_class("-solution")
        solution = self.query_one("#code-solution", Static)
        self.call_after_refresh(solution.scroll_visible, top=True, animate=False)
        return True

    @on(GradeFinished)
    def _on_grade_finished(self, message: GradeFinished) -> None:
        message.stop()
        if message.run != self.run_number:
            return
        self._finish_run()
        self.completed_runs += 1
        self.verdict = message.verdict
        self._set_status("")
        result = self.query_one(VerdictPanel)
        result.show(message.verdict)
        if message.verdict.verdict != "clean":
            self._offer_hint()
        self.call_after_refresh(result.scroll_visible, top=True, animate=False)
        error = message.verdict.error
        if error is not None and error.line:
            self.select_line(error.line)

    @on(GradeFailed)
    def _on_grade_failed(self, message: GradeFailed) -> None:
        message.stop()
        if message.run != self.run_number:
            return
        self._finish_run()
        self._set_status(f"Could not grade: {message.message}")

    @on(SandboxWarmed)
    def _on_sandbox_warmed(self, message: SandboxWarmed) -> None:
        message.stop()
        if message.error and not self.running:
            self._set_status(f"Sandbox not ready: {message.error}")

    @on(DataTable.RowSelected, "#verdict-retained")
    def _jump_to_retained(self, event: DataTable.RowSelected) -> None:
        if self.verdict is None or event.row_key.value is None:
            return
        line = self.verdict.retained[int(event.row_key.value)].line
        if line:
            self.editor.move_cursor((line - 1, 0), center=True)
            self.editor.focus()

    def _offer_hint(self) -> None:
        hints = self.code_task.hints
        self.hints_shown = min(len(hints), self.hints_shown + 1)
        box = self.query_one("#code-hints", Static)
        box.update(Content("\n").join(Content(f"Card hint {i + 1} of {len(hints)}: ") + card_text(hint)
                                      for i, hint in enumerate(hints[: self.hints_shown])))
        box.display = True

    def select_line(self, line: int) -> None:
        """Put the cursor on a 1-based line and select it, so the line stands out."""
        editor = self.editor
        row = min(max(line - 1, 0), editor.document.line_count - 1)
        editor.selection = Selection((row, len(editor.document.get_line(row))), (row, 0))
        editor.scroll_cursor_visible(center=True)
        editor.focus()

    def _finish_run(self) -> None:
        self.running = False
        self.remove_class("-running")
        self._elapsed_timer.pause()

    def _show_elapsed(self) -> None:
        seconds = self._clock() - self._run_started
        self.query_one("#code-elapsed", Label).update(f"Running on {self.device}… {seconds:.1f} s · esc cancels")

    def _set_status(self, text: str) -> None:
        status = self.query_one("#code-status", Label)
        status.update(text)
        status.display = bool(text)
