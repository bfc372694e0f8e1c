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
from test_ui_code_task import LEAK
from ui_fakes import NOW

from app.mock.report import build_report
from app.mock.score import Judgement
from app.mock.session import MockSession
from app.progress.attempt import Attempt
from app.ui.screens.mock_report import MockReportScreen

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
    """Wait until the screen stops changing, so a busy machine takes the same picture as an idle
    one (a focus change or a scroll after the next refresh can land a frame late). A blinking
    cursor would never settle: it is frozen on first."""
    for widget in pilot.app.screen.query("TextArea, Input"):
        widget.cursor_blink = False
    await pilot.app.workers.wait_for_complete()
    last = None
    for _ in range(SETTLE_TRIES):
        await pilot.pause(0.05)
        now = pilot.app.export_screenshot()
        if now == last:
            return
        last = now
    raise AssertionError(f"the screen was still changing after {SETTLE_TRIES} frames")


SETTLE_TRIES = 60


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
        await pilot.pause()
        await pilot.press(*"It records a graph.")
        clock.advance(23)
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        await settled(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=reveal)


def test_a_graded_code_task(snap_compare, make_app, runner, size):
    runner.verdict = LEAK

    async def run_code(pilot):
        pilot.app.practise([pilot.app.library.card("running-loss")])
        await pilot.pause()
        await pilot.press("ctrl+r")
        await settled(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_code)


def test_stats(snap_compare, make_app, history, size):
    record_some_practice(history)

    async def open_stats(pilot):
        await pilot.pause()
        await pilot.press("s")
        await settled(pilot)

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
        await pilot.pause()
        pilot.app.push_screen(MockReportScreen(report))
        await settled(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=open_report)


@pytest.fixture
def cards_for_mock(library):
    return [library.card("no-grad"), library.card("running-loss")]


def test_home_in_the_light_theme(snap_compare, make_app, history):
    history.set_setting("theme", "light")

    assert snap_compare(make_app(), terminal_size=SIZES["80x24"], run_before=settled)
