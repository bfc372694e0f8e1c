"""What the test suite costs, per folder: the figures issue 34's speed goals are stated in.

Runs pytest as `make test` does (or with the arguments given after `--`), then prints the wall
time, the machine's busy CPU seconds over the run (from /proc/stat: a suite's sandbox workers
live in their own sessions and pid namespaces, and getrusage misses most of them), and the
summed test time per folder from pytest's JUnit XML. `--before FILE` puts an earlier run's XML
beside it (save one with `--keep FILE`). Busy seconds count every process on the machine: on a
shared one, read the load average printed before the run.

It also says where those CPU seconds went, from /proc sampled through the run: pytest's own
processes (the tests themselves), the sandbox workers (their warm start and every graded run,
which are their forked children), and the rest (the commands tests start, bubblewrap, the
kernel, anything else on the machine). A process is read last up to `SAMPLE_S` before it ends,
so the first two are a little low and the rest a little high.

    .venv/bin/python tests/bench/bench_suite.py [--keep FILE] [--before FILE] [-- PYTEST-ARGS]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKERS = min(2 * (os.cpu_count() or 1), 8)  # the Makefile's


def busy_and_total() -> tuple[float, float]:
    """The machine's busy and total CPU seconds since boot (all cores)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    total = sum(fields[:8])
    ticks = os.sysconf("SC_CLK_TCK")
    return (total - idle) / ticks, total / ticks


SAMPLE_S = 0.25
SANDBOX_WORKER = b"checkers.sandbox.worker"


class CpuByKind:
    """CPU seconds of pytest's processes and of the sandbox workers (with the run children
    they reaped), sampled from /proc until `stop()`."""

    def __init__(self, pytest_pid: int):
        self.pytest_pid = pytest_pid
        self.pytest: dict[int, float] = {}
        self.sandbox: dict[int, float] = {}
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, float]:
        self._stopped.set()
        self._thread.join()
        return {"pytest": sum(self.pytest.values()), "sandbox": sum(self.sandbox.values())}

    def _sample(self) -> None:
        ticks = os.sysconf("SC_CLK_TCK")
        while not self._stopped.wait(SAMPLE_S):
            seen = {}
            for entry in os.scandir("/proc"):
                if entry.name.isdigit():
                    found = _stat(int(entry.name))
                    if found is not None:
                        seen[int(entry.name)] = found
            for pid, (parent, own, reaped, command) in seen.items():
                if pid == self.pytest_pid or parent == self.pytest_pid:
                    self.pytest[pid] = own / ticks  # reaped: the commands tests ran, counted below
                elif (
                    _is_worker(command)
                    and not _is_worker(seen.get(parent, _GONE)[3])
                    and self._descends(parent, seen)
                ):  # a worker of this suite, not one of its forked runs (in its reaped time)
                    self.sandbox[pid] = (own + reaped) / ticks

    def _descends(self, pid: int, seen: dict[int, tuple[int, int, int, bytes]]) -> bool:
        while pid > 1:
            if pid == self.pytest_pid:
                return True
            pid = seen.get(pid, _GONE)[0]
        return False


_GONE = (0, 0, 0, b"")


def _is_worker(command: bytes) -> bool:
    """A sandbox worker's Python (bubblewrap's command line names the worker too)."""
    return SANDBOX_WORKER in command and not command.split(b"\0", 1)[0].endswith(b"bwrap")


def _stat(pid: int) -> tuple[int, int, int, bytes] | None:
    """A process's parent, own CPU ticks, its reaped children's, and its command line."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            command = cmdline.read()
    except OSError:  # gone, or not ours to read
        return None
    parent, utime, stime, cutime, cstime = (int(fields[i]) for i in (1, 11, 12, 13, 14))
    return parent, utime + stime, cutime + cstime, command


def per_folder(junit: Path) -> dict[str, tuple[float, int]]:
    """Summed test seconds (setup, call and teardown) and test count per folder of tests/."""
    folders: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for case in ET.parse(junit).getroot().iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        folder = parts[1] if len(parts) > 2 else "(top level)"
        folders[folder][0] += float(case.get("time") or 0)
        folders[folder][1] += 1
    return {name: (seconds, int(count)) for name, (seconds, count) in folders.items()}


def table(after: dict[str, tuple[float, int]], before: dict[str, tuple[float, int]]) -> str:
    rows = [f"{'folder':14} {'tests':>6} {'seconds':>8}" + ("  before   ratio" if before else "")]
    for name in sorted(after, key=lambda n: -after[n][0]):
        seconds, count = after[name]
        row = f"{name:14} {count:6} {seconds:8.0f}"
        if name in before:
            row += f"  {before[name][0]:6.0f}  {before[name][0] / max(seconds, 1e-9):5.2f}x"
        rows.append(row)
    total = sum(s for s, _ in after.values())
    row = f"{'total':14} {sum(c for _, c in after.values()):6} {total:8.0f}"
    if before:
        old = sum(s for s, _ in before.values())
        row += f"  {old:6.0f}  {old / max(total, 1e-9):5.2f}x"
    return "\n".join([*rows, row])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="save this run's JUnit XML here")
    parser.add_argument("--before", type=Path, help="an earlier run's JUnit XML, side by side")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's own arguments")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        junit = args.keep or Path(scratch) / "junit.xml"
        pytest_args = args.pytest_args or ["-q", "-n", str(WORKERS)]
        print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        busy_then, total_then = busy_and_total()
        started = time.monotonic()
        suite = subprocess.Popen(
            [sys.executable, "-m", "pytest", *pytest_args, f"--junitxml={junit}"], cwd=ROOT
        )
        sampled = CpuByKind(suite.pid)
        status = suite.wait()
        wall = time.monotonic() - started
        by_kind = sampled.stop()
        busy_now, total_now = busy_and_total()
        busy, total = busy_now - busy_then, total_now - total_then
        print(
            f"\npytest exit {status}; wall {wall:.0f} s; machine busy {busy:.0f} CPU-s of {total:.0f}"
        )
        rest = busy - by_kind["pytest"] - by_kind["sandbox"]
        print(
            f"of which pytest's processes {by_kind['pytest']:.0f}, sandbox workers and their runs"
            f" {by_kind['sandbox']:.0f}, the rest {rest:.0f}"
        )
        print(table(per_folder(junit), per_folder(args.before) if args.before else {}))
    return status


if __name__ == "__main__":
    sys.exit(main())
