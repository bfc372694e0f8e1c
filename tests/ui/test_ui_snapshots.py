"""Snapshots of the main screens at a fixed size, over the fixture pack with a frozen clock.

Regenerate after an intended visual change with `pytest tests/ui --snapshot-update` and
review the SVG diff.
"""

from __future__ import annotations

from test_ui_code_task import LEAK

SNAPSHOT_SIZE = (100, 30)


async def hold_cursors_still(pilot) -> None:
    """A blinking cursor would be drawn on or off depending on timing; freeze it on."""
    for widget in pilot.app.screen.query("TextArea, Input"):
        widget.cursor_blink = False
    await pilot.pause()


def test_home(snap_compare, make_app):
    async def settle(pilot):
        await pilot.pause()
        await hold_cursors_still(pilot)

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=settle)


def test_practice_after_three_reveals(snap_compare, make_app, clock):
    async def reveal(pilot):
        pilot.app.practise([pilot.app.library.card("no-grad")])
        await pilot.pause()
        await pilot.press(*"It records a graph.")
        clock.advance(23)
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        await hold_cursors_still(pilot)

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=reveal)


def test_code_task_with_a_leak_verdict(snap_compare, make_app, runner):
    runner.verdict = LEAK

    async def run_code(pilot):
        pilot.app.practise([pilot.app.library.card("running-loss")])
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.app.workers.wait_for_complete()
        await hold_cursors_still(pilot)

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=run_code)


def test_home_in_the_light_theme(snap_compare, make_app, history):
    history.set_setting("theme", "light")

    async def settle(pilot):
        await pilot.pause()
        await hold_cursors_still(pilot)

    assert snap_compare(make_app(), terminal_size=SNAPSHOT_SIZE, run_before=settle)
