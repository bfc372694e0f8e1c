"""Snapshots of the main screens at 80x24 and 160x45, over the fixture pack with frozen clocks.

Stable by construction: the fake monotonic clock, a fixed wall clock (`ui_fakes.NOW`), local
time set to UTC, fixed attempts and verdicts, and no blinking cursors. Regenerate after an
intended visual change with `pytest tests/ui --snapshot-update` and review the SVG diff.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import timedelta

import pytest
from pilot_wait import steady, until, until_screen
from test_ui_code_task import LEAK
from ui_fakes import NOW

from app.mock.report import build_report
from app.mock.score import Judgement
from app.mock.session import MockSession
from app.progress.attempt import Attempt
from app.ui.screens.home import HomeScreen
from app.ui.screens.mock_report import MockReportScreen
from app.ui.screens.practice import PracticeScreen
from app.ui.screens.stats import StatsScreen

SIZES = {"80x24": (80, 24), "160x45": (160, 45)}


@pytest.fixture(autouse=True)
def utc_local_time(monkeypatch):
    """Days are local days; the snapshots must not depend on the machine's time zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def size(request) -> tuple[int, int]:
    return SIZES[request.param]


async def settled(pilot) -> None:
    """Home has loaded its cards, then the screen stops changing (`pilot_wait.steady`)."""
    home = await until_screen(pilot, HomeScreen)
    await until(pilot, lambda: home.query_one("#home-cards").row_count > 0)
    await steady(pilot)


def record_some_practice(history) -> None:
    """A few days of attempts before NOW, so stats and home have something to show."""
    for days_ago, card_id, rating in (
        (9, "no-grad", "good"),
        (6, "retain-graph", "again"),
        (5, "no-grad", "easy"),
        (3, "retain-graph", "hard"),
        (1, "running-loss", "good"),
    ):
        history.record(
            Attempt(
                card_id=card_id,
                mode="practice",
                rating=rating,
                level="middle",
                phase_seconds={"answer": 25.0 + days_ago},
                started_at=NOW - timedelta(days=days_ago),
                key_points_missed=("Evaluation code must not record a graph",),
            )
        )


def test_home(snap_compare, make_app, history, size):
    record_some_practice(history)

    assert snap_compare(make_app(), terminal_size=size, run_before=settled)


def test_a_card_after_three_reveals(snap_compare, make_app, clock, size):
    async def reveal(pilot):
        pilot.app.practise([pilot.app.library.card("no-grad")])
        screen = await until_screen(pilot, PracticeScreen)
        await pilot.press(*"It records a graph.")
        await until(pilot, lambda: screen.answer_text == "It records a graph.")
        clock.advance(23)
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        await until(pilot, lambda: screen.revealed == 3)
        await steady(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=reveal)


def test_a_graded_code_task(snap_compare, make_app, runner, size):
    runner.verdict = LEAK

    async def run_code(pilot):
        pilot.app.practise([pilot.app.library.card("running-loss")])
        screen = await until_screen(pilot, PracticeScreen)
        panel = await until(pilot, lambda: screen.code_panel)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: panel.completed_runs == 1)
        await steady(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_code)


def test_stats(snap_compare, make_app, history, size):
    record_some_practice(history)

    async def open_stats(pilot):
        await settled(pilot)
        await pilot.press("s")
        await until_screen(pilot, StatsScreen)
        await steady(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=open_stats)


def test_the_mock_report(snap_compare, make_app, clock, cards_for_mock, size):
    session = MockSession(cards_for_mock, level="middle", clock=clock, seed=3)
    session.start()
    for text in (
        "It records a graph, so it costs memory.",
        "",
        "",
        "The total keeps every graph: use item().",
    ):
        clock.advance(40)
        session.submit(text)
    session.finish_early()
    report = replace(
        build_report(session, [Judgement(frozenset({0, 1})), Judgement(frozenset({0}))]),
        started_at=NOW,
        session_id="snapshot",
    )

    async def open_report(pilot):
        await settled(pilot)
        pilot.app.push_screen(MockReportScreen(report))
        await until_screen(pilot, MockReportScreen)
        await steady(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=open_report)


@pytest.fixture
def cards_for_mock(library):
    return [library.card("no-grad"), library.card("running-loss")]


def test_home_in_the_light_theme(snap_compare, make_app, history):
    history.set_setting("theme", "light")

    assert snap_compare(make_app(), terminal_size=SIZES["80x24"], run_before=settled)
