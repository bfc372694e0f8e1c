"""The stats screen shows every figure of a Stats value, and Escape closes it."""

from __future__ import annotations

from datetime import date, datetime, timezone

from textual.app import App
from textual.widgets import DataTable, Sparkline, Static

from app.progress.stats import AnswerTime, DayActivity, Missed, PackFigures, Stats, TierFigures
from app.ui.screens.stats import StatsScreen

STATS = Stats(
    generated_at=datetime(2026, 4, 11, 12, tzinfo=timezone.utc),
    attempts=42, cards_seen=7, due_today=3, streak_days=5,
    packs=(PackFigures("autograd", 10, 5, 2, 20, 15), PackFigures("memory", 4, 2, 1, 0, 0)),
    tiers=(TierFigures("middle", 12, 9), TierFigures("senior", 8, 6)),
    answer_time=AnswerTime(answers=40, mean_seconds=33.0, budgeted=38, within_basic=19, within_solid=30,
                           mean_basic_budget=20.0, mean_solid_budget=50.0),
    missed_key_points=(Missed("a1", "zero the gradients", 6), Missed("m1", "detach the loss", 2)),
    red_flags_said=(Missed("a1", "item() keeps the graph", 1),),
    activity=tuple(DayActivity(date(2026, 4, d), d % 3) for d in range(1, 12)),
)


class Host(App):
    def on_mount(self) -> None:
        self.push_screen(StatsScreen(STATS))


def rows(screen, table_id: str) -> list[list[str]]:
    table = screen.query_one(f"#{table_id}", DataTable)
    return [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def test_the_screen_renders_every_figure_and_escape_closes_it():
    app = Host()
    async with app.run_test(size=(120, 60)) as pilot:
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        summary = str(screen.query_one("#stats-summary", Static).render())
        assert "42 attempts on 7 cards" in summary and "3 due today" in summary and "streak: 5 days" in summary
        assert rows(screen, "stats-packs") == [["autograd", "10", "5", "2", "20", "75%"],
                                               ["memory", "4", "2", "1", "0", "–"]]
        assert rows(screen, "stats-tiers") == [["middle", "12", "75%"], ["senior", "8", "75%"]]
        timing = str(screen.query_one("#stats-time", Static).render())
        assert "33 s on average" in timing and "50% within the basic budget" in timing and "79%" in timing
        assert rows(screen, "stats-missed")[0] == ["a1", "zero the gradients", "6"]
        assert rows(screen, "stats-flags") == [["a1", "item() keeps the graph", "1"]]
        assert list(screen.query_one("#stats-activity", Sparkline).data) == [d.attempts for d in STATS.activity]
        await pilot.press("escape")
        assert not isinstance(app.screen, StatsScreen)
