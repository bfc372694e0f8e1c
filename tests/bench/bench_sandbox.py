"""Time from request to result for a small training snippet: the warm sandbox worker
against a cold `python snippet.py` of the same code, printed side by side.

Goal: the warm run under a third of the cold one. Run: python tests/bench/bench_sandbox.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from checkers.sandbox import Sandbox  # noqa: E402

JOBS = Path(__file__).resolve().parents[1] / "sandbox" / "jobs"

SNIPPET = """\
import torch
from torch import nn, optim
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(64, 8), torch.randn(64, 1)
for step in range(20):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
result = loss.item()
print(result)
"""
REPEATS = 5


def cold_runs() -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "snippet.py"
        script.write_text(SNIPPET)
        times = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    return times


def warm_runs(box: Sandbox) -> list[float]:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        outcome = box.run("snippet_job:run_snippet", {"source": SNIPPET})
        times.append(time.perf_counter() - started)
        assert outcome.status == "ok", outcome.error
    return times


def main() -> None:
    started = time.perf_counter()
    with Sandbox(device="cpu", job_paths=(str(JOBS),)) as box:
        startup = time.perf_counter() - started
        warm = warm_runs(box)
        isolation = box.isolation
    cold = cold_runs()
    warm_s, cold_s = statistics.median(warm), statistics.median(cold)
    print(f"isolation: {isolation}")
    print(f"worker start (once, torch import + warm-up): {startup:6.2f} s")
    print(f"{'':34}{'median':>9}{'min':>9}{'max':>9}")
    for label, times in (
        ("warm sandbox run (request->result)", warm),
        ("cold `python snippet.py`", cold),
    ):
        print(f"{label:34}{statistics.median(times):8.3f}s{min(times):8.3f}s{max(times):8.3f}s")
    print(
        f"warm / cold: {warm_s / cold_s:.3f}  (goal < 0.333: "
        f"{'met' if warm_s / cold_s < 1 / 3 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
