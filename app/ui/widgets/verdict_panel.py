"""The result of a code run: verdict, what the fix was expected to do, memory curve, the graphs
kept alive, the grader's hint and notes, and what the code printed.

Every text a verdict carries is shown whole and wrapped, with its `code` spans rendered (the
grader writes Markdown-lite), because a message cut at the panel's edge is a message not read.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Label, OptionList, Static
from textual.widgets.option_list import Option

from app.ui.card_text import card_text
from app.ui.widgets.bar_chart import BarChart
from checkers.verdict import Retained, Verdict

MEMORY_FULL_SCALE = 64 * 1024
"""The memory chart reaches at least this many bytes, so the noise of a clean loop (a few KB
over a run) stays near the axis instead of filling the chart like a leak."""


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
    return (
        f"{verdict.verdict.upper()}{shape} · {growth} · {verdict.steps} steps on {verdict.device}"
    )


def cost(verdict: Verdict) -> str:
    """What the run took, as a judge of code shows it: its time and its peak memory."""
    timings = verdict.extra.get("timings", {})
    run = timings.get("run") if isinstance(timings, dict) else None
    peak = verdict.extra.get("peak_bytes")
    parts = []
    if isinstance(run, (int, float)):
        parts.append(f"ran {run:.2f} s" if run < 10 else f"ran {run:.1f} s")
    if isinstance(peak, int) and peak > 0 and verdict.graded:
        # Measured around every torch call, where the task has a memory budget.
        parts.append(f"peak memory +{human_bytes(peak)}")
    elif verdict.graded and verdict.samples:
        # Otherwise the highest of the per-step samples the chart draws.
        parts.append(f"peak memory +{human_bytes(max(verdict.samples))}")
    text = " · ".join(parts)
    return text[:1].upper() + text[1:]


def expectations(verdict: Verdict) -> Content:
    """Each expectation of the task's contract, ticked or crossed, with the grader's words."""
    lines = [
        Content.styled("✓ " if item.met else "✗ ", "bold") + card_text(item.message or item.what)
        for item in verdict.expectations
    ]
    return Content("\n").join(lines)


def notes(verdict: Verdict) -> Content:
    return Content("\n").join(Content("• ") + card_text(note) for note in verdict.notes)


class VerdictPanel(Vertical):
    """Shows one Verdict; sections without content stay hidden.

    `mark_stale` says the result belongs to an earlier version of the code (edited or reset
    since), rather than hiding it: what the last run found is still worth reading.
    """

    DEFAULT_CSS = """
    VerdictPanel { height: auto; padding: 0 1; }
    VerdictPanel > #verdict-stale { display: none; color: $warning; text-style: italic; }
    VerdictPanel.-stale > #verdict-stale { display: block; }
    VerdictPanel.-stale > * { text-opacity: 70%; }
    VerdictPanel > #verdict-headline { text-style: bold; }
    VerdictPanel.-clean > #verdict-headline { color: $success; }
    VerdictPanel.-failed > #verdict-headline { color: $error; }
    VerdictPanel.-not-graded > #verdict-headline { color: $warning; }
    VerdictPanel > .verdict-title { width: 1fr; margin: 1 0 0 0; text-style: bold; color: $accent; }
    VerdictPanel.-clean > #verdict-curve { color: $success; }
    VerdictPanel.-failed > #verdict-curve { color: $error; }
    VerdictPanel > #verdict-retained { height: auto; max-height: 10; }
    VerdictPanel > #verdict-output { color: $text-muted; }
    VerdictPanel > #verdict-facts { color: $text-muted; }
    VerdictPanel > #verdict-where { height: auto; max-height: 3; }
    VerdictPanel > #verdict-hint-box { margin: 1 0 0 0; border: none; padding: 0; }
    VerdictPanel > #verdict-hint-box > Contents { padding: 0 0 0 2; }
    """

    HINT_TITLE = "The grader's hint (enter opens it)"

    _cost = _keys = ""

    def compose(self) -> ComposeResult:
        yield Static(
            "This result is for an earlier version of your code: ctrl+r grades this one.",
            id="verdict-stale",
            markup=False,
        )
        yield Static("", id="verdict-headline", markup=False)
        # What the run took, and the keys that work on this result: one line, since at 80x24
        # the result shows five.
        yield Static("", id="verdict-facts", markup=False)
        yield Static("", id="verdict-message")
        yield OptionList(id="verdict-where")
        yield Static("", id="verdict-expectations")
        yield Label(
            "Memory above the first step", classes="verdict-title", id="verdict-curve-title"
        )
        yield BarChart(
            [],
            label=human_bytes,
            first="",
            last="",
            full_scale=MEMORY_FULL_SCALE,
            rows=4,
            id="verdict-curve",
        )
        yield Label(
            "Graphs kept alive (enter jumps to the line)",
            classes="verdict-title",
            id="verdict-retained-title",
        )
        yield OptionList(id="verdict-retained")
        with Collapsible(title=self.HINT_TITLE, id="verdict-hint-box"):
            yield Static("", id="verdict-hint")
        yield Label("Notes", classes="verdict-title", id="verdict-notes-title")
        yield Static("", id="verdict-notes")
        yield Label("Printed output", classes="verdict-title", id="verdict-output-title")
        yield Static("", id="verdict-output", markup=False)

    def on_mount(self) -> None:
        self.display = False

    def show(self, verdict: Verdict) -> None:
        self.display = True
        self.remove_class("-stale")
        self.set_class(verdict.verdict == "clean", "-clean")
        self.set_class(verdict.graded and verdict.verdict != "clean", "-failed")
        self.set_class(not verdict.graded, "-not-graded")
        self.query_one("#verdict-headline", Static).update(headline(verdict))
        self._cost = cost(verdict)
        self._show_facts()
        self._section("verdict-message", card_text(verdict.message))
        where = self.query_one("#verdict-where", OptionList)
        where.clear_options()
        line = verdict.error.line if verdict.error is not None else None
        if line:
            where.add_option(Option(f"→ line {line} (enter puts the cursor there)", id=str(line)))
            where.highlighted = 0
        where.display = bool(line)
        self._section("verdict-expectations", expectations(verdict))
        hint = card_text(verdict.hint)
        self.query_one("#verdict-hint", Static).update(hint)
        box = self.query_one("#verdict-hint-box", Collapsible)
        box.collapsed = True
        box.display = bool(hint)
        self._section("verdict-notes", notes(verdict))
        self._section("verdict-output", Content(verdict.output.rstrip()))
        curve = self.query_one("#verdict-curve", BarChart)
        curve.show(verdict.samples, first="step 1", last=f"step {len(verdict.samples)}")
        curve.display = self.query_one("#verdict-curve-title").display = bool(verdict.samples)
        retained = self.query_one("#verdict-retained", OptionList)
        retained.clear_options()
        retained.add_options(
            [
                Option(_retained_entry(item), id=str(index))
                for index, item in enumerate(verdict.retained)
            ]
        )
        retained.display = self.query_one("#verdict-retained-title").display = bool(
            verdict.retained
        )

    def mark_stale(self, stale: bool) -> None:
        self.set_class(stale, "-stale")

    def say_keys(self, text: str) -> None:
        """The keys that work on this result (a hint, moving here from the code)."""
        self._keys = text
        self._show_facts()

    def _show_facts(self) -> None:
        self._section(
            "verdict-facts", Content(" · ".join(p for p in (self._cost, self._keys) if p))
        )

    @property
    def has_hint(self) -> bool:
        return bool(self.query_one("#verdict-hint-box").display)

    @property
    def hint_shown(self) -> bool:
        return self.has_hint and not self.query_one("#verdict-hint-box", Collapsible).collapsed

    def show_hint(self) -> None:
        """Open the grader's hint."""
        self.query_one("#verdict-hint-box", Collapsible).collapsed = False

    def _section(self, widget_id: str, content: Content) -> None:
        body = self.query_one(f"#{widget_id}", Static)
        body.update(content)
        body.display = bool(content)
        title = self.query(f"#{widget_id}-title")
        if title:
            title.first().display = bool(content)


def _retained_entry(item: Retained) -> Content:
    """`path (line n)` on one line, what it holds on the next: wraps at any width, unlike a table."""
    where = f" (line {item.line})" if item.line else ""
    return Content.assemble(
        (item.path, "bold"),
        where,
        "\n",
        (
            f"{item.grad_fn} · {item.graph_nodes} nodes · {human_bytes(item.saved_bytes)} saved",
            "dim",
        ),
    )
