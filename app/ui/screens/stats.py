"""The stats screen: mastery per pack and tag, answers per day, the due forecast, and the figures.

It only renders; the caller computes the values (`app.progress.stats.compute_stats` and
`app.progress.outlook.compute_outlook`, tens of milliseconds even for a long history) and
pushes `StatsScreen(stats, outlook)`. Key points and red flags are sentences, so they are
listed and wrapped rather than cut in a table column.
"""

from __future__ import annotations

from datetime import date

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Header, Label, Static

from app.clock import local_day
from app.progress.outlook import Outlook
from app.progress.report import percent, seconds
from app.progress.stats import Missed, Stats
from app.ui.base import GrillScreen
from app.ui.card_text import card_text
from app.ui.widgets.bar_chart import BarChart
from app.ui.widgets.footer import KeysFooter
from app.wording import count

BAR_WIDTH = 10


def share_bar(share: float) -> Text:
    """`███░░░░░░░ 30%`: a share as a bar that reads at a glance."""
    filled = round(share * BAR_WIDTH)
    return Text.assemble(
        ("█" * filled, "green"), ("░" * (BAR_WIDTH - filled), "dim"), f" {percent(share)}"
    )


def day_label(day: date, today: date) -> str:
    return "today" if day == today else f"{day:%b} {day.day}"


class StatsScreen(GrillScreen):
    SUB_TITLE = "Statistics"
    HELP = (
        "How your practice is going: how many cards you answered each day, how many come due "
        "in the next two weeks, how much of each pack and tag you know (cards whose last rating "
        "was Good or Easy), and how often you recall a card you have seen."
    )
    BINDINGS = [Binding("escape", "close", "Close", tooltip="Back to home.")]

    def __init__(self, stats: Stats, outlook: Outlook) -> None:
        super().__init__()
        self.stats, self.outlook = stats, outlook

    def compose(self) -> ComposeResult:
        stats, outlook = self.stats, self.outlook
        today = local_day(stats.generated_at)
        yield Header()
        with VerticalScroll(id="stats-scroll"):
            yield Static(self.summary(), id="stats-summary")
            activity = stats.activity
            yield Label(
                f"Cards answered per day, last {len(activity)} days: "
                f"{sum(d.attempts for d in activity)} in all",
                classes="stats-heading",
            )
            yield _day_chart(
                [d.attempts for d in activity], [d.day for d in activity], today, "stats-activity"
            )
            forecast = outlook.forecast
            yield Label(
                f"Due in the next {len(forecast)} days: {count(sum(d.count for d in forecast), 'card')} "
                "(today includes overdue ones)",
                classes="stats-heading",
            )
            yield _day_chart(
                [d.count for d in forecast], [d.day for d in forecast], today, "stats-forecast"
            )
            yield Label(
                "Packs: mastered is the share of cards last rated Good or Easy",
                classes="stats-heading",
            )
            due = {p.pack: p.due for p in stats.packs}
            yield self.table(
                "stats-packs",
                ["pack", "cards", "mastered", "retention", "due today"],
                [
                    [m.name, m.cards, share_bar(m.share), percent(m.retention), due.get(m.name, 0)]
                    for m in outlook.packs
                ],
            )
            yield Label("Tags, least mastered first", classes="stats-heading")
            tags = sorted(outlook.tags, key=lambda m: (m.share, -m.cards, m.name))
            yield self.table(
                "stats-tags",
                ["tag", "cards", "mastered", "retention"],
                [[m.name, m.cards, share_bar(m.share), percent(m.retention)] for m in tags],
            )
            yield Label("Retention by tier", classes="stats-heading")
            yield self.table(
                "stats-tiers",
                ["tier", "reviews", "retention"],
                [
                    [figures.level, figures.reviews, percent(figures.retention)]
                    for figures in stats.levels
                ],
            )
            yield Label("Time per answer", classes="stats-heading")
            yield Static(self.answer_time(), id="stats-time")
            yield Label("Key points most often missed", classes="stats-heading")
            yield Static(
                self.misses(stats.missed_key_points, "No key point missed yet."), id="stats-missed"
            )
            yield Label("Red flags most often said", classes="stats-heading")
            yield Static(
                self.misses(stats.red_flags_said, "No red flag said yet."), id="stats-flags"
            )
        yield KeysFooter()

    def summary(self) -> str:
        s = self.stats
        return (
            f"{count(s.attempts, 'attempt')} on {count(s.cards_seen, 'card')} · {s.due_today} due today · "
            f"streak: {count(s.streak_days, 'day')}"
        )

    def answer_time(self) -> str:
        t = self.stats.answer_time
        if not t.answers:
            return "No timed answers yet."
        return (
            f"{t.answers} timed answers, {seconds(t.mean_seconds)} on average · "
            f"{percent(t.within_basic_share)} within the basic budget ({seconds(t.mean_basic_budget)}), "
            f"{percent(t.within_solid_share)} within the solid one ({seconds(t.mean_solid_budget)})"
        )

    @staticmethod
    def misses(missed: tuple[Missed, ...], none: str) -> Content:
        if not missed:
            return Content(none)
        return Content("\n").join(
            Content.styled(f"{m.times}× {m.card_id}: ", "bold") + card_text(m.text) for m in missed
        )

    @staticmethod
    def table(table_id: str, columns: list[str], rows: list[list]) -> DataTable:
        table: DataTable = DataTable(
            id=table_id, zebra_stripes=True, cursor_type="row", show_cursor=False
        )
        table.add_columns(*columns)
        # Text, not str: DataTable parses str cells as markup.
        table.add_rows(
            [[cell if isinstance(cell, Text) else Text(str(cell)) for cell in row] for row in rows]
        )
        return table

    def action_close(self) -> None:
        self.dismiss()


def _whole(value: float) -> str:
    return f"{value:.0f}"


def _day_chart(values: list[int], days: list[date], today: date, chart_id: str) -> BarChart:
    """One bar per day, labelled with its first and last day."""
    return BarChart(
        values,
        label=_whole,
        full_scale=1,
        rows=4,
        first=day_label(days[0], today),
        last=day_label(days[-1], today),
        id=chart_id,
    )
