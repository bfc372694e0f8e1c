"""Practising a queue of cards: answer against the clock, reveal, follow-ups, self-grade, record.

Each card gets a fresh PracticeScreen; recording one switches to the next card's screen, and
the ratings given so far travel along so the end of the queue can say how it went.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Header, Static, TabbedContent, TabPane, TextArea

from app.practice.review import PhaseTimer, SelfGrade, build_attempt, pretick, reveal_plan
from app.practice.solution import SolutionView, earned_by, viewed_for
from app.progress.rating import RATINGS, Rating, SolutionViewed
from app.ui.base import GrillScreen
from app.ui.card_text import card_text
from app.ui.dialogs.self_grade import SelfGradeDialog
from app.ui.widgets.clock import AnswerClock
from app.ui.widgets.code_task import CODE_TASK_KEYS, CodeTaskPanel
from app.ui.widgets.editor import BoundedTextArea
from app.ui.widgets.footer import KeysFooter
from app.ui.widgets.reveal import RevealSection
from app.wording import comes_back, count
from checkers.verdict import Device, Verdict
from questions.levels import LEVELS
from questions.library import CardUnavailable, LoadedCard

STEP_NAMES = {
    "key_points": "key points",
    "basic": "basic answer",
    "solid": "solid answer",
    "tier": "tier answer",
    "deep_dive": "deep dive",
    "examples": "examples",
    "follow_up_question": "follow-up",
    "follow_up_answer": "follow-up answer",
    "red_flags": "red flags",
}
CODE_ACTIONS = {"toggle_code", "run_code", "reset_code", "show_solution", "hint", "switch_pane"}


@dataclass(frozen=True)
class LastRating:
    """The rating recorded last in practice, and where it was given: what undo takes back."""

    attempt_id: str
    queue: tuple[LoadedCard, ...]
    position: int
    ratings_before: tuple[Rating, ...]
    """The queue's ratings before it, for the end-of-queue tally."""


