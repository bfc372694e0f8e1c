"""How long `grill lint` takes on 1,000 cards (goal: under 1 s), and how its cost grows with problems.

Writes temporary packs of 1,000 copies of one card (the largest shipped card, and the small
fixture card; each has a code task, so the Python checks run too) and times the command end
to end, several runs, as the median and the spread, next to the bare interpreter start-up.
Then lints one card carrying 300 and 30,000 unknown fields, in process: linear cost makes the
second about 100 times the first, not 10,000.
Run: .venv/bin/python tests/bench/bench_lint.py
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

from app.paths import SHIPPED_PACKS  # noqa: E402
from questions.loader import load_card_file, load_library  # noqa: E402

FIXTURE_CARD = ROOT / "tests" / "fixtures" / "packs" / "good" / "detach-metrics.yaml"
REAL_CARD = max((p for p in SHIPPED_PACKS.glob("*/*.yaml") if p.name != "pack.yaml"), key=lambda p: p.stat().st_size)
CARDS = 1000
RUNS = 7
UNKNOWN_FIELDS = (300, 30_000)


def write_pack(folder: Path, template: Path) -> Path:
    folder.mkdir()
    (folder / "pack.yaml").write_text("name: bench\ntitle: Bench\ndescription: Generated cards.\nformat_version: 1\n")
    text = template.read_text()
    for index in range(CARDS):
        card_id = f"bench-card-{index:04d}"
        (folder / f"{card_id}.yaml").write_text(text.replace(f"id: {template.stem}", f"id: {card_id}", 1))
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


def command(*argv: str) -> None:
    subprocess.run([sys.executable, *argv], check=False, capture_output=True, cwd=ROOT)


def spread(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:6.0f} ms  ({min(times) * 1000:.0f} to {max(times) * 1000:.0f})"


def with_unknown_fields(folder: Path, count: int) -> Path:
    path = folder / FIXTURE_CARD.name
    path.write_text(FIXTURE_CARD.read_text() + "".join(f"unknown_field_{n}: {n}\n" for n in range(count)))
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        real = write_pack(Path(tmp) / "real", REAL_CARD)
        small = write_pack(Path(tmp) / "small", FIXTURE_CARD)
        startup = timed(lambda: command("-c", "pass"))
        lint_real = timed(lambda: command("-m", "app.cli", "lint", str(real)))
        lint_small = timed(lambda: command("-m", "app.cli", "lint", str(small)))
        loading = timed(lambda: load_library([real]))
        help_ = timed(lambda: command("-m", "app.cli", "--help"))

        growth = {}
        for count in UNKNOWN_FIELDS:
            folder = Path(tmp) / f"unknown-{count}"
            folder.mkdir()
            path = with_unknown_fields(folder, count)
            growth[count] = timed(lambda: load_card_file(path), runs=5)

    print(f"median of {RUNS} runs (fastest to slowest); {CARDS} copies of a card, each with a code task")
    print(f"{'python start-up':<44}{spread(startup)}")
    print(f"{'grill lint, ' + REAL_CARD.name[:26] + ' (' + str(REAL_CARD.stat().st_size // 1000) + ' KB)':<44}"
          f"{spread(lint_real)}   goal < 1000 ms: {'met' if statistics.median(lint_real) < 1 else 'NOT met'}")
    print(f"{'grill lint, fixture card (' + str(FIXTURE_CARD.stat().st_size // 1000) + ' KB)':<44}{spread(lint_small)}")
    print(f"{'load_library of the large cards, in process':<44}{spread(loading)}   "
          f"{statistics.median(loading) / CARDS * 1e6:.0f} us/card")
    print(f"{'grill --help':<44}{spread(help_)}")
    low, high = (statistics.median(growth[count]) for count in UNKNOWN_FIELDS)
    print(f"one card with {UNKNOWN_FIELDS[0]:,} unknown fields: {low * 1000:.1f} ms; with {UNKNOWN_FIELDS[1]:,}: "
          f"{high * 1000:.0f} ms; ratio {high / low:.0f} (linear: about {UNKNOWN_FIELDS[1] // UNKNOWN_FIELDS[0]})")


if __name__ == "__main__":
    main()
