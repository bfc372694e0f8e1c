"""Waiting in Pilot tests: for a condition, never for a number of frames.

`pilot.pause()` returns when Textual *guesses* the app is idle, by comparing the process's CPU
time with the wall clock over 20 ms. On a machine whose cores are busy with other work the
process gets little CPU, so the guess says "idle" while messages are still queued: a test that
pauses once and then asserts passes alone and fails under load. A key press has the same flaw
(`pilot.press` waits the same way), and so does a picture taken after one pause.

So a test waits for what it is about to check (`until`), for the screen it is about to use
(`until_screen`), or, to check that something did *not* happen, for every message already
queued to be handled (`drained`). `steady` waits until the screen stops changing, for
snapshots. `tests/test_pilot_waits.py` keeps `pilot.pause` out of every other test file.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any, TypeVar

from pace import bound

WAIT_S = bound(3.0)
"""How long a condition may take before the test fails: far beyond any real wait (a quiet
machine takes well under a second, a busy one a few), so only a condition that never comes
reaches it."""
POLL_S = 0.01

ScreenType = TypeVar("ScreenType")


def _described(condition: Callable[[], object]) -> str:
    try:
        return inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return repr(condition)


async def until(pilot, condition: Callable[[], Any], *, timeout: float = WAIT_S) -> Any:
    """Let the app run until `condition()` is true, and return its value.

    A condition that raises (a widget not mounted yet, a screen not pushed yet) counts as not
    yet true; if it is still raising at the timeout, that error is the test's failure.
    """
    deadline = time.monotonic() + timeout
    while True:
        await pilot.pause(0)
        try:
            value = condition()
        except Exception:
            if time.monotonic() > deadline:
                raise
        else:
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"not true within {timeout:g} s: {_described(condition)}")
        await pilot.pause(POLL_S)


async def until_screen(
    pilot, screen_type: type[ScreenType], *, timeout: float = WAIT_S
) -> ScreenType:
    """The app's current screen once it is a `screen_type`, mounted (its widgets composed) and,
    for grill's screens, drawn: a screen that drops keys typed before it was drawn (the mock's
    review and report) would drop a key pressed between its mount and its first refresh."""

    def shown() -> Any:
        screen = pilot.app.screen
        drawn = getattr(screen, "shown_at", 0.0) is not None
        return screen if isinstance(screen, screen_type) and screen.is_mounted and drawn else None

    return await until(pilot, shown, timeout=timeout)


async def drained(pilot, rounds: int = 3) -> None:
    """Every message already queued for the app and its screen has been handled, and what those
    handlers queued in turn: for checking that a key did *not* do something."""
    for _ in range(rounds):
        await pilot.pause(0)
        await pilot.app.animator.wait_until_complete()


async def steady(pilot, *, tries: int = 200, stable: int = 3) -> None:
    """Wait until the screen stops changing, so a busy machine takes the same picture as an idle
    one. A blinking cursor would never settle: it is frozen first, and a text area's lines are
    drawn again then, because it caches them without the cursor's state when the cursor does not
    blink (a line drawn in the blink's dark phase would keep its cursor hidden). The picture must
    stay the same over `stable` checks in a row, each after the app has handled everything
    queued, because a starved app can leave two pictures alike while its next message waits."""
    for widget in pilot.app.screen.query("TextArea, Input"):
        widget.cursor_blink = False
        widget.notify_style_update()
        widget.refresh()
    await pilot.app.workers.wait_for_complete()
    last, same = None, 0
    for _ in range(tries):
        await drained(pilot, rounds=1)
        await pilot.pause(0.05)
        now = pilot.app.export_screenshot()
        same = same + 1 if now == last else 0
        if same >= stable:
            return
        last = now
    raise AssertionError(f"the screen was still changing after {tries} checks")
