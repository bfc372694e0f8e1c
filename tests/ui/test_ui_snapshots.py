"""Snapshots of the main screens at a fixed size, over the fixture pack with a frozen clock.

Regenerate after an intended visual change with `pytest tests/ui --snapshot-update` and
review the SVG diff.
"""

from __future__ import annotations

from test_ui_code_task import LEAK

SNAPSHOT_SIZE = (100, 30)


def test_home(snap_compare, make_app):
    async def settle(pilot):
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=settle)


def test_practice_after_three_reveals(snap_compare, make_app, clock):
    async def reveal(pilot):
        pilot.app.practise([pilot.app.library.card("no-grad")])
        await pilot.pause()
        await pilot.press(*"It records a graph.")
        clock.advance(23)
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=reveal)


def test_code_task_with_a_leak_verdict(snap_compare, make_app, grader):
    grader.verdict = LEAK

    async def run_code(pilot):
        pilot.app.practise([pilot.app.library.card("running-loss")])
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=run_code)


def test_home_in_the_light_theme(snap_compare, make_app, history):
    history.set_setting("theme", "light")

    async def settle(pilot):
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=settle)
