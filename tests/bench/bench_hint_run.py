"""What running a hint's `.item()` edit adds to a verdict's wait, side by side in one run.

Three leaks graded on one warm sandbox, each several times (median wall time):
- a list of per-step tensors (`kept.append(value)` of a vector): the hint's edit keeps a
  tensor (`.detach()`), so nothing more is run;
- the same list of one-element tensors: the hint's `.item()` edit is run once more;
- that list stacked after the loop: the `.item()` run raises, the hint falls to `.detach()`.
The ratio to the first is the cost of the check: one more run of the snippet, paid only by
leaks whose hint would make a kept value a Python number.
Run: .venv/bin/python tests/bench/bench_hint_run.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2])]

from checkers.api import grade_source, shared_sandbox  # noqa: E402

LOOP = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
for step in range(40):
    value = model(torch.randn(8, 4)).mean(dim=0){pick}
    opt.zero_grad()
    value.pow(2).sum().backward()
    opt.step()
    kept.append(value)
{after}"""

CASES = {
    "detach edit, not run": LOOP.format(pick="", after=""),
    ".item() edit, run": LOOP.format(pick=".sum()", after=""),
    ".item() edit, raises": LOOP.format(pick=".sum()", after="torch.stack(kept)\n"),
}


def main() -> None:
    sandbox = shared_sandbox("cpu")
    grade_source(CASES["detach edit, not run"], sandbox=sandbox)  # warm
    medians = {}
    for name, source in CASES.items():
        times = []
        for _ in range(5):
            start = time.perf_counter()
            verdict = grade_source(source, sandbox=sandbox)
            times.append(time.perf_counter() - start)
        medians[name] = statistics.median(times)
        print(f"{name:24} {medians[name]:6.2f} s  ({verdict.verdict}: {verdict.hint})")
    base = medians["detach edit, not run"]
    for name, median in medians.items():
        print(f"{name:24} x{median / base:.2f}")


if __name__ == "__main__":
    main()
