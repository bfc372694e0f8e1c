"""How long `grill lint` takes on 1,000 cards (goal: under 1 s), and how its cost grows with problems.

Writes temporary packs of 1,000 copies of one card (the largest shipped card, and the small
fixture card; each has a code task, so the Python checks run too) and times the command end
to end, several runs, as the median and the spread, next to the bare interpreter start-up.
Beside each wall time, the CPU time the command used: on a shared machine whose cores are busy
the wall time stretches, the CPU time much less, and on an idle one they are nearly equal.
Then lints one card carrying 300 and 30,000 unknown fields, in process: linear cost makes the
second about 100 times the first, not 10,000.
Run: .venv/bin/python tests/bench/bench_lint.py
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.paths import SHIPPED_PACKS  # noqa: E402
from questions.loader import load_card_file, load_library  # noqa: E402

FIXTURE_CARD = ROOT / "tests" / "fixtures" / "packs" / "good" / "detach-metrics.yaml"
REAL_CARD = max(
    (p for p in SHIPPED_PACKS.glob("*/*.yaml") if p.name != "pack.yaml"),
    key=lambda p: p.stat().st_size,
)
CARDS = 1000
RUNS = 7
UNKNOWN_FIELDS = (300, 30_000)


def write_pack(folder: Path, template: Path) -> Path:
    folder.mkdir()
    (folder / "pack.yaml").write_text(
        "name: bench\ntitle: Bench\ndescription: Generated cards.\nformat_version: 1\n"
    )
    text = template.read_text()
    for index in range(CARDS):
        card_id = f"bench-card-{index:04d}"
        (folder / f"{card_id}.yaml").write_text(
            text.replace(f"id: {template.stem}", f"id: {card_id}", 1)
        )
    library = load_library([folder])
    assert len(library.cards) == CARDS and not library.problems, "the generated cards must be valid"
    return folder


def timed(action, runs: int = RUNS) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def timed_command(*argv: str) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) seconds of each run of `python ARGV`."""
    walls, cpus = [], []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, *argv], check=False, capture_output=True, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return walls, cpus


def spread(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:6.0f} ms  ({min(times) * 1000:.0f} to {max(times) * 1000:.0f})"


def wall_and_cpu(label: str, runs: tuple[list[float], list[float]], goal: bool = False) -> str:
    walls, cpus = runs
    met = (
        f"   goal < 1000 ms: {'met' if statistics.median(walls) < 1 else 'NOT met'}" if goal else ""
    )
    return f"{label:<44}{spread(walls)}   CPU {spread(cpus)}{met}"


def with_unknown_fields(folder: Path, count: int) -> Path:
    path = folder / FIXTURE_CARD.name
    path.write_text(
        FIXTURE_CARD.read_text() + "".join(f"unknown_field_{n}: {n}\n" for n in range(count))
    )
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        real = write_pack(Path(tmp) / "real", REAL_CARD)
        small = write_pack(Path(tmp) / "small", FIXTURE_CARD)
        startup = timed_command("-c", "pass")
        lint_real = timed_command("-m", "app.cli", "lint", str(real))
        lint_small = timed_command("-m", "app.cli", "lint", str(small))
        loading = timed(lambda: load_library([real]))
        help_ = timed_command("-m", "app.cli", "--help")

        growth = {}
        for count in UNKNOWN_FIELDS:
            folder = Path(tmp) / f"unknown-{count}"
            folder.mkdir()
            path = with_unknown_fields(folder, count)
            growth[count] = timed(lambda path=path: load_card_file(path), runs=5)

    print(
        f"median of {RUNS} runs (fastest to slowest); {CARDS} copies of a card, each with a code task"
    )
    print(wall_and_cpu("python start-up", startup))
    print(
        wall_and_cpu(
            f"grill lint, {REAL_CARD.name[:26]} ({REAL_CARD.stat().st_size // 1000} KB)",
            lint_real,
            goal=True,
        )
    )
    print(
        wall_and_cpu(
            f"grill lint, fixture card ({FIXTURE_CARD.stat().st_size // 1000} KB)", lint_small
        )
    )
    print(
        f"{'load_library of the large cards, in process':<44}{spread(loading)}   "
        f"{statistics.median(loading) / CARDS * 1e6:.0f} us/card"
    )
    print(wall_and_cpu("grill --help", help_))
    low, high = (statistics.median(growth[count]) for count in UNKNOWN_FIELDS)
    print(
        f"one card with {UNKNOWN_FIELDS[0]:,} unknown fields: {low * 1000:.1f} ms; with {UNKNOWN_FIELDS[1]:,}: "
        f"{high * 1000:.0f} ms; ratio {high / low:.0f} (linear: about {UNKNOWN_FIELDS[1] // UNKNOWN_FIELDS[0]})"
    )


if __name__ == "__main__":
    main()
