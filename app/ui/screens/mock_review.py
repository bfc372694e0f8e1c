"""After a candidate-mode mock: confirm or correct the pre-marked key points and red flags.

Each reached question shows the typed answer beside two tick lists, pre-ticked by
`app.mock.match`; the score is final only once the candidate confirms.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Header, Label, SelectionList, Static

from app.mock.match import Marks, pre_mark
from app.mock.report import build_report, percent
from app.mock.score import Judgement, score_session
from app.mock.session import MockSession, QuestionRun
from app.ui.base import GrillScreen
from app.ui.card_text import card_text
from app.ui.widgets.footer import KeysFooter
from app.ui.widgets.tick_list import TickList


class MockReviewScreen(GrillScreen):
    SUB_TITLE = "Mock interview · confirm your marks"
    DROPS_KEYS_TYPED_UNSEEN = True
    HELP = (
        "The interview is over. grill matched your typed answers against each question's key "
        "points and red flags; check every tick (space toggles, tab moves between lists), "
        "because the matcher misses synonyms. The score updates as you go."
    )
    BINDINGS = [
        Binding(
            "ctrl+s",
            "confirm",
            "Confirm and score",
            priority=True,
            tooltip="Make these marks final and show the report.",
        )
    ]

    def __init__(self, session: MockSession, *, report_path: Path | None = None) -> None:
        super().__init__()
        self.session, self.report_path = session, report_path
        self.runs = session.runs()
        self.marks: list[Marks] = [pre_mark(run.card, run.spoken_text) for run in self.runs]
        self.confirmed = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            "Check what was matched in your answers: space ticks or unticks, ctrl+s confirms.",
            id="review-help",
        )
        yield Static("", id="review-total")
        with VerticalScroll(id="review-questions"):
            for n, (run, marks) in enumerate(zip(self.runs, self.marks, strict=True)):
                if run.reached:
                    yield self._question(n, run, marks)
        yield KeysFooter()

    def _question(self, n: int, run: QuestionRun, marks: Marks) -> Vertical:
        said = run.spoken_text.strip() or "(nothing typed)"
        points = [
            (self._label(m.text, m.matched_by), i, m.hit) for i, m in enumerate(marks.key_points)
        ]
        flags = [
            (self._label(m.text, m.matched_by), i, m.hit) for i, m in enumerate(marks.red_flags)
        ]
        return Vertical(
            Static(card_text(f"{n + 1}. {run.card.question}").stylize("bold")),
            Static(said, classes="review-answer", markup=False),
            Label("Key points you made", classes="review-heading"),
            TickList(*points, id=f"review-points-{n}"),
            Label("Red flags you said", classes="review-heading"),
            TickList(*flags, id=f"review-flags-{n}"),
            classes="review-question",
        )

    @staticmethod
    def _label(text: str, matched_by: str | None) -> Content:
        label = card_text(text)
        if matched_by:
            label += Content.styled(f"  (matched “{matched_by}”)", "dim")
        return label

    def on_mount(self) -> None:
        self._show_total()
        lists = self.query(SelectionList)
        if lists:
            lists.first().focus()

    def judgements(self) -> list[Judgement]:
        """The marks as they stand on screen; questions not reached have none."""
        result = []
        for n, run in enumerate(self.runs):
            if not run.reached:
                result.append(Judgement())
                continue
            points = self.query_one(f"#review-points-{n}", SelectionList).selected
            flags = self.query_one(f"#review-flags-{n}", SelectionList).selected
            result.append(Judgement(frozenset(points), frozenset(flags)))
        return result

    @on(SelectionList.SelectedChanged)
    def _show_total(self) -> None:
        score = score_session(self.runs, self.judgements())
        self.query_one("#review-total", Static).update(
            f"Score if confirmed: {percent(score.overall)}"
        )

    def action_confirm(self) -> None:
        """The marks are final: the tick lists stop taking keys at once, so keys typed ahead
        while the report opens never untick a key point behind it (nor a second ctrl+s score
        it twice)."""
        from app.ui.screens.mock_report import MockReportScreen

        if self.confirmed:
            return
        self.confirmed = True
        report = build_report(self.session, self.judgements())
        for tick_list in self.query(SelectionList):
            tick_list.can_focus = False  # not `disabled`: restyling every option costs seconds
        self.set_focus(None)
        self.app.switch_screen(MockReportScreen(report, report_path=self.report_path))
