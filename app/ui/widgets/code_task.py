"""The code task view: the editor, running it in the sandbox, and the result beside it."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Label, LoadingIndicator, OptionList, Static, TextArea
from textual.widgets.text_area import Selection

from app.practice.drafts import DraftError, Drafts
from app.progress.rating import GRADED_FAILURES
from app.ui.card_text import card_text
from app.ui.code_runner import CodeRunner
from app.ui.messages import GradeFailed, GradeFinished, SandboxWarmed
from app.ui.widgets.editor import BoundedTextArea
from app.ui.widgets.verdict_panel import VerdictPanel
from checkers.verdict import Device, Verdict
from questions.model import CodeTask


class CodeTaskPanel(Vertical):
    """Edit the starter, run it (ctrl+r), cancel (esc), reset (ctrl+l).

    Grading runs in a thread worker so the UI stays responsive; `cancel` kills the sandbox
    child at once and drops whatever that run would have returned. A verdict belongs to the
    code it graded: once the code changes, `verdict` is None and the result on screen says it
    is for an earlier version.
    """

    DEFAULT_CSS = """
    CodeTaskPanel { height: 1fr; }
    CodeTaskPanel > #code-split { height: 1fr; }
    CodeTaskPanel #code-editor { width: 3fr; height: 1fr; }
    CodeTaskPanel #code-side { width: 2fr; height: 1fr; }
    CodeTaskPanel.-narrow > #code-split { layout: vertical; }
    CodeTaskPanel.-narrow #code-editor { width: 1fr; height: 2fr; min-height: 8; border: none; padding: 0; }
    CodeTaskPanel.-narrow #code-side { width: 1fr; height: 1fr; min-height: 5; border-top: hkey $primary; }
    CodeTaskPanel #code-prompt { padding: 0 1; text-style: italic; }
    CodeTaskPanel #code-progress { height: 1; display: none; padding: 0 1; }
    CodeTaskPanel.-running #code-progress { display: block; }
    CodeTaskPanel #code-progress LoadingIndicator { width: 8; height: 1; }
    CodeTaskPanel #code-status { display: none; height: auto; padding: 0 1; margin: 0 0 1 0; color: $warning; }
    CodeTaskPanel VerdictPanel { height: auto; margin: 0 0 1 0; }
    CodeTaskPanel #code-hints { display: none; height: auto; padding: 0 1; margin: 0 0 1 0; color: $accent; }
    """

    NARROW_BELOW = 100
    """Below this many columns the result goes under the editor instead of beside it."""
    DRAFT_SAVE_S = 0.5
    """The draft is written this long after the last keystroke (and when the task closes)."""

    def __init__(
        self,
        task: CodeTask,
        runner: CodeRunner,
        *,
        device: Device,
        clock: Callable[[], float] = time.monotonic,
        id: str | None = None,
        drafts: Drafts | None = None,
        card_id: str = "",
        code: str | None = None,
        code_from: str | None = None,
        hints_seen: int = 0,
        on_hints_seen: Callable[[int], None] | None = None,
    ) -> None:
        """`drafts` keeps the code between sessions under `card_id` (practice; a mock starts
        from the starter and keeps none); `code` (read from `code_from`, a file the candidate
        worked on in their own editor) replaces the draft. `hints_seen`: card hints the
        candidate has already been shown (`grill task hint`); `on_hints_seen` hears of more."""
        super().__init__(id=id)
        self.code_task, self.runner, self.device, self._clock = task, runner, device, clock
        self.drafts, self.card_id = drafts, card_id
        self.hints_seen, self._on_hints_seen = hints_seen, on_hints_seen
        self.draft_kept = False
        """Whether the code on screen is kept as the task's draft (saved, or the starter)."""
        self._draft_timer: Timer | None = None
        self._draft_problem_said = False
        self._initial, self._opening_note = self._opening_code(code, code_from)
        self._code = self._initial
        """The editor's text as of its last change: what a draft keeps, even while unmounting."""
        self.run_number = 0
        """Increases with every run and cancel, so a stale result is recognised and dropped."""
        self.completed_runs = 0
        self.failed_runs = 0
        """Runs that graded but failed (leak, wrong): each offers one more of the card's hints."""
        self.running = False
        self.result: Verdict | None = None
        """The last run's verdict, whatever the code has become since."""
        self.graded_source: str | None = None
        self._run_started = 0.0

    def compose(self) -> ComposeResult:
        with Horizontal(id="code-split"):
            yield BoundedTextArea.code_editor(
                self._initial, language="python", show_line_numbers=True, id="code-editor"
            )
            # The newest result comes first and the task's prompt last: a finished run then
            # shows at the top of an unscrolled side, where no scroll has to be computed while
            # the layout is still settling (one computed then landed rows too far down).
            with VerticalScroll(id="code-side"):
                with Horizontal(id="code-progress"):
                    yield LoadingIndicator()
                    yield Label("", id="code-elapsed")
                yield Static("", id="code-status", markup=False)
                yield VerdictPanel()
                yield Static("", id="code-hints")
                yield Static(card_text(self.code_task.prompt), id="code-prompt")

    @property
    def editor(self) -> TextArea:
        return self.query_one("#code-editor", TextArea)

    @property
    def verdict(self) -> Verdict | None:
        """The verdict of the code as it is now; None when never run or changed since."""
        return (
            self.result
            if self.result is not None and self.graded_source == self.editor.text
            else None
        )

    def on_mount(self) -> None:
        self._elapsed_timer = self.set_interval(0.2, self._show_elapsed, pause=True)
        self.watch(self.app, "theme", self._match_editor_theme)
        self._set_status(self._opening_note)
        if self.drafts is not None and self._initial != self.code_task.starter:
            self.save_draft()  # code opened from a file is this task's draft from now on
        self._warm()

    def on_unmount(self) -> None:
        self.save_draft(quietly=True)

    # -- drafts ----------------------------------------------------------------------------

    def _opening_code(self, code: str | None, code_from: str | None) -> tuple[str, str]:
        """What the editor opens with, and a line saying where it came from."""
        starter = self.code_task.starter
        if code is not None:
            kept = " the app keeps it as this task's draft;" if self.drafts else ""
            return (
                code,
                f"Your code from {code_from or 'your file'}:{kept} that file is not changed.",
            )
        if self.drafts is None:
            return starter, ""
        try:
            draft = self.drafts.load(self.card_id)
        except DraftError as error:
            return starter, f"Your code from last time is not here: {error}."
        if draft is None or draft.text == starter:
            self.draft_kept = True
            return starter, ""
        self.draft_kept = True
        when = draft.saved_at.astimezone().strftime("%Y-%m-%d %H:%M")
        return draft.text, f"Your code from {when} is back. ctrl+l puts the starter back."

    def save_draft(self, *, quietly: bool = False) -> None:
        """Keep the code as it is now as the task's draft (the starter: no draft); a failure
        is said once, in the status line (`quietly`: not at all, the panel is going)."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        if self.drafts is None:
            return
        try:
            self.drafts.save(self.card_id, self._code, self.code_task.starter)
        except DraftError as error:
            self.draft_kept = False
            if not quietly and not self._draft_problem_said:
                self._draft_problem_said = True
                self._set_status(f"Your code cannot be kept for next time: {error}.")
        else:
            self.draft_kept = True

    def _match_editor_theme(self, theme: str) -> None:
        self.editor.theme = "github_light" if "light" in theme else "monokai"

    def on_resize(self) -> None:
        self.set_class(self.size.width < self.NARROW_BELOW, "-narrow")

    @work(thread=True, exclusive=True, exit_on_error=False, group="warm")
    def _warm(self) -> None:
        """Start the sandbox's warm worker now, so the first run does not wait for torch."""
        try:
            self.runner.warm(self.device)
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
        self._clear_result()
        self._show_elapsed()
        self.query_one("#code-side", VerticalScroll).scroll_home(animate=False)
        self._elapsed_timer.resume()
        self._grade(self.run_number, self.editor.text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="grade")
    def _grade(self, run: int, source: str) -> None:
        try:
            verdict = self.runner.grade(self.code_task, source, device=self.device)
        except Exception as error:  # the sandbox could not grade at all; say why, no traceback
            self.post_message(GradeFailed(run, str(error)))
        else:
            self.post_message(GradeFinished(run, verdict, source))

    def cancel(self) -> bool:
        """Stop the running grade at once; returns whether anything was running."""
        if not self.running:
            return False
        self.runner.cancel()
        self.run_number += 1
        self._finish_run()
        self._set_status("Cancelled: nothing was graded. ctrl+r runs again.")
        self.editor.focus()
        return True

    def reset(self) -> None:
        """The starter back in the editor; its draft goes."""
        self.editor.load_text(self.code_task.starter)
        self._code = self.code_task.starter
        self.save_draft()
        self.editor.focus()

    def explain_no_solution(self) -> None:
        self._set_status(
            "The reference solution opens after your first run, so you try the fix "
            "yourself first: ctrl+r grades your code."
        )

    @on(TextArea.Changed, "#code-editor")
    def _code_changed(self) -> None:
        if self.result is not None:
            self.query_one(VerdictPanel).mark_stale(self.verdict is None)
        self._code = self.editor.text
        if self.drafts is not None:
            if self._draft_timer is not None:
                self._draft_timer.stop()
            self._draft_timer = self.set_timer(self.DRAFT_SAVE_S, self.save_draft)

    @on(GradeFinished)
    def _on_grade_finished(self, message: GradeFinished) -> None:
        message.stop()
        if message.run != self.run_number:
            return
        self._finish_run()
        self.completed_runs += 1
        self.result, self.graded_source = message.verdict, message.source
        result = self.query_one(VerdictPanel)
        result.show(message.verdict)
        result.mark_stale(self.verdict is None)
        if message.verdict.verdict in GRADED_FAILURES:
            self.failed_runs += 1
            self._show_hints()
        self.query_one("#code-side", VerticalScroll).scroll_home(animate=False)
        error = message.verdict.error
        if error is not None and error.line:
            self.select_line(error.line)

    @on(GradeFailed)
    def _on_grade_failed(self, message: GradeFailed) -> None:
        message.stop()
        if message.run != self.run_number:
            return
        self._finish_run()
        self._set_status(f"Not graded, and nothing ran: {message.message}")

    @on(SandboxWarmed)
    def _on_sandbox_warmed(self, message: SandboxWarmed) -> None:
        message.stop()
        if message.error and not self.running:
            self._set_status(f"The sandbox could not start, so code cannot run: {message.error}")

    @on(OptionList.OptionSelected, "#verdict-retained")
    def _jump_to_retained(self, event: OptionList.OptionSelected) -> None:
        if self.result is None or event.option.id is None:
            return
        line = self.result.retained[int(event.option.id)].line
        if line:
            self.editor.move_cursor((line - 1, 0), center=True)
            self.editor.focus()

    def _show_hints(self) -> None:
        """The card's hints up to one per failed run, under the verdict they answer."""
        hints = self.code_task.hints
        count = min(len(hints), max(self.failed_runs, self.hints_seen))
        shown = hints[:count]
        if count > self.hints_seen and self._on_hints_seen is not None:
            self._on_hints_seen(count)
        self.hints_seen = count
        box = self.query_one("#code-hints", Static)
        box.update(
            Content("\n").join(
                Content(f"Card hint {i + 1} of {len(hints)}: ") + card_text(hint)
                for i, hint in enumerate(shown)
            )
        )
        box.display = True

    def _clear_result(self) -> None:
        """A new run supersedes the last result and the hints that answered it."""
        self.result = self.graded_source = None
        self.query_one(VerdictPanel).display = False
        self.query_one("#code-hints", Static).display = False

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
        self.query_one("#code-elapsed", Label).update(
            f"Running on {self.device}… {seconds:.1f} s · esc cancels"
        )

    def _set_status(self, text: str) -> None:
        status = self.query_one("#code-status", Static)
        status.update(text)
        status.display = bool(text)
