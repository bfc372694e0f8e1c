"""The code task view: the editor, running it in the sandbox, and the result beside or under it."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Label, LoadingIndicator, OptionList, Static, TextArea
from textual.widgets.text_area import Selection

from app.practice.drafts import DraftError, Drafts
from app.ui.card_text import card_bullets, card_text
from app.ui.code_runner import CodeRunner, DeviceMissing
from app.ui.messages import GradeFailed, GradeFinished, SandboxWarmed
from app.ui.widgets.code_editor import CodeEditor
from app.ui.widgets.verdict_panel import VerdictPanel
from checkers.contract_words import contract_lines
from checkers.verdict import Device, Verdict
from questions.model import CodeTask

CODE_TASK_KEYS = (
    Binding(
        "f2",
        "hint",
        "Hint",
        priority=True,
        show=False,
        tooltip="The card's next hint for the code task; then the grader's, for the last run.",
    ),
    Binding(
        "f6",
        "switch_pane",
        "Pane",
        priority=True,
        show=False,
        tooltip="Move between the code editor and the result, to scroll or choose in it "
        "(tab indents in the editor).",
    ),
)
"""The keys of a screen that holds a code task (practice, the mock), not in the footer (full
at 80 columns): the result panel names them."""


class CodeTaskPanel(Vertical):
    """Edit the starter, run it (ctrl+r), cancel (esc), reset (ctrl+l); the screens add f6
    (between the editor and the result) and f2 (the next hint).

    Grading runs in a thread worker so the UI stays responsive; `cancel` kills the sandbox
    child at once and drops whatever that run would have returned. A verdict belongs to the
    code it graded: once the code changes, `verdict` is None and the result on screen says it
    is for an earlier version. A finished run never moves the cursor: the line a run failed
    at is offered in the result, and enter there goes to it.
    """

    DEFAULT_CSS = """
    CodeTaskPanel { height: 1fr; }
    CodeTaskPanel > #code-split { height: 1fr; }
    CodeTaskPanel #code-editor { width: 3fr; height: 1fr; }
    CodeTaskPanel #code-side { width: 2fr; height: 1fr; border-left: tall $panel; }
    CodeTaskPanel #code-side:focus { border-left: tall $accent; background: $boost; }
    CodeTaskPanel.-narrow > #code-split { layout: vertical; }
    CodeTaskPanel.-narrow #code-editor { width: 1fr; height: 2fr; min-height: 8; border: none; padding: 0; }
    CodeTaskPanel.-narrow #code-side { width: 1fr; height: 1fr; min-height: 5; border-left: none; border-top: hkey $primary; }
    CodeTaskPanel.-narrow #code-side:focus { border-left: none; border-top: hkey $accent; }
    CodeTaskPanel #code-prompt { padding: 0 1; text-style: italic; }
    CodeTaskPanel #code-contract { padding: 0 1; margin: 1 0 0 0; color: $text-muted; }
    CodeTaskPanel #code-progress { height: 1; display: none; padding: 0 1; }
    CodeTaskPanel #code-progress LoadingIndicator { width: 8; height: 1; }
    CodeTaskPanel #code-status { display: none; height: auto; padding: 0 1; margin: 0 0 1 0; color: $warning; }
    CodeTaskPanel VerdictPanel { height: auto; margin: 0 0 1 0; }
    CodeTaskPanel #code-hints { display: none; height: auto; padding: 0 1; margin: 0 0 1 0; color: $accent; }
    """

    NARROW_BELOW = 140
    """Below this many columns the result goes under the editor instead of beside it, so the
    editor keeps the terminal's width (beside it at 100 columns, it had 56)."""
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
        self._on_hints_seen = on_hints_seen
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
        self.hints_shown = min(hints_seen, len(task.hints))
        """The card's hints asked for so far (f2 here, or `grill task hint`), shown in order
        under the result."""
        self.running = False
        self.result: Verdict | None = None
        """The last run's verdict, whatever the code has become since."""
        self.graded_source: str | None = None
        self.graded_fixes: list[tuple[str, str]] = []
        """Each graded run's (code, verdict) here: with the history's, what opens the solution
        (`app.practice.solution.earned_by`)."""
        self._run_started = 0.0

    def compose(self) -> ComposeResult:
        with Horizontal(id="code-split"):
            yield CodeEditor.code_editor(
                self._initial,
                language="python",
                show_line_numbers=True,
                soft_wrap=True,
                id="code-editor",
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
                yield Static(
                    Content("Checked when you run it, against the reference solution:\n")
                    + card_bullets(contract_lines(self.code_task.contract)),
                    id="code-contract",
                )

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
        if self.hints_shown:
            self._show_hints()  # asked for before (`grill task hint`, an earlier session)
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
        except DeviceMissing as error:
            self.post_message(SandboxWarmed(error=str(error), missing_device=True))
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
        self._mark_running(True)
        self._set_status("")
        self._clear_result()
        self._show_hints()
        self._show_elapsed()
        self.query_one("#code-side", VerticalScroll).scroll_home(animate=False)
        self._elapsed_timer.resume()
        self._grade(self.run_number, self.editor.text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="grade")
    def _grade(self, run: int, source: str) -> None:
        try:
            verdict = self.runner.grade(self.code_task, source, device=self.device)
        except DeviceMissing as error:
            self.post_message(GradeFailed(run, str(error), missing_device=True))
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
        self.graded_fixes.append((message.source, message.verdict.verdict))
        result = self.query_one(VerdictPanel)
        result.show(message.verdict)
        result.mark_stale(self.verdict is None)
        self._say_keys()
        self.query_one("#code-side", VerticalScroll).scroll_home(animate=False)

    @on(GradeFailed)
    def _on_grade_failed(self, message: GradeFailed) -> None:
        message.stop()
        if message.run != self.run_number:
            return
        self._finish_run()
        if message.missing_device or "nothing ran" in message.message:
            self._set_status(f"Not graded. {message.message}")
        else:
            self._set_status(f"Not graded, and nothing ran: {message.message}")

    @on(SandboxWarmed)
    def _on_sandbox_warmed(self, message: SandboxWarmed) -> None:
        message.stop()
        if message.error and not self.running:
            self._set_status(
                message.error
                if message.missing_device
                else f"The sandbox could not start, so code cannot run: {message.error}"
            )

    @on(OptionList.OptionSelected, "#verdict-retained")
    def _jump_to_retained(self, event: OptionList.OptionSelected) -> None:
        if self.result is None or event.option.id is None:
            return
        line = self.result.retained[int(event.option.id)].line
        if line:
            self.editor.move_cursor((line - 1, 0), center=True)
            self.editor.focus()

    @on(OptionList.OptionSelected, "#verdict-where")
    def _jump_to_error(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.select_line(int(event.option.id))

    def switch_pane(self) -> None:
        """Move between the editor and the result (f6): Tab indents in the editor."""
        side = self.query_one("#code-side", VerticalScroll)
        if self.editor.has_focus:
            side.focus()
        else:
            self.editor.focus()

    def show_next_hint(self) -> str | None:
        """The card's next hint (f2); once they are all shown, the grader's hint for the last
        run. Returns None when it showed one, else a sentence saying why there is none."""
        hints = self.code_task.hints
        result = self.query_one(VerdictPanel)
        if self.hints_shown < len(hints):
            self.hints_shown += 1
            if self._on_hints_seen is not None:
                self._on_hints_seen(self.hints_shown)
            self._show_hints()
            self._say_keys()
            self.call_after_refresh(self.query_one("#code-hints").scroll_visible, animate=False)
            return None
        if result.display and result.has_hint and not result.hint_shown:
            result.show_hint()
            self._say_keys()
            self.call_after_refresh(
                self.query_one("#verdict-hint-box").scroll_visible, animate=False
            )
            return None
        if result.display and result.hint_shown:
            return "Every hint is shown; ctrl+s shows the reference solution."
        if hints:
            return (
                "Every card hint is shown; a run that leaks or breaks the task adds the "
                "grader's own hint."
            )
        return "This task has no hints of its own; a run that fails adds the grader's hint."

    def _show_hints(self) -> None:
        """The card's hints asked for so far, in order, under the result."""
        hints = self.code_task.hints
        box = self.query_one("#code-hints", Static)
        box.update(
            Content("\n").join(
                Content(f"Card hint {i + 1} of {len(hints)}: ") + card_text(hint)
                for i, hint in enumerate(hints[: self.hints_shown])
            )
        )
        box.display = self.hints_shown > 0

    def _say_keys(self) -> None:
        """Under the verdict, the keys that work on it."""
        result = self.query_one(VerdictPanel)
        parts = ["f6 scrolls this"]
        left = len(self.code_task.hints) - self.hints_shown
        if left:
            parts.append(f"f2 hint ({left} left)")
        elif result.has_hint and not result.hint_shown:
            parts.append("f2 the grader's hint")
        result.say_keys(" · ".join(parts))

    def _clear_result(self) -> None:
        """A new run supersedes the last result (the hints asked for stay: they are the task's)."""
        self.result = self.graded_source = None
        self.query_one(VerdictPanel).display = False

    def select_line(self, line: int) -> None:
        """Put the cursor on a 1-based line and select it, so the line stands out (asked for:
        a finished run never moves the cursor on its own)."""
        editor = self.editor
        row = min(max(line - 1, 0), editor.document.line_count - 1)
        editor.selection = Selection((row, len(editor.document.get_line(row))), (row, 0))
        editor.scroll_cursor_visible(center=True)
        editor.focus()

    def _finish_run(self) -> None:
        self.running = False
        self._mark_running(False)
        self._elapsed_timer.pause()

    def _mark_running(self, running: bool) -> None:
        """`-running` marks the panel while a run is on, and its progress row shows. Only that
        row depends on it, so the class is set without restyling the whole panel: a class
        change restyles every widget under it (the editor, the result), which cost a run's
        start and its end a twentieth of a second each."""
        self.set_class(running, "-running", update=False)
        self.query_one("#code-progress").display = running

    def _show_elapsed(self) -> None:
        seconds = self._clock() - self._run_started
        self.query_one("#code-elapsed", Label).update(
            f"Running on {self.device}… {seconds:.1f} s · esc cancels"
        )

    def _set_status(self, text: str) -> None:
        status = self.query_one("#code-status", Static)
        status.update(text)
        status.display = bool(text)
