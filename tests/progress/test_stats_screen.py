"""The stats screen shows every figure of a Stats value and draws the outlook; Escape closes it."""

from __future__ import annotations

from datetime import UTC, date, datetime

from textual.app import App
from textual.widgets import DataTable, Static

from app.progress.outlook import DayCount, Mastery, Outlook
from app.progress.stats import AnswerTime, DayActivity, LevelFigures, Missed, PackFigures, Stats
from app.ui.screens.stats import StatsScreen
from app.ui.widgets.bar_chart import BarChart

STATS = Stats(
    generated_at=datetime(2026, 4, 11, 12, tzinfo=UTC),
    attempts=42,
    cards_seen=7,
    due_today=3,
    streak_days=5,
    packs=(PackFigures("autograd", 10, 5, 2, 20, 15), PackFigures("memory", 4, 2, 1, 0, 0)),
    levels=(LevelFigures("middle", 12, 9), LevelFigures("senior", 8, 6)),
    answer_time=AnswerTime(
        answers=40,
        mean_seconds=33.0,
        budgeted=38,
        within_basic=19,
        within_solid=30,
        mean_basic_budget=20.0,
        mean_solid_budget=50.0,
    ),
    missed_key_points=(Missed("a1", "zero the gradients", 6), Missed("m1", "detach the loss", 2)),
    red_flags_said=(Missed("a1", "item() keeps the graph", 1),),
    activity=tuple(DayActivity(date(2026, 4, d), d % 3) for d in range(1, 12)),
)
OUTLOOK = Outlook(
    packs=(Mastery("autograd", 10, 4, 20, 15), Mastery("memory", 4, 0, 0, 0)),
    tags=(Mastery("graphs", 6, 3, 8, 6),),
    forecast=tuple(DayCount(date(2026, 4, 11 + n), n % 2) for n in range(14)),
)


class Host(App):
    def on_mount(self) -> None:
        self.push_screen(StatsScreen(STATS, OUTLOOK))


def rows(screen, table_id: str) -> list[list[str]]:
    table = screen.query_one(f"#{table_id}", DataTable)
    return [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def test_the_screen_renders_every_figure_and_escape_closes_it():
    app = Host()
    async with app.run_test(size=(120, 60)) as pilot:
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        summary = str(screen.query_one("#stats-summary", Static).render())
        assert (
            "42 attempts on 7 cards" in summary
            and "3 due today" in summary
            and "streak: 5 days" in summary
        )
        assert rows(screen, "stats-packs") == [
            ["autograd", "10", "████░░░░░░ 40%", "75%", "2"],
            ["memory", "4", "░░░░░░░░░░ 0%", "–", "1"],
        ]
        assert rows(screen, "stats-tags") == [["graphs", "6", "█████░░░░░ 50%", "75%"]]
        assert rows(screen, "stats-tiers") == [["middle", "12", "75%"], ["senior", "8", "75%"]]
        timing = str(screen.query_one("#stats-time", Static).render())
        assert (
            "33 s on average" in timing
            and "50% within the basic budget" in timing
            and "79%" in timing
        )
        missed = str(screen.query_one("#stats-missed", Static).render()).splitlines()
        assert missed == ["6× a1: zero the gradients", "2× m1: detach the loss"]
        assert (
            str(screen.query_one("#stats-flags", Static).render())
            == "1× a1: item() keeps the graph"
        )
        activity = screen.query_one("#stats-activity", BarChart)
        assert activity.values == [d.attempts for d in STATS.activity]
        assert str(activity.render()).splitlines()[-1].strip().startswith("Apr 1")
        forecast = screen.query_one("#stats-forecast", BarChart)
        assert forecast.values == [0, 1] * 7
        assert str(forecast.render()).splitlines()[-1].strip().endswith("Apr 24")
        await pilot.press("escape")
        assert not isinstance(app.screen, StatsScreen)
