"""The app ended by SIGTERM or SIGHUP leaves as `q` does: the screens close, the terminal gets
its own screen and mouse back, nothing is printed over it, and the status is the signal's. A
SIGCONT that follows (`timeout`, systemd and a shell's `kill` of a stopped job all send one)
does not switch the app back on."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from pace import bound
from terminal_signals import as_from_a_terminal

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = bound(6)
"""The app shows its first screen, or ends, in a second or two on a quiet machine."""
ALT_SCREEN_ON, ALT_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
MOUSE_ON, MOUSE_OFF = b"\x1b[?1000h", b"\x1b[?1000l"


class AppInTerminal:
    """`grill` on a pseudo-terminal of its own, as a user's shell starts it."""

    def __init__(self, home: Path):
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app.cli"],
            cwd=ROOT,
            env={**os.environ, "GRILL_HOME": str(home), "TERM": "xterm-256color"},
            stdin=follower,
            stdout=follower,
            stderr=follower,
            start_new_session=True,
            preexec_fn=as_from_a_terminal,
        )
        os.close(follower)
        self.leader = leader
        self.shown = b""

    def wait_for(self, text: bytes) -> None:
        """Read the terminal until `text` is on it; the limit only turns a hang into a failure."""
        deadline = time.monotonic() + WAIT_S
        while text not in self.shown:
            assert time.monotonic() < deadline, f"gave up waiting for {text!r}"
            assert self._read(), f"the app ended before showing {text!r}"

    def wait_for_exit(self) -> int:
        deadline = time.monotonic() + WAIT_S
        while self._read():
            assert time.monotonic() < deadline, "the app did not end"
        return self.process.wait(timeout=WAIT_S)

    def _read(self) -> bool:
        """Whatever the app writes next; False once its side of the terminal has closed."""
        ready, _, _ = select.select([self.leader], [], [], 1.0)
        if not ready:
            return self.process.poll() is None
        try:
            chunk = os.read(self.leader, 65536)
        except OSError:  # EIO: every process holding the terminal has gone
            return False
        self.shown += chunk
        return bool(chunk)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.leader)


@pytest.mark.parametrize(
    "signals",
    [(signal.SIGTERM,), (signal.SIGTERM, signal.SIGCONT), (signal.SIGHUP, signal.SIGCONT)],
    ids=["SIGTERM", "SIGTERM+SIGCONT", "SIGHUP+SIGCONT"],
)
def test_an_ending_signal_closes_the_app_as_quitting_does(tmp_path, signals):
    app = AppInTerminal(tmp_path / "home")
    try:
        app.wait_for(b"Welcome to grill")
        for number in signals:
            app.process.send_signal(number)
        status = app.wait_for_exit()
    finally:
        app.close()
    after = app.shown[app.shown.index(b"Welcome to grill") :]
    assert status == 128 + signals[0]
    assert b"Traceback" not in after
    assert after.rfind(ALT_SCREEN_OFF) > after.rfind(ALT_SCREEN_ON), "left on the app's screen"
    assert after.rfind(MOUSE_OFF) > after.rfind(MOUSE_ON), "left reporting the mouse"
