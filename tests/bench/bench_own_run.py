"""What watching costs: real-code corpus scripts run three ways, side by side in one run.

For each script: plain `python SCRIPT` (no grill), `grill run SCRIPT` (the watcher in the
script's own process) and `grill check SCRIPT` (the sandbox, a cold worker), each in a fresh
process from a folder of its own; the wall and CPU time of each (the median of RUNS runs), and
the ratio of each to plain Python (no CPU figure for `grill check`: its sandbox's worker is
no child this process waits for, so its time is not counted here). All three pay Python's
and torch's start; the sandbox runs torch on one thread. On a machine whose
cores are shared, the wall time stretches and the CPU time much less: compare the ratios.
Run: .venv/bin/python tests/bench/bench_own_run.py
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REALCODE = ROOT / "tests" / "grader" / "realcode"
SCRIPTS = ("examples_regression.py", "yunjey_feedforward.py", "examples_mnist.py")
RUNS = int(os.environ.get("RUNS", "3"))
WAYS = {
    "python": [sys.executable],
    "grill run": [sys.executable, "-m", "app.cli", "run"],
    "grill check": [sys.executable, "-m", "app.cli", "check", "--device", "cpu"],
}


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (the child's user and system time) of one run, in a new folder."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(command, cwd=folder, capture_output=True, check=False, timeout=900)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    print(f"median of {RUNS} runs each; wall / CPU seconds, and the ratio to plain python")
    for name in SCRIPTS:
        figures: dict[str, tuple[float, float]] = {}
        for way, command in WAYS.items():
            runs = [timed([*command, str(REALCODE / name)]) for _ in range(RUNS)]
            figures[way] = (
                statistics.median(w for w, _ in runs),
                statistics.median(c for _, c in runs),
            )
        wall0, cpu0 = figures["python"]
        print(name)
        for way, (wall, cpu) in figures.items():
            used = "" if way == "grill check" else f"   CPU {cpu:6.1f} s ({cpu / cpu0:4.1f}x)"
            print(f"  {way:12} wall {wall:6.1f} s ({wall / wall0:4.1f}x){used}")


if __name__ == "__main__":
    main()
