"""`grill` ended by SIGTERM or SIGHUP cleans up as it does after Ctrl-C (SIGINT): the sandbox's
worker stops and its temporary folder goes with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pace import bound
from terminal_signals import as_from_a_terminal

ROOT = Path(__file__).resolve().parents[2]
LOOP = """import torch
model = torch.nn.Linear(4, 1)
for step in range(60):
    model(torch.randn(8, 4)).sum().backward()
"""


@pytest.mark.parametrize(
    "number, status",
    [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
@pytest.mark.parametrize(
    "command", [["-m", "app.cli", "check"], ["-m", "checkers"]], ids=["grill", "checkers"]
)
def test_a_check_ended_by_a_signal_leaves_no_sandbox_folder(tmp_path, number, status, command):
    temp = tmp_path / "tmp"
    temp.mkdir()
    snippet = tmp_path / "loop.py"
    snippet.write_text(LOOP)
    check = subprocess.Popen(
        [sys.executable, *command, str(snippet)],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(temp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=as_from_a_terminal,
    )
    deadline = time.monotonic() + bound(6)  # the worker starts in a few seconds when quiet
    while not list(
        temp.glob("grill-sandbox-*")
    ):  # the worker is starting: torch takes seconds to import
        assert check.poll() is None and time.monotonic() < deadline, (
            "the check ended before its sandbox started"
        )
        time.sleep(0.01)
    check.send_signal(number)
    _, err = check.communicate(timeout=bound(6))
    assert check.returncode == status
    assert list(temp.iterdir()) == []
    assert b"Traceback" not in err


def test_a_signal_someone_ignores_stays_ignored():
    """`nohup grill ...` must survive its terminal closing."""
    code = (
        "import signal, sys\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\nfrom app.cli import main\n"
        "import app.cli\napp.cli.dispatch = lambda target, args: signal.getsignal(signal.SIGHUP) is signal.SIG_IGN\n"
        "sys.exit(0 if main(['stats']) else 1)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=bound(3)).returncode == 0