class PracticeScreen(GrillScreen):
    HELP = (
        "One card at a time. Answer in your own words (typed or aloud) against the clock, then "
        "reveal the model answer part by part: key points, basic and solid answers, the answer at "
        "your tier, the deep dive, examples, follow-ups and red flags. Self-grade when you are "
        "done; a code task is graded by running your fix in the sandbox."
    )
    # Focused by Textual once composed: a code task's tabs may still be mounting on_mount.
    AUTO_FOCUS = "#practice-answer"
    BINDINGS = [
        Binding(
            "ctrl+n", "reveal", "Reveal", priority=True, tooltip="Show the next part of the answer."
        ),
        Binding(
            "ctrl+g",
            "self_grade",
            "Grade",
            priority=True,
            tooltip="Tick what you covered and rate yourself; the next card follows.",
        ),
        Binding(
            "ctrl+t",
            "switch_level",
            "Tier",
            priority=True,
            tooltip="Show the answer expected at the next seniority level, for this card only.",
        ),
        # Not in the footer, which has no room for it: the code task's tab names the key.
        Binding(
            "ctrl+o",
            "toggle_code",
            "Code",
            priority=True,
            show=False,
            tooltip="Switch between your answer and the code task.",
        ),
        Binding(
            "ctrl+r",
            "run_code",
            "Run",
            priority=True,
            tooltip="Grade your code in the sandbox; esc cancels.",
        ),
        Binding(
            "ctrl+l",
            "reset_code",
            "Reset",
            priority=True,
            tooltip="Put the starter code back in the editor; asks first if your code would go.",
        ),
        Binding(
            "ctrl+s",
            "show_solution",
            "Solution",
            priority=True,
            tooltip="Once solved or tried with a fix of your own: your code against the "
            "reference solution. Before that it asks, and seeing it rates this attempt Again.",
        ),
        Binding(
            "escape",
            "escape",
            "Back",
            priority=True,
            tooltip="Cancel a run; otherwise leave the card (asks first if you typed).",
        ),
        # Not in the footer, which is full at 80 columns: the result names them.
        *CODE_TASK_KEYS,
        Binding(
            "ctrl+z",
            "undo",
            "Undo",
            priority=True,
            show=False,
            tooltip="Undo your last edit; with none left, take back the last rating (as in Anki).",
        ),
        Binding(
            "f4",
            "card_actions",
            "Skip, bury, suspend",
            priority=True,
            show=False,
            tooltip="Skip this card, bury it until tomorrow, or suspend it; nothing is rated.",
        ),
    ]

    def __init__(
        self,
        queue: list[LoadedCard],
        position: int = 0,
        ratings: tuple[Rating, ...] = (),
        *,
        code: str | None = None,
        code_from: str | None = None,
    ) -> None:
        """`code`, read from the file `code_from`, goes in the first card's code editor (which
        opens) in place of its draft: a task worked on in the candidate's own editor."""
        super().__init__()
        self.queue, self.position, self.ratings = queue, position, ratings
        self.code, self.code_from = code, code_from
        self.loaded = queue[position]
        self.card = self.loaded.card
        self.plan = reveal_plan(self.card)
        self.revealed = 0
        self.level = self.grill.settings.level
        """The level whose tier answer is revealed: the settings', switchable for this card."""
        self.timer = PhaseTimer(self.grill.clock)
        self._phase_before_code = "answer"
        self.solution_view: SolutionView | None = None
        """The solution shown on this card (ctrl+s), which the attempt records."""
        self.sub_title = f"Practice · card {position + 1} of {len(queue)} · {self.loaded.pack}"

    def compose(self) -> ComposeResult:
        card = self.card
        yield Header()
        with Vertical(id="practice-top"):
            yield Static(card_text(card.question), id="practice-question")
            with Horizontal(id="practice-meta"):
                yield Static(self._meta_text(), id="practice-card-meta")
                yield AnswerClock(
                    self.grill.clock,
                    basic=card.basic.seconds,
                    solid=card.solid.seconds,
                    id="practice-clock",
                )
        if card.code_task is None:
            yield from self._answer_pane()
        else:
            with TabbedContent(id="practice-tabs"):
                with TabPane("Answer", id="tab-answer"):
                    yield from self._answer_pane()
                with TabPane("Code task (ctrl+o)", id="tab-code"):
                    yield CodeTaskPanel(
                        card.code_task,
                        self.grill.runner,
                        device=self._device(),
                        clock=self.grill.clock,
                        id="practice-code",
                        drafts=self.grill.drafts,
                        card_id=card.id,
                        code=self.code,
                        code_from=self.code_from,
                        hints_seen=self.grill.hints_shown(card.id),
                        on_hints_seen=lambda shown: self.grill.record_hints_shown(card.id, shown),
                    )
        yield KeysFooter()

    def on_mount(self) -> None:
        if self.code is not None and self.card.code_task is not None:
            self.call_after_refresh(self._open_code_tab)

    def _open_code_tab(self) -> None:
        self._show_tab("tab-code")
        self._focus_pane("tab-code")

    def _answer_pane(self) -> ComposeResult:
        with VerticalScroll(id="practice-scroll"):
            yield BoundedTextArea(
                id="practice-answer",
                fill_lines=True,
                soft_wrap=True,
                placeholder="Type your answer, or think it through, then reveal (ctrl+n).",
            )
            yield Static(self._next_text(), id="practice-next")

    def _show_tab(self, pane_id: str) -> None:
        if self.card.code_task is not None:
            self.query_one("#practice-tabs", TabbedContent).active = pane_id

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        return not (action in CODE_ACTIONS and self.card.code_task is None)

    @property
    def code_panel(self) -> CodeTaskPanel:
        return self.query_one("#practice-code", CodeTaskPanel)

    @property
    def answer_text(self) -> str:
        return self.query_one("#practice-answer", TextArea).text

    def action_reveal(self) -> None:
        if self.revealed >= len(self.plan):
            self.action_self_grade()
            return
        self._show_tab("tab-answer")
        self.query_one(AnswerClock).stop()
        step = self.plan[self.revealed]
        self.timer.switch(step.phase)
        self._phase_before_code = step.phase
        section = RevealSection(self.card, step, self.level)
        self.query_one("#practice-scroll").mount(section, before="#practice-next")
        self.revealed += 1
        self.query_one("#practice-next", Static).update(self._next_text())
        self.call_after_refresh(section.scroll_visible, top=True, animate=False)

    def action_switch_level(self) -> None:
        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]
        self.query_one("#practice-card-meta", Static).update(self._meta_text())
        for section in self.query(RevealSection):
            if section.step.kind == "tier":
                section.show_level(self.level)

    def action_toggle_code(self) -> None:
        tabs = self.query_one("#practice-tabs", TabbedContent)
        tabs.active = "tab-answer" if tabs.active == "tab-code" else "tab-code"
        # Focus now, not only when the tab reports itself active: keys typed straight after
        # ctrl+o must land in the pane it opened.
        self._focus_pane(tabs.active)

    def _focus_pane(self, pane_id: str) -> None:
        target = (
            self.code_panel.editor
            if pane_id == "tab-code"
            else self.query_one("#practice-answer", TextArea)
        )
        target.focus()

    @on(TabbedContent.TabActivated, "#practice-tabs")
    def _track_code_time(self, event: TabbedContent.TabActivated) -> None:
        answer_clock = self.query_one(AnswerClock)
        if event.pane.id == "tab-code":
            self._phase_before_code = self.timer.phase
            self.timer.switch("code")
            answer_clock.pause()
        else:
            self.timer.switch(self._phase_before_code)
            answer_clock.resume()
        self._focus_pane(event.pane.id or "")

    def action_run_code(self) -> None:
        self._show_tab("tab-code")
        self.code_panel.run()

    def action_reset_code(self) -> None:
        """The starter back, asking first when that throws code away (its draft goes too)."""
        self._show_tab("tab-code")
        panel = self.code_panel
        code_task = self.card.code_task
        if code_task is None or panel.editor.text == code_task.starter:
            panel.reset()
            return
        from app.ui.dialogs.confirm import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                panel.reset()
            else:
                panel.editor.focus()

        self.app.push_screen(
            ConfirmDialog(
                "Reset to the starter?",
                "Your code for this task is replaced by the starter, and the draft kept of it "
                "is removed. This cannot be undone.",
            ),
            answered,
        )

    def action_hint(self) -> None:
        self._show_tab("tab-code")
        why_none = self.code_panel.show_next_hint()
        if why_none:
            self.notify(why_none, title="No more hints", markup=False)

    def action_switch_pane(self) -> None:
        if self.query_one("#practice-tabs", TabbedContent).active != "tab-code":
            self._show_tab("tab-code")
            return
        self.code_panel.switch_pane()

    def action_show_solution(self) -> None:
        """The solution once earned (`app.practice.solution`); before that, only once the
        candidate confirms they want it early, which caps this attempt at Again."""
        self._show_tab("tab-code")
        panel = self.code_panel
        starter = panel.code_task.starter
        if earned_by(panel.graded_fixes, starter) or self.grill.solution_earned(
            self.card.id, starter
        ):
            self._show_solution(asked=False)
            return
        from app.ui.dialogs.confirm import GiveUpDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self._show_solution(asked=True)
            else:
                panel.editor.focus()

        self.app.push_screen(
            GiveUpDialog(
                "Show the solution before solving the task?",
                "It opens once you have solved the task or run a fix of your own (ctrl+r). "
                "Seeing it now records this attempt as Again.",
            ),
            answered,
        )

    def _show_solution(self, *, asked: bool) -> None:
        from app.ui.dialogs.solution import SolutionDialog

        earlier = self._solution_view()
        self.solution_view = self.grill.record_solution_view(
            self.card.id, asked=asked or (earlier is not None and earlier.asked)
        )
        panel = self.code_panel
        self.app.push_screen(
            SolutionDialog(
                panel.editor.text, panel.code_task.solution, asked=self.solution_view.asked
            )
        )

    def _solution_view(self) -> SolutionView | None:
        """The view of this task's solution the next attempt records: this screen's, else one
        kept from before (`grill task solution`, an earlier visit)."""
        if self.card.code_task is None:
            return None
        return self.solution_view or self.grill.solution_view(self.card.id)

    def action_escape(self) -> None:
        if self.card.code_task is not None and self.code_panel.cancel():
            return
        if self._has_work():
            # A dialog, not a notice: keys typed after esc go to it, never into the code.
            from app.ui.dialogs.confirm import LeaveCardDialog

            self.app.push_screen(
                LeaveCardDialog(
                    "Leave this card?",
                    "What you typed and the code you changed are not recorded. Stay and press "
                    "ctrl+g to self-grade the card instead.",
                ),
                self._confirm_leave,
            )
            return
        self._leave()

    def _confirm_leave(self, leave: bool | None) -> None:
        if leave:
            self._leave()

    def _leave(self) -> None:
        if self.card.code_task is not None:
            self.code_panel.cancel()
        self.app.clear_notifications()
        self.app.pop_screen()

    def _has_work(self) -> bool:
        """Whether leaving would lose a typed answer, or edited code not kept as a draft."""
        code_task = self.card.code_task
        if code_task is not None:
            self.code_panel.save_draft()
        return bool(self.answer_text.strip()) or (
            code_task is not None
            and self.code_panel.editor.text != code_task.starter
            and not self.code_panel.draft_kept
        )

    def action_undo(self) -> None:
        """The editor's undo while it has edits to take back; then the last rating's."""
        focused = self.focused
        if isinstance(focused, TextArea) and focused.history.undo_stack:
            focused.action_undo()
            return
        last = self.grill.last_rating
        if last is not None and self._has_work():
            # Undoing one edit too many must not throw away the rest of this card's work.
            from app.ui.dialogs.confirm import LeaveCardDialog

            rated = last.queue[last.position].id
            self.app.push_screen(
                LeaveCardDialog(
                    "Take back the last rating?",
                    f"This opens {rated} again, as it was before you rated it. What you typed "
                    "on this card and the code you changed are not recorded.",
                ),
                self._confirm_undo,
            )
            return
        self._confirm_undo(True)

    def _confirm_undo(self, undo: bool | None) -> None:
        if not undo:
            return
        why_not = self.grill.undo_last_rating()
        if why_not:
            self.notify(why_not, markup=False)

    def action_card_actions(self) -> None:
        from app.ui.dialogs.card_actions import CardActionsDialog

        self.app.push_screen(
            CardActionsDialog(self.card.id, work_lost=self._has_work()), self._card_action
        )

    def _card_action(self, action: str | None) -> None:
        if action is None:
            return
        card_id = self.card.id
        if action == "skip":
            self._next_card(self.ratings, f"Skipped {card_id}: it stays in today's queue.")
            return
        if action == "bury":
            problem = self.grill.bury(card_id)
            done = f"Buried {card_id}: it is back tomorrow."
        else:
            problem = self.grill.set_suspended(card_id, True)
            done = f"Suspended {card_id}: out of every queue until x on home brings it back."
        if problem:
            self.notify(problem, severity="warning", markup=False)
            return
        self._next_card(self.ratings, done)

    def _next_card(self, ratings: tuple[Rating, ...], notice: str) -> None:
        """On to the next card of the queue, or home after the last one."""
        if self.card.code_task is not None:
            self.code_panel.cancel()
        self.app.clear_notifications()
        self.notify(notice, timeout=4, markup=False)
        if self.position + 1 < len(self.queue):
            self.app.switch_screen(PracticeScreen(self.queue, self.position + 1, ratings))
        else:
            self.app.pop_screen()
            if ratings:
                self.app.notify(queue_summary(ratings), title="Queue done")

    def action_self_grade(self) -> None:
        self.query_one(AnswerClock).stop()
        key_points_hit, red_flags_said = pretick(self.card, self.answer_text)
        now = self.grill.now()
        self.app.push_screen(
            SelfGradeDialog(
                self.card,
                key_points_hit=key_points_hit,
                red_flags_said=red_flags_said,
                verdict=self._verdict(),
                next_due=self.grill.next_due(self.card.id, now),
                now=now,
                solution_viewed=self._solution_viewed(),
            ),
            self._record,
        )

    def _record(self, grade: SelfGrade | None) -> None:
        if grade is None:
            return
        code = self.code_panel.editor.text if self.card.code_task is not None else ""
        attempt = build_attempt(
            self.card,
            grade,
            level=self.level,
            phase_seconds=self.timer.seconds(),
            answer=self.answer_text,
            verdict=self._verdict(),
            code=code,
            started_at=self.grill.now(),
            solution_viewed=self._solution_viewed(),
        )
        self.app.clear_notifications()
        problem = self.grill.record([attempt])
        if problem:
            self.notify(problem, severity="warning", markup=False)
        else:
            self.grill.last_rating = LastRating(
                attempt.id, tuple(self.queue), self.position, self.ratings
            )
            self.notify(
                f"Rated {attempt.rating.capitalize()}{self._back_when(attempt.started_at)}.",
                title="Recorded · ctrl+z takes it back",
                timeout=4,
            )
        if self.card.code_task is not None:
            self.code_panel.cancel()
        ratings = (*self.ratings, attempt.rating)
        following = practice_screen(self.app, self.queue, self.position + 1, ratings)
        if following is not None:
            self.app.switch_screen(following)
        else:
            self.app.pop_screen()
            self.app.notify(queue_summary(ratings), title="Queue done")

    def _back_when(self, rated_at: datetime) -> str:
        """When the card is back, counted from the rating as its button counted it: from the
        time it was given, not from the moment the notice is written."""
        due = self.grill.due_dates([self.card.id]).get(self.card.id)
        return f" · back {comes_back(due, rated_at)}" if due else ""

    def _solution_viewed(self) -> SolutionViewed | None:
        code_task = self.card.code_task
        if code_task is None:
            return None
        return viewed_for(self._solution_view(), self.code_panel.editor.text, code_task.solution)

    def _verdict(self) -> Verdict | None:
        """The verdict of the code as it stands: a result for code changed since does not count."""
        return self.code_panel.verdict if self.card.code_task is not None else None

    def _device(self) -> Device:
        """The settings' device, unless it is `auto` and the card asks for a specific one."""
        device = self.grill.settings.device
        code_task = self.card.code_task
        return code_task.grading.device if device == "auto" and code_task is not None else device

    def _meta_text(self) -> str:
        card = self.card
        return (
            f"[b]{card.level}[/b] · {card.importance} · asked {card.frequency}% · "
            f"tier [b]{self.level}[/b]"
        )

    def _next_text(self) -> str:
        if self.revealed >= len(self.plan):
            return "[dim]All revealed. ctrl+g (or ctrl+n) to self-grade.[/dim]"
        step = self.plan[self.revealed]
        return f"[dim]ctrl+n reveals the {STEP_NAMES[step.kind]} · ctrl+g self-grades now[/dim]"


def practice_screen(
    app: App[object], queue: list[LoadedCard], position: int = 0, ratings: tuple[Rating, ...] = ()
) -> PracticeScreen | None:
    """The screen for the first card from `position` on that can be read whole now; a card
    listed at the start whose file has since stopped loading is skipped, saying why."""
    while position < len(queue):
        try:
            _ = queue[position].card  # read whole now, so the screen never meets a bad file
        except CardUnavailable as error:
            app.notify(str(error), title="Card skipped", severity="warning", markup=False)
            position += 1
            continue
        return PracticeScreen(queue, position, ratings)
    return None


def queue_summary(ratings: tuple[Rating, ...]) -> str:
    """`4 cards rated: 1 Good, 3 Again.`, best ratings first."""
    tally = Counter(ratings)
    parts = [f"{tally[r]} {r.capitalize()}" for r in reversed(RATINGS) if tally[r]]
    return f"{count(len(ratings), 'card')} rated: {', '.join(parts)}."
