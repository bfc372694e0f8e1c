"""How long grading takes next to simply running the snippet.

Prints, side by side in one run, for loops of 50 to 200 small steps:
- plain `python FILE` (cold interpreter, the whole loop),
- cold `python -m checkers FILE` (starts its worker cold: bubblewrap, torch, the run),
- a warm re-run (`grade_file` on a warm sandbox, as the app pays for `ctrl+r`: the worker
  started by one thread that then ends, each grade in a thread of its own),
- a batch of 10 files through one worker (`python -m checkers A.py ... J.py`), per file,
each as a ratio to plain python. Pairs run alternately and the medians are printed with their
spread, because these machines are shared. Then where one cold check's time goes
(`--timings`), and the cost of watching the whole run: the in-process loop with and without
the grader's ledger.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
REPEATS = 5
LOOP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = {steps}
torch.manual_seed({seed})
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.{optimizer}(model.parameters(), lr=1e-3)
total = 0.0
for step in range(STEPS):
    x = torch.randn(32, 32)
    loss = F.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
print(total / STEPS)
"""
SNIPPETS = {"sgd-50": (50, "SGD"), "adam-100": (100, "Adam"), "adam-200": (200, "Adam")}


def seconds(*argv: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, *argv], capture_output=True, cwd=ROOT, check=False)
    return time.perf_counter() - started


def in_a_thread(action) -> None:
    """Run `action` in a thread of its own and wait for it, as the app's workers do."""
    thread = threading.Thread(target=action)
    thread.start()
    thread.join()


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):5.2f}s ({min(values):.2f}-{max(values):.2f})"


def main() -> int:
    from checkers.api import grade_file, grading_sandbox

    folder = Path(tempfile.mkdtemp(prefix="grill-bench-"))
    files = {}
    for name, (steps, optimizer) in SNIPPETS.items():
        files[name] = folder / f"{name}.py"
        files[name].write_text(LOOP.format(steps=steps, seed=0, optimizer=optimizer))
    batch = []
    for seed in range(10):
        path = folder / f"batch-{seed}.py"
        path.write_text(LOOP.format(steps=100, seed=seed, optimizer="Adam"))
        batch.append(str(path))

    print(
        f"{'snippet':10} {'python':>21} {'cold check':>21} {'warm re-run':>21} "
        f"{'cold/py':>8} {'warm/py':>8}"
    )
    box = grading_sandbox("cpu")
    in_a_thread(box.start)
    with box:
        in_a_thread(lambda: grade_file(files["sgd-50"], sandbox=box))
        for name, path in files.items():
            plain, cold, warm = [], [], []
            for _ in range(REPEATS):
                plain.append(seconds(str(path)))
                cold.append(seconds("-m", "checkers", "--device", "cpu", str(path)))
                started = time.perf_counter()
                in_a_thread(lambda: grade_file(path, sandbox=box))  # noqa: B023 (joined here)
                warm.append(time.perf_counter() - started)
            base = statistics.median(plain)
            print(
                f"{name:10} {spread(plain):>21} {spread(cold):>21} {spread(warm):>21} "
                f"{statistics.median(cold) / base:8.2f} {statistics.median(warm) / base:8.2f}"
            )
    plain = [seconds(path) for path in batch]
    together = seconds("-m", "checkers", "--device", "cpu", *batch) / len(batch)
    print(
        f"batch of 10 adam-100 files through one worker: {together:.2f}s a file,"
        f" {together / statistics.median(plain):.2f} of plain python's {statistics.median(plain):.2f}s"
    )
    timings = subprocess.run(
        [sys.executable, "-m", "checkers", "--device", "cpu", "--timings", str(files["adam-100"])],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    print("where a cold check's time goes:", timings.stderr.strip().splitlines()[-1])
    watching_cost(files["adam-200"].read_text())
    return 0


def watching_cost(source: str) -> None:
    """The same 200-step loop in this process, bare and under the ledger (the run's share of
    grading, without process start or torch import)."""
    import torch

    from checkers.measure.grade import grade_job

    torch.set_num_threads(1)  # as the sandbox runs it
    source = source.replace("print(", "str(")
    exec(compile(source, "<bench>", "exec"), {})  # the lazy imports, paid once
    bare = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        exec(compile(source, "<bench>", "exec"), {})
        bare.append(time.perf_counter() - started)
    watched = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        grade_job({"source": source, "filename": "<bench>", "seconds": 600}, None)
        watched.append(time.perf_counter() - started)
    print(
        f"watching the whole run (adam-200, in process): bare {spread(bare)}, graded"
        f" {spread(watched)}, {statistics.median(watched) / statistics.median(bare):.2f}x"
    )


if __name__ == "__main__":
    sys.exit(main())
