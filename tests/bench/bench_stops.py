"""How fast, and how cleanly, a signal ends grill, sent at a random instant.

Each round starts one grill command (a single check, a batch of files, a ranked check, `grill
task watch`), waits a random time (start-up, mid-run, between two files, a rank's rendezvous),
sends one signal (SIGINT, SIGTERM, SIGHUP, or two SIGINTs a moment apart) and measures how
long the command takes to end; then it counts what is left: `grill-sandbox-*` folders in the
round's own temporary folder, and processes (this script is their subreaper, so a worker grill
lost comes back to it). A command still going after `HANG_S` is dumped (faulthandler) and
killed.

    .venv/bin/python tests/bench/bench_stops.py [ROUNDS] [--seed N] [--load N]
    .venv/bin/python tests/bench/bench_stops.py --case watch:SIGINT×2:4.0
    .venv/bin/python tests/bench/bench_stops.py --case check:SIGTERM:-1   (as the sandbox starts)

prints each round that went wrong, then the stop times (max, p95, median) and the leftovers.
`--load N` keeps N busy processes running meanwhile. tests/e2e/test_stop_bound.py runs a
handful of fixed rounds of the same code in the suite.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from terminal_signals import as_from_a_terminal  # noqa: E402  (the tests' own helper)

FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"
HANG_S = 30.0
"""A command still going this long after the signal hangs."""
LINGER_S = 2.0
"""How long after the command ends a process of its may still be dying."""
PR_SET_CHILD_SUBREAPER = 36

LOOP = """import torch
model = torch.nn.Linear(4, 1)
for step in range(20000):
    model(torch.randn(8, 4)).sum().backward()
"""
SHORT = """import torch
w = torch.zeros(3, requires_grad=True)
for step in range(5):
    (w * 2).sum().backward()
"""
RANKED = """import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(5000):
    opt.zero_grad()
    model(torch.randn(4, 8)).sum().backward()
    opt.step()
