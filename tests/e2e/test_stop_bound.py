"""A signal ends every command within a bound and leaves nothing behind: the fast form of
tests/bench/bench_stops.py (200 random instants under load), a handful of fixed instants, each
round run by the bench script itself (it makes itself the subreaper of what grill leaves).

The bound here is generous (the suite runs beside other work); the bench prints the figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "tests" / "bench" / "bench_stops.py"
BOUND_S = bound(0.5)
"""5 s on a quiet machine, as many times more as this one runs slower now."""

CASES = [
    ("check", "SIGTERM", 6.0),  # mid-run, or the worker still starting on a busy machine
    ("batch", "SIGINT", 8.0),  # between two files, or during one
    ("ranks", "SIGHUP", 7.0),  # the ranks' rendezvous
    ("watch", "SIGINT×2", 4.0),  # the watch grading its starter; the second ends it at once
    ("check", "SIGINT", -1),  # start-up: the moment the sandbox's folder exists
]


@pytest.mark.parametrize(("scenario", "signal_name", "delay"), CASES)
def test_a_signal_ends_the_command_within_the_bound_leaving_nothing(scenario, signal_name, delay):
    ran = subprocess.run(
        [sys.executable, str(BENCH), "--case", f"{scenario}:{signal_name}:{delay}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=bound(18),  # a round starts grill and its worker: a few seconds quiet
    )
    assert ran.returncode == 0, ran.stderr
    done = json.loads(ran.stdout.splitlines()[-1])
    said = done["stderr"][-3000:]
    assert not done["hung"], said
    assert done["folders"] == [] and done["processes"] == [], said
    assert done["stop_s"] < BOUND_S, said
    assert "Traceback" not in done["stderr"]
