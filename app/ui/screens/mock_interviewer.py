"""Interviewer mode: one person reads the question aloud and ticks what the other one says.

The interviewer sees the question, the answer expected at the interview's level, the key
points and red flags as tick lists, the follow-ups with their answers, and the clock. The
ticks are the confirmed marks, so the session goes straight to the report.
"""

from __future__ import annotations

from pathlib import Path

from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Label, SelectionList, Static

from app.mock.report import build_report
from app.mock.score import Judgement
from app.mock.session import MockSession, Step
from app.ui.card_text import card_text
from app.ui.code_diff import code_diff
from app.ui.screens.mock import MockStepsScreen
from app.ui.widgets.tick_list import TickList


class MockInterviewerScreen(MockStepsScreen):
    HELP = (
        "Interviewer mode, for two people at one screen. Read the question aloud, tick the key "
        "points and red flags you hear (space ticks, tab moves between lists), ask the "
        "follow-ups, and press ctrl+n to move on. On the code task the candidate edits and runs "
        "the code; above it you see what to watch for. Your ticks are the final marks."
    )

    def __init__(self, session: MockSession, *, report_path: Path | None = None) -> None:
        super().__init__(session, report_path=report_path)
        self.judgements = [Judgement() for _ in self.session.cards]
        self._question: int | None = None

    async def show_step(self, step: Step | None) -> None:
        if step is None:
            await super().show_step(step)
            return
        new_question = step.question != self._question
        if new_question:
            self._keep_ticks()
            self._question = step.question
            await self.query("#interviewer-split").remove()
            await self.query_one("#mock-body").mount(self._layout(step))
        await super().show_step(step)
        # The code task needs the room; the script and the ticks come back for the follow-ups.
        self.query_one("#interviewer-split").display = step.kind != "code"
        await self.query("#interviewer-watch").remove()
        if step.kind == "code":
            await self.query_one("#mock-body").mount(self._watch_for(step), before="#mock-code")
        if not new_question:
            self.query_one("#interviewer-ask", Static).update(self._ask(step))
            self.query_one("#interviewer-follow-ups", Static).update(self._follow_ups(step))
        if step.kind != "code":
            self.query_one("#interviewer-points", SelectionList).focus()

    def _layout(self, step: Step) -> Horizontal:
        card = self.session.cards[step.question].card
        level = self.session.level
        return Horizontal(
            VerticalScroll(
                Label("Read aloud", classes="interviewer-heading"),
                Static(card_text(card.question).stylize("bold"), id="interviewer-question"),
                Static(self._ask(step), id="interviewer-ask", classes="interviewer-ask"),
                Label(f"Expected at {level} level", classes="interviewer-heading"),
                Static(card_text(getattr(card.tiers, level)), id="interviewer-expected"),
                Label("Follow-ups", classes="interviewer-heading"),
                Static(self._follow_ups(step), id="interviewer-follow-ups"),
                id="interviewer-script",
            ),
            VerticalScroll(
                Label("Key points heard (space ticks)", classes="interviewer-heading"),
                TickList(
                    *[(card_text(kp.point), i) for i, kp in enumerate(card.key_points)],
                    id="interviewer-points",
                ),
                Label("Red flags said", classes="interviewer-heading"),
                TickList(
                    *[(card_text(rf.flag), i) for i, rf in enumerate(card.red_flags)],
                    id="interviewer-flags",
                ),
                id="interviewer-ticks",
            ),
            id="interviewer-split",
        )

    def _watch_for(self, step: Step) -> VerticalScroll:
        """What the interviewer should look for while the candidate works: the card's hints, in
        order, and the fix itself, as the change from the starter to the solution."""
        task = self.session.cards[step.question].card.code_task
        assert task is not None, "a code step comes only from a card with a code task"
        fix = code_diff(
            task.starter, task.solution, names=("starter", "solution"), same="(no change)"
        )
        return VerticalScroll(
            Label("Watch for (the candidate does not see this)", classes="interviewer-heading"),
            Static(Content("\n").join(Content("• ") + card_text(hint) for hint in task.hints)),
            Label("The fix: starter → solution", classes="interviewer-heading"),
            Static(fix),
            id="interviewer-watch",
        )

    @staticmethod
    def _ask(step: Step) -> Content:
        """What the interviewer does in this step."""
        return {
            "answer": Content("Ask the question above; tick key points as you hear them."),
            "code": Content("Code task: the candidate edits and runs the code below (ctrl+r)."),
            "follow_up": Content("Ask: ") + card_text(step.prompt),
        }[step.kind]

    def _follow_ups(self, step: Step) -> Content:
        """The follow-ups this question will ask, the current one in bold, each with its answer."""
        card = self.session.cards[step.question].card
        asked = [
            s.follow_up
            for s in self.session.steps
            if s.question == step.question and s.follow_up is not None
        ]
        lines = []
        for n in asked:
            follow_up = card.follow_ups[n]
            question = card_text(f"{n + 1}. {follow_up.question}")
            lines += [
                question.stylize("bold") if step.follow_up == n else question,
                card_text(f"   {follow_up.answer}").stylize("dim"),
            ]
        return Content("\n").join(lines) if lines else Content("(none for this question)")

    def _keep_ticks(self) -> None:
        if self._question is None:
            return
        points = self.query_one("#interviewer-points", SelectionList).selected
        flags = self.query_one("#interviewer-flags", SelectionList).selected
        self.judgements[self._question] = Judgement(frozenset(points), frozenset(flags))

    def finish(self) -> None:
        from app.ui.screens.mock_report import MockReportScreen

        self._keep_ticks()
        report = build_report(self.session, self.judgements)
        self.app.switch_screen(MockReportScreen(report, report_path=self.report_path))