dist.destroy_process_group()
"""
SCENARIOS = ("check", "batch", "ranks", "watch")
SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGINT×2")
WATCH_TASK = "running-loss"


@dataclass
class Round:
    scenario: str
    signal: str
    delay: float
    stop_s: float = 0.0
    hung: bool = False
    status: int | None = None
    folders: list[str] = field(default_factory=list)
    processes: list[str] = field(default_factory=list)
    stderr: str = ""

    @property
    def clean(self) -> bool:
        return not (self.hung or self.folders or self.processes)


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def adopted() -> list[str]:
    """This script's children that are not its own: what grill's processes left behind."""
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its closing paren
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if ppid == me and state != "Z" and int(entry.name) not in _own:
            found.append(f"{entry.name} {stat.split('(', 1)[1].split(')')[0]} {state}")
    return found


_own: set[int] = set()


def reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def prepare(scenario: str, work: Path, env: dict[str, str]) -> list[str]:
    """The command line of a round, with its files written under `work`."""
    if scenario == "check":
        (work / "loop.py").write_text(LOOP)
        return ["check", "--device", "cpu", str(work / "loop.py")]
    if scenario == "batch":
        names = []
        for number in range(8):
            path = work / f"short{number}.py"
            path.write_text(SHORT)
            names.append(str(path))
        return ["check", "--device", "cpu", *names]
    if scenario == "ranks":
        (work / "ranked.py").write_text(RANKED)
        return ["check", "--device", "cpu", "--ranks", "4", str(work / "ranked.py")]
    assert scenario == "watch"
    subprocess.run(
        [sys.executable, "-m", "app.cli", "task", "start", WATCH_TASK, str(work)],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    fix = next(work.glob("*.py"))
    return ["task", "watch", WATCH_TASK, str(fix), "--device", "cpu"]


def one_round(scenario: str, signal_name: str, delay: float, base: Path) -> Round:
    work = Path(tempfile.mkdtemp(prefix=f"{scenario}-", dir=base))
    temp = work / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "TMPDIR": str(temp),
        "GRILL_HOME": str(work / "home"),
        "GRILL_PACKS": str(FIXTURE_PACKS),
        "PYTHONFAULTHANDLER": "1",
    }
    argv = prepare(scenario, work, env)
    result = Round(scenario, signal_name, delay)
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=as_from_a_terminal,
    )
    _own.add(process.pid)
    if delay >= 0:
        time.sleep(delay)
    else:  # the moment the sandbox starts: its work folder exists, its worker is on the way
        deadline = time.monotonic() + HANG_S
        while not any(temp.glob("grill-sandbox-*")) and time.monotonic() < deadline:
            time.sleep(0.005)
    number = signal.SIGINT if signal_name.startswith("SIGINT") else signal.Signals[signal_name]
    sent = time.monotonic()
    process.send_signal(number)
    if signal_name == "SIGINT×2":
        time.sleep(0.2)
        if process.poll() is None:
            process.send_signal(number)
    try:
        _, err = process.communicate(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        result.hung = True
        process.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack
        _, err = process.communicate()
    result.stop_s = time.monotonic() - sent
    result.status = process.returncode
    result.stderr = err.decode(errors="replace")
    _own.discard(process.pid)
    deadline = time.monotonic() + LINGER_S
    while True:
        reap()
        result.processes = adopted()
        if not result.processes or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    result.folders = [p.name for p in temp.glob("grill-sandbox-*")]
    for line in result.processes:  # not to count them again in the next round
        try:
            os.kill(int(line.split()[0]), signal.SIGKILL)
        except ProcessLookupError:
            pass
    return result


def run_rounds(
    rounds: int, seed: int, base: Path, scenarios: tuple[str, ...] = SCENARIOS
) -> list[Round]:
    become_subreaper()
    draw = random.Random(seed)
    done = []
    for number in range(rounds):
        scenario = scenarios[number % len(scenarios)]
        signal_name = SIGNALS[(number // len(scenarios)) % len(SIGNALS)]
        delay = draw.uniform(0.0, 12.0 if scenario != "batch" else 20.0)
        done.append(one_round(scenario, signal_name, delay, base))
        shown = done[-1]
        print(
            f"{number + 1:>4} {scenario:<6} {signal_name:<9} at {delay:5.2f} s:"
            f" ended in {shown.stop_s:5.2f} s, status {shown.status}"
            + ("" if shown.clean else "  <-- " + describe(shown)),
            flush=True,
        )
        if not shown.clean or shown.status not in (0, 129, 130, 143, -1, -2, -15):
            print(shown.stderr[-4000:], flush=True)
    return done


def describe(result: Round) -> str:
    parts = []
    if result.hung:
        parts.append("HUNG")
    if result.folders:
        parts.append(f"{len(result.folders)} folders")
    if result.processes:
        parts.append("processes " + "; ".join(result.processes))
    return ", ".join(parts)


def load(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("rounds", type=int, nargs="?", default=200)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--load", type=int, default=2, help="busy processes meanwhile")
    parser.add_argument(
        "--case",
        metavar="SCENARIO:SIGNAL:DELAY",
        help="one round, as a JSON line (tests/e2e/test_stop_bound.py)",
    )
    args = parser.parse_args()
    if args.case:
        scenario, signal_name, delay = args.case.split(":")
        become_subreaper()
        with tempfile.TemporaryDirectory(prefix="grill-stops-") as base:
            result = one_round(scenario, signal_name, float(delay), Path(base))
        print(json.dumps(dataclasses.asdict(result)))
        return
    busy = load(args.load)
    _own.update(p.pid for p in busy)
    try:
        with tempfile.TemporaryDirectory(prefix="grill-stops-") as base:
            done = run_rounds(args.rounds, args.seed, Path(base))
    finally:
        for process in busy:
            process.kill()
            process.wait()
    times = sorted(r.stop_s for r in done)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(
        f"{len(done)} rounds under {args.load} busy processes: stop max {times[-1]:.2f} s,"
        f" p95 {p95:.2f} s, median {statistics.median(times):.2f} s;"
        f" {sum(r.hung for r in done)} hung,"
        f" {sum(bool(r.folders) for r in done)} left folders,"
        f" {sum(bool(r.processes) for r in done)} left processes"
    )
    for scenario in SCENARIOS:
        mine = [r.stop_s for r in done if r.scenario == scenario]
        if mine:
            print(f"  {scenario:<6} max {max(mine):5.2f} s over {len(mine)} rounds")


if __name__ == "__main__":
    main()
