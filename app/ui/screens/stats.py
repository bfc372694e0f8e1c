"""The stats screen: every figure of a `Stats` value, with the activity strip as a sparkline.

It only renders; the caller computes the value (`app.progress.stats.compute_stats`, a few
tens of milliseconds even for a long history) and pushes `StatsScreen(stats)`.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, Sparkline, Static

from app.progress.report import percent, seconds
from app.progress.stats import Missed, Stats


class StatsScreen(Screen):
    DEFAULT_CSS = """
    StatsScreen #stats-scroll { padding: 0 1; }
    StatsScreen .stats-heading { text-style: bold; margin-top: 1; }
    StatsScreen DataTable { height: auto; max-height: 14; }
    StatsScreen #stats-activity { height: 3; margin-top: 1; }
    """

    SUB_TITLE = "Statistics"
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, stats: Stats) -> None:
        super().__init__()
        self.stats = stats

    def compose(self) -> ComposeResult:
        stats = self.stats
        yield Header()
        with VerticalScroll(id="stats-scroll"):
            yield Static(self.summary(), id="stats-summary")
            yield Label("Packs", classes="stats-heading")
            yield self.table("stats-packs", ["pack", "cards", "seen", "due today", "reviews", "retention"],
                             [[p.pack, p.cards, p.seen, p.due, p.reviews, percent(p.retention)] for p in stats.packs])
            yield Label("Retention by tier", classes="stats-heading")
            yield self.table("stats-tiers", ["tier", "reviews", "retention"],
                             [[t.tier, t.reviews, percent(t.retention)] for t in stats.tiers])
            yield Label("Time per answer", classes="stats-heading")
            yield Static(self.answer_time(), id="stats-time")
            yield Label("Key points most often missed", classes="stats-heading")
            yield self.table("stats-missed", ["card", "key point", "times"], self.misses(stats.missed_key_points))
            yield Label("Red flags most often said", classes="stats-heading")
            yield self.table("stats-flags", ["card", "red flag", "times"], self.misses(stats.red_flags_said))
            yield Label(self.activity_heading(), classes="stats-heading", id="stats-activity-heading")
            yield Sparkline([day.attempts for day in stats.activity], id="stats-activity")
        yield Footer()

    def summary(self) -> str:
        s = self.stats
        return (f"{s.attempts} attempts on {s.cards_seen} cards · {s.due_today} due today · "
                f"streak: {s.streak_days} day{'s' if s.streak_days != 1 else ''}")

    def answer_time(self) -> str:
        t = self.stats.answer_time
        if not t.answers:
            return "No timed answers yet."
        return (f"{t.answers} timed answers, {seconds(t.mean_seconds)} on average · "
                f"{percent(t.within_basic_share)} within the basic budget ({seconds(t.mean_basic_budget)}), "
                f"{percent(t.within_solid_share)} within the solid one ({seconds(t.mean_solid_budget)})")

    def activity_heading(self) -> str:
        days = self.stats.activity
        if not days:
            return "Activity"
        return f"Activity, {days[0].day} to {days[-1].day}: {sum(d.attempts for d in days)} attempts"

    @staticmethod
    def misses(missed: tuple[Missed, ...]) -> list[list]:
        return [[m.card_id, m.text, m.times] for m in missed]

    @staticmethod
    def table(table_id: str, columns: list[str], rows: list[list]) -> DataTable:
        table = DataTable(id=table_id, zebra_stripes=True, cursor_type="row", show_cursor=False)
        table.add_columns(*columns)
        # Text, not str: DataTable parses str cells as markup, and key points are card text.
        table.add_rows([[Text(str(cell)) for cell in row] for row in rows])
        return table

    def action_close(self) -> None:
        self.dismiss()
