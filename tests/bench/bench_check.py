"""How long grading takes next to simply running the snippet, and how soon a leak is called.

Prints, for the same corpus snippets in one run:
- plain `python FILE` (the whole loop, cold interpreter),
- `python -m checkers FILE` (cold CLI: starts the sandbox worker, observes 60 steps),
- `grade_file` on a warm sandbox (what the TUI and `grill lint --run` pay per snippet),
with their ratios; then the step at which the smallest leak is called, and the census cost
per training step in-process. Timings are medians of a few runs on a shared machine.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT / "tests" / "grader" / "corpus"
SNIPPETS = ["clean_item_total.py", "leak_running_total.py", "clean_sawtooth_batch_sizes.py",
            "leak_list_of_losses.py"]
REPEATS = 3


def median_seconds(action, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_quietly(*argv: str) -> None:
    subprocess.run([sys.executable, *argv], capture_output=True, cwd=ROOT, check=False)


def wall_times() -> None:
    from checkers.api import grade_file
    from checkers.sandbox import Sandbox

    print(f"{'snippet':34} {'python':>8} {'cli cold':>9} {'api warm':>9} {'cold/py':>8} {'warm/py':>8}")
    with Sandbox(device="cpu") as box:
        grade_file(CORPUS / SNIPPETS[0], sandbox=box)  # load the grading job into the worker
        for name in SNIPPETS:
            path = str(CORPUS / name)
            plain = median_seconds(lambda: run_quietly(path))
            cold = median_seconds(lambda: run_quietly("-m", "checkers", "--device", "cpu", path))
            warm = median_seconds(lambda: grade_file(path, sandbox=box))
            print(f"{name:34} {plain:7.2f}s {cold:8.2f}s {warm:8.2f}s {cold / plain:8.2f} {warm / plain:8.2f}")


def smallest_leak_called_at() -> None:
    from checkers.api import grade_file
    from checkers.sandbox import Sandbox

    with Sandbox(device="cpu") as box:
        called = [grade_file(CORPUS / "leak_running_total.py", sandbox=box).extra["called_at_step"]
                  for _ in range(5)]
    print(f"smallest leak (nn.Linear(4, 1), batch 8, running += loss) called after steps: {called}"
          " (goal <= 25, required <= 100)")


def census_cost_per_step(steps: int = 400) -> None:
    import torch
    import torch.nn as nn

    from checkers.probes import GraphTracker, memory_reader

    torch.set_num_threads(1)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def one_step():
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(50):
        one_step()
    start = time.perf_counter()
    for _ in range(steps):
        one_step()
    bare = (time.perf_counter() - start) / steps
    tracker = GraphTracker(steps, reader=memory_reader("cpu"))
    start = time.perf_counter()
    with tracker:
        while tracker.begin_step():
            one_step()
    tracked = (time.perf_counter() - start) / steps
    print(f"smallest clean step in-process: {bare * 1e6:.0f} us bare, {tracked * 1e6:.0f} us with the"
          f" census ({tracked / bare:.2f}x, +{(tracked - bare) * 1e6:.0f} us a step)")


if __name__ == "__main__":
    wall_times()
    smallest_leak_called_at()
    census_cost_per_step()
