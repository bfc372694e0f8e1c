"""How soon `grill task watch` shows the verdict of a save.

For three shipped tasks (a leak, a broken contract, a peak-memory budget), runs the real
`grill task watch TASK FILE --no-record` on the starter, then saves the file SAVES times, as an
editor does (a new file renamed over the old one), alternating the reference solution and the
starter so that every save changes the verdict, and times each save until the watch prints the
new verdict's line. Printed per task: the median save-to-verdict time with its spread, and of it
the time from the save being noticed to the verdict (grading the fix on the warm worker; the
rest is noticing the save, at most one 50 ms poll), next to one cold `grill check --task` of the
same file (a worker started for it, the fix and the reference solution run). The load average
is printed first: these figures are for a quiet machine only when it is low.
"""

from __future__ import annotations

import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
TASKS = (
    "keeping-loss-tensor-grows-memory",
    "zero-grad-missing-or-misplaced",
    "views-keep-their-base-alive",
)
SAVES = 8
WAIT_S = 180.0


def grill(*args: str) -> list[str]:
    return [sys.executable, "-m", "app.cli", *args]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):5.2f} s ({min(values):.2f}-{max(values):.2f})"


def save(path: Path, text: str) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def watch_figures(card_id: str, starter: str, solution: str, folder: Path, env: dict) -> tuple:
    """Save-to-verdict times and the watch's own noticed-to-verdict times, in seconds."""
    path = folder / f"{card_id}.py"
    path.write_text(starter)
    process = subprocess.Popen(
        grill("task", "watch", card_id, str(path), "--device", "cpu", "--no-record"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[tuple[float, str]] = queue.Queue()

    def read() -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            lines.put((time.monotonic(), line))

    threading.Thread(target=read, daemon=True).start()
    marker = f"{card_id} · {path} · checked at"

    def verdict_line() -> tuple[float, float]:
        deadline = time.monotonic() + WAIT_S
        while True:
            at, line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            if line.startswith(marker):
                return at, float(line.rsplit(" in ", 1)[1].split()[0])

    totals, graded = [], []
    try:
        verdict_line()  # the starter, graded as the watch starts (and the reference with it)
        for number in range(SAVES):
            saved_at = time.monotonic()
            save(path, solution if number % 2 == 0 else starter)
            shown_at, grading = verdict_line()
            totals.append(shown_at - saved_at)
            graded.append(grading)
    finally:
        process.terminate()
        process.wait(timeout=60)
    return totals, graded


def cold_check(card_id: str, source: str, folder: Path, env: dict) -> float:
    path = folder / f"cold-{card_id}.py"
    path.write_text(source)
    started = time.monotonic()
    subprocess.run(
        grill("check", "--task", card_id, str(path), "--device", "cpu", "--no-record"),
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=False,
    )
    return time.monotonic() - started


def main() -> int:
    from app.paths import pack_search_path
    from questions.loader import load_library

    library = load_library(pack_search_path())
    folder = Path(tempfile.mkdtemp(prefix="grill-bench-watch-"))
    env = {**os.environ, "GRILL_HOME": str(folder / "home")}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {SAVES} saves a task")
    print()
    print("| task | save to verdict | of which grading | cold `grill check --task` |")
    print("|---|---|---|---|")
    for card_id in TASKS:
        card = library.card(card_id)
        task = card.card.code_task if card else None
        if task is None:
            print(f"| {card_id} | (not in the shipped packs) | | |")
            continue
        totals, graded = watch_figures(card_id, task.starter, task.solution, folder, env)
        cold = cold_check(card_id, task.solution, folder, env)
        print(f"| {card_id} | {spread(totals)} | {spread(graded)} | {cold:.2f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
