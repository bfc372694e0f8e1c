"""Peak memory of `grill export --format json` and `grill import` against the history's size:
both stream, so their peak stays where it is while the history grows.

Builds histories of N and 4N attempts (each with a few KB of answer and code, like a long
practice history), then runs each command in a fresh process and reads that process's own
peak resident memory (wait4's ru_maxrss). Beside them, in the same run, the export as it was
made before streaming (the whole document in memory, then one json.dumps) on the same files.
Run: .venv/bin/python tests/bench/bench_transfer.py
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from app.progress.attempt import Attempt, CodeResult  # noqa: E402
from app.progress.history import History  # noqa: E402

SIZES = (20_000, 80_000)
NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)
WHOLE_EXPORT = (
    "import json, sys\n"
    "from app.progress.history import History\n"
    "from app.progress.transfer import export_document\n"
    "from app.progress.clock import utc_now\n"
    "with History.open() as history:\n"
    "    text = json.dumps(export_document(history, now=utc_now()), indent=1, ensure_ascii=False)\n"
    "open(sys.argv[1], 'w').write(text + '\\n')\n"
)


def fill(path: Path, count: int) -> None:
    rng = random.Random(count)
    words = "the loss keeps its graph alive so detach it before you store it".split()

    def attempts():
        for n in range(count):
            yield Attempt(
                card_id=f"card-{n % 500}",
                mode="practice",
                rating=rng.choice(("again", "hard", "good", "easy")),
                tier="middle",
                phase_seconds={"answer": rng.uniform(5, 90), "review": 10.0},
                key_points_missed=("point one", "point two"),
                answer_text=" ".join(rng.choice(words) for _ in range(300)),
                code=CodeResult("leak", "monotonic", 512.0, ("total",), "total += loss\n" * 100),
                started_at=NOW - timedelta(seconds=count - n),
            )

    with History.open(path) as history:
        history.merge(attempts())


def peak(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and the process's own peak resident memory in MB."""
    with tempfile.TemporaryFile() as errors:  # a pipe could fill while wait4 waits
        start = time.perf_counter()
        process = subprocess.Popen(
            argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errors
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        errors.seek(0)
        assert process.returncode == 0, errors.read().decode(errors="replace")[-2000:]
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            home = Path(tmp) / f"home-{size}"
            home.mkdir()
            fill(home / "history.db", size)
            env = {**os.environ, "GRILL_HOME": str(home), "GRILL_PACKS": ""}
            export = Path(tmp) / f"export-{size}.json"
            exported = peak(
                [sys.executable, "-m", "app.cli", "export", "--format", "json", "-o", str(export)],
                env,
            )
            whole = peak([sys.executable, "-c", WHOLE_EXPORT, str(Path(tmp) / "whole.json")], env)
            target = Path(tmp) / f"target-{size}"
            target.mkdir()
            imported = peak(
                [sys.executable, "-m", "app.cli", "import", str(export)],
                {**env, "GRILL_HOME": str(target)},
            )
            rows.append(
                (
                    size,
                    (home / "history.db").stat().st_size / 1e6,
                    export.stat().st_size / 1e6,
                    exported,
                    whole,
                    imported,
                )
            )
    print("peak resident memory of one process (wait4), and its wall time; 2 shared cores here")
    print(
        f"{'attempts':>9}{'history':>10}{'export':>9}{'grill export':>20}"
        f"{'whole json.dumps':>20}{'grill import':>20}"
    )
    for size, history_mb, export_mb, exported, whole, imported in rows:
        print(
            f"{size:>9,}{history_mb:>8.0f} MB{export_mb:>6.0f} MB"
            + "".join(f"{mb:>9.0f} MB {wall:5.1f} s" for wall, mb in (exported, whole, imported))
        )
    (small, *_, e1, w1, i1), (large, *_, e4, w4, i4) = rows[0], rows[-1]
    print(
        f"peak at {large // small}x the history: grill export {e4[1] / e1[1]:.2f}x, "
        f"whole json.dumps {w4[1] / w1[1]:.2f}x, grill import {i4[1] / i1[1]:.2f}x (constant: 1)"
    )


if __name__ == "__main__":
    main()
