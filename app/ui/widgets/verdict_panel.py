"""The result of a code run: verdict, memory curve, retained graphs, hint and printed output."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Label, Sparkline, Static

from checkers.verdict import Verdict


def human_bytes(value: float) -> str:
    size = abs(value)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            text = f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
            return f"-{text}" if value < 0 else text
        size /= 1024
    raise AssertionError("unreachable")


def headline(verdict: Verdict) -> str:
    """One line: the verdict, and for graded runs the curve's shape and growth."""
    if not verdict.graded:
        where = f" (line {verdict.error.line})" if verdict.error and verdict.error.line else ""
        return f"{verdict.verdict.upper()}{where} on {verdict.device}"
    growth = f"{'+' if verdict.growth_bytes_per_step >= 0 else ''}{human_bytes(verdict.growth_bytes_per_step)}/step"
    shape = f" · {verdict.pattern}" if verdict.pattern else ""
    return f"{verdict.verdict.upper()}{shape} · {growth} · {verdict.steps} steps on {verdict.device}"


class VerdictPanel(Vertical):
    """Shows one Verdict; sections without content stay hidden."""

    DEFAULT_CSS = """
    VerdictPanel { height: auto; padding: 0 1; }
    VerdictPanel > #verdict-headline { text-style: bold; }
    VerdictPanel.-clean > #verdict-headline { color: $success; }
    VerdictPanel.-leak > #verdict-headline { color: $error; }
    VerdictPanel.-not-graded > #verdict-headline { color: $warning; }
    VerdictPanel > .verdict-title { margin: 1 0 0 0; text-style: bold; color: $accent; }
    VerdictPanel > Sparkline { height: 3; margin: 0 0 0 0; }
    VerdictPanel > DataTable { height: auto; max-height: 8; }
    VerdictPanel > #verdict-output { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Label("", id="verdict-headline", markup=False)
        yield Static("", id="verdict-message", markup=False)
        yield Label("Memory per step", classes="verdict-title", id="verdict-curve-title")
        yield Sparkline([], id="verdict-curve")
        yield Label("Graphs kept alive (enter jumps to the line)", classes="verdict-title",
                    id="verdict-retained-title")
        yield DataTable(id="verdict-retained", cursor_type="row", zebra_stripes=True)
        yield Label("Hint", classes="verdict-title", id="verdict-hint-title")
        yield Static("", id="verdict-hint", markup=False)
        yield Label("Printed output", classes="verdict-title", id="verdict-output-title")
        yield Static("", id="verdict-output", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("Path", "grad_fn", "Nodes", "Saved", "Line")
        self.display = False

    def show(self, verdict: Verdict) -> None:
        self.display = True
        self.set_class(verdict.verdict == "clean", "-clean")
        self.set_class(verdict.verdict == "leak", "-leak")
        self.set_class(not verdict.graded, "-not-graded")
        self.query_one("#verdict-headline", Label).update(headline(verdict))
        self._section("verdict-message", verdict.message)
        self._section("verdict-hint", verdict.hint)
        self._section("verdict-output", verdict.output.rstrip())
        curve = self.query_one("#verdict-curve", Sparkline)
        curve.data = list(verdict.samples)
        curve.display = self.query_one("#verdict-curve-title").display = bool(verdict.samples)
        table = self.query_one("#verdict-retained", DataTable)
        table.clear()
        for index, item in enumerate(verdict.retained):
            table.add_row(Text(item.path), Text(item.grad_fn), str(item.graph_nodes), human_bytes(item.saved_bytes),
                          str(item.line) if item.line else "", key=str(index))
        table.display = self.query_one("#verdict-retained-title").display = bool(verdict.retained)

    def _section(self, widget_id: str, text: str) -> None:
        body = self.query_one(f"#{widget_id}", Static)
        body.update(text)
        body.display = bool(text)
        title = self.query(f"#{widget_id}-title")
        if title:
            title.first().display = bool(text)
