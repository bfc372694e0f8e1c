"""The end of a mock: the report, recorded to the history once, exportable as Markdown."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Markdown

from app.mock.record import attempts
from app.mock.report import MockReport, percent, render_markdown
from app.paths import data_dir


def default_report_path(started_at: datetime) -> Path:
    return data_dir() / "reports" / f"mock-{started_at:%Y%m%d-%H%M%S}.md"


def write_report(report: MockReport, path: Path) -> str | None:
    """Write the Markdown; return a sentence saying what went wrong, or None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_markdown(report), encoding="utf-8")
    except OSError as error:
        return f"Could not write the report to {path}: {error.strerror or error}."
    return None


class MockReportScreen(Screen):
    DEFAULT_CSS = """
    MockReportScreen #report-scroll { height: 1fr; padding: 0 1; }
    """

    BINDINGS = [
        Binding("x", "export", "Export Markdown"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, report: MockReport, *, report_path: Path | None = None) -> None:
        super().__init__()
        self.report, self.report_path = report, report_path
        self.exported_to: Path | None = None
        self.sub_title = f"Mock interview · score {percent(report.score.overall)}"

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="report-scroll"):
            yield Markdown(render_markdown(self.report), id="report-markdown")
        yield Footer()

    def on_mount(self) -> None:
        for attempt in attempts(self.report):
            self.app.record_attempt(attempt)
        if self.report_path is not None:
            self._export(self.report_path)

    def action_export(self) -> None:
        self._export(self.report_path or default_report_path(self.report.started_at))

    def _export(self, path: Path) -> None:
        problem = write_report(self.report, path)
        if problem:
            self.notify(problem, severity="error", title="Export failed", markup=False)
        else:
            self.exported_to = path
            self.notify(f"Report written to {path}", title="Exported", markup=False)

    def action_close(self) -> None:
        """Back to home when the mock was started there; `grill mock` ends with its report."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()
