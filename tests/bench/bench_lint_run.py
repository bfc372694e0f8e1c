"""How long `grill lint --run` takes on the shipped packs (goal: under 120 s on this project's
2-core machine when it is quiet), and the CPU it uses: its own process, and its warm workers
with every run they forked.

On a shared machine the wall time stretches with the load and says little; the CPU seconds
do not, and divided by the cores the workers had they are the wall time a quiet machine
would take. So the script prints both, with the load average before and after.
Run: .venv/bin/python tests/bench/bench_lint_run.py [PATH...]   (default: questions/)
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.cli import main  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_below(root: int) -> float:
    """CPU seconds of the live processes under `root` and of the children they reaped (a
    worker reaps each run it forks, so its runs count once they end)."""
    children: dict[int, list[tuple[int, list[str]]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        children.setdefault(int(fields[1]), []).append((int(name), fields))
    total, stack = 0, [root]
    while stack:
        for pid, fields in children.get(stack.pop(), []):
            total += sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
            stack.append(pid)
    return total / TICKS


def reaped_cpu() -> float:
    """CPU seconds of the children this process reaped (workers closed), with theirs."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main_bench(paths: list[str]) -> int:
    load_before = os.getloadavg()[0]
    started, own, reaped = time.monotonic(), time.process_time(), reaped_cpu()
    status = main(["lint", "--run", *paths])
    wall, own = time.monotonic() - started, time.process_time() - own
    workers = cpu_below(os.getpid()) + reaped_cpu() - reaped  # the shared worker is still up
    print(
        f"grill lint --run {' '.join(paths)}: exit {status}, {wall:.0f} s wall; CPU {own:.0f} s"
        f" in grill's process, {workers:.0f} s in its workers and runs; load average"
        f" {load_before:.1f} before, {os.getloadavg()[0]:.1f} after",
        file=sys.stderr,
    )
    return status


if __name__ == "__main__":
    sys.exit(main_bench(sys.argv[1:] or [str(ROOT / "questions")]))
