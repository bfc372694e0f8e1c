"""The end of a mock: the report, recorded to the history once, exportable as Markdown."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from app.mock.record import attempts
from app.mock.report import MockReport, percent, render_markdown
from app.paths import data_dir
from app.ui.base import GrillScreen
from app.ui.widgets.footer import KeysFooter
from app.wording import count
from checkers.outputs import write_whole


def default_report_path(started_at: datetime) -> Path:
    return data_dir() / "reports" / f"mock-{started_at:%Y%m%d-%H%M%S}.md"


def write_report(report: MockReport, path: Path) -> str | None:
    """Write the Markdown; return a sentence saying what went wrong, or None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, render_markdown(report))
    except OSError as error:
        return f"Could not write the report to {path}: {error.strerror or error}."
    return None


class MockReportScreen(GrillScreen):
    """The report, and a status line saying what became of it (recorded, written to a file).

    A status line rather than toasts: a toast per recorded answer covered the report's table.
    The Markdown is drawn as one renderable (Rich's), not Textual's Markdown widget, which
    builds a widget per paragraph, list item and table cell: some 2,000 nodes to style for a
    six-question report, seconds of the UI thread on a busy machine, while the keys pressed meanwhile
    waited; and its table gave every column the same width, wrapping the card ids at 100
    columns. Rich sizes the table's columns by their content.
    """

    HELP = (
        "The interview's report: the score, time against budget, each question with the key "
        "points made and missed, the code verdict, and what to study next. Each question "
        "reached is recorded in your history, so the mock feeds your review schedule."
    )
    DROPS_KEYS_TYPED_UNSEEN = True
    BINDINGS = [
        Binding("x", "export", "Export Markdown", tooltip="Write the report as a Markdown file."),
        Binding("escape", "close", "Close", tooltip="Back to home, or end `grill mock`."),
    ]

    def __init__(self, report: MockReport, *, report_path: Path | None = None) -> None:
        super().__init__()
        self.report, self.report_path = report, report_path
        self.recorded = ""
        self.sub_title = f"Mock interview · score {percent(report.score.overall)}"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="report-status", markup=False)
        with VerticalScroll(id="report-scroll"):
            yield Static(Markdown(render_markdown(self.report)), id="report-markdown")
        yield KeysFooter()

    def on_mount(self) -> None:
        views = {run.card.id: self.grill.solution_view(run.card.id) for run in self.report.runs}
        recorded = attempts(
            self.report, {card_id: view for card_id, view in views.items() if view is not None}
        )
        problem = self.grill.record(recorded)
        skipped = self.report.skipped
        skipped_note = f" ({count(skipped, 'question')} skipped, not recorded)" if skipped else ""
        self.recorded = problem or (
            f"{count(len(recorded), 'answer')} recorded in your history{skipped_note}."
        )
        self._show_status()
        if self.report_path is not None:
            self._export(self.report_path)

    def action_export(self) -> None:
        self._export(self.report_path or default_report_path(self.report.started_at))

    def _export(self, path: Path) -> None:
        problem = write_report(self.report, path)
        self._show_status(problem or f"Report written to {path}.")

    def _show_status(self, export: str = "x writes the report as Markdown.") -> None:
        self.query_one("#report-status", Static).update(f"{self.recorded} {export}")

    def action_close(self) -> None:
        """Back to home when the mock was started there; `grill mock` ends with its report."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()
