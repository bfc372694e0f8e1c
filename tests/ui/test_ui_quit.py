"""Quitting is quick, after a code run too: the sandbox closes beside Textual's own shutdown,
and the process leaves without tearing its interpreter down (which cost a second or more)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from pilot_wait import until_screen
from ui_fakes import SIZE

from app.ui.screens.home import HomeScreen


class SlowToClose:
    """A runner whose close takes as long as a real worker's after a run."""

    def __init__(self) -> None:
        self.closed_in: list[str] = []
        self.exit_called_at: float | None = None
        self.close_started_at: float | None = None

    def warm(self, device):
        pass

    def grade(self, task, source, *, device):
        raise AssertionError("not run here")

    def cancel(self):
        pass

    def close(self):
        self.close_started_at = time.monotonic()
        self.closed_in.append(threading.current_thread().name)
        time.sleep(0.5)


async def test_quitting_starts_closing_the_sandbox_at_once_and_waits_for_it_once(make_app):
    runner = SlowToClose()
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await until_screen(pilot, HomeScreen)
        runner.exit_called_at = time.monotonic()
        app.exit()
    assert runner.closed_in == ["grill-close-sandbox"], "closed once, off the UI thread"
    assert runner.close_started_at - runner.exit_called_at < 0.5, "not after Textual's shutdown"


def test_leaving_now_runs_the_exit_handlers_and_writes_the_output_but_skips_the_teardown():
    script = (
        "import atexit, sys\n"
        "from app.cli import leave_now\n"
        "class Heavy:\n"
        "    def __del__(self): print('torn down')\n"
        "kept = Heavy()\n"
        "atexit.register(lambda: print('exit handler ran'))\n"
        "sys.stdout.write('buffered line\\n')\n"
        "leave_now(3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 3
    assert done.stdout.splitlines() == ["buffered line", "exit handler ran"]


def test_the_grill_command_leaves_quickly_only_after_the_app_ran(monkeypatch):
    import pytest

    import app.cli
    from app.ui import terminal

    left: list[int] = []
    monkeypatch.setattr(app.cli, "main", lambda argv=None: 0)
    monkeypatch.setattr(app.cli, "leave_now", lambda code: left.append(code) or sys.exit(code))
    monkeypatch.setattr(terminal, "ran", [])
    with pytest.raises(SystemExit):
        app.cli.entry()
    assert left == [], "grill check, lint, stats...: a plain exit"
    monkeypatch.setattr(terminal, "ran", [object()])
    with pytest.raises(SystemExit):
        app.cli.entry()
    assert left == [0]
