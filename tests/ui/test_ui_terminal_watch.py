"""grill ends when its terminal goes away, even when no SIGHUP reaches it (`make run`, a
dropped SSH session behind a wrapper): otherwise Textual's input thread spins on end-of-file
at full CPU for ever. Each case runs in a child process, since the watcher ends its process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import os, pty, signal, sys, time
from app.ui.terminal import watch_terminal

master, terminal = pty.openpty()
if sys.argv[1] == "handled":
    signal.signal(signal.SIGHUP, lambda *_: (print("hung up", flush=True), sys.exit(129)))
else:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
assert watch_terminal(terminal, poll_seconds=0.05, grace_seconds=0.5) is not None
time.sleep(0.5)
print("still running while the terminal is there", flush=True)
os.close(master)  # the terminal goes away, and no signal comes
time.sleep(30)
print("never", flush=True)
"""


def run_child(mode: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-c", CHILD, mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=20,
    )
    return child, time.monotonic() - started


def test_a_terminal_that_goes_away_ends_grill_as_a_hang_up_would():
    child, took = run_child("handled")
    assert child.stdout.splitlines() == ["still running while the terminal is there", "hung up"]
    assert child.returncode == 129, child.stderr
    assert took < 10


def test_grill_still_leaves_when_the_hang_up_is_ignored_or_its_shutdown_sticks():
    child, took = run_child("ignored")
    assert child.stdout.splitlines() == ["still running while the terminal is there"]
    assert child.returncode == 129, child.stderr
    assert took < 10


def test_no_watcher_without_a_terminal():
    from app.ui.terminal import watch_terminal

    read, write = os.pipe()
    try:
        assert watch_terminal(read) is None
        assert watch_terminal(-1) is None
    finally:
        os.close(read)
        os.close(write)
