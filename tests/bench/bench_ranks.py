"""How long a ranked run takes next to torch's own launcher.

Prints, side by side in one run, for a 30-step DDP loop on the CPU with 4 ranks (gloo):
- `python -m checkers --ranks 4 FILE` (what `grill check --ranks 4 FILE` runs: a cold
  worker, bubblewrap where it works, 4 ranks forked from it, the grading),
- a warm re-run through one sandbox (`grade_source(..., ranks=4, sandbox=...)`, as the app
  and a batch pay: the worker already started),
- `python -m torch.distributed.run --nproc-per-node 4 FILE` (torchrun: 4 fresh interpreters,
  each importing torch, no grading),
with each as a ratio to torchrun. The three run alternately, `REPEATS` times, and the medians
are printed with their spread, because these machines are shared.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
RANKS = 4
REPEATS = 5
LOOP = """\
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
torch.manual_seed(dist.get_rank())
model = DDP(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(30):
    x = torch.randn(32, 32)
    loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
"""


def timed(*argv: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return elapsed


def shown(name: str, times: list[float], base: float) -> str:
    median = statistics.median(times)
    return (
        f"  {name:<34} {median:6.2f} s  ({min(times):.2f}–{max(times):.2f})"
        f"  ×{median / base:.2f} torchrun"
    )


def main() -> None:
    from checkers.api import grade_source
    from checkers.sandbox import Sandbox

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ddp.py"
        path.write_text(LOOP)
        cold: list[float] = []
        warm: list[float] = []
        torchrun: list[float] = []
        with Sandbox(device="cpu") as sandbox:
            first = grade_source(LOOP, ranks=RANKS, sandbox=sandbox, filename=str(path))
            if first.verdict != "clean":
                raise SystemExit(f"the loop is not clean: {first.verdict} {first.message}")
            for _ in range(REPEATS):
                cold.append(timed("-m", "checkers", "--ranks", str(RANKS), str(path)))
                started = time.perf_counter()
                grade_source(LOOP, ranks=RANKS, sandbox=sandbox, filename=str(path))
                warm.append(time.perf_counter() - started)
                torchrun.append(
                    timed("-m", "torch.distributed.run", "--nproc-per-node", str(RANKS), str(path))
                )
    base = statistics.median(torchrun)
    print(f"30-step DDP loop, {RANKS} ranks on the CPU (gloo), median of {REPEATS}:")
    print(shown(f"grill check --ranks {RANKS} (cold)", cold, base))
    print(shown("warm re-run (grade_source, ranks=4)", warm, base))
    print(shown(f"torchrun --nproc-per-node {RANKS}", torchrun, base))


if __name__ == "__main__":
    main()
