"""How long `grill lint` takes on 1,000 cards (goal: under 1 s), and how long `grill --help` takes.

Writes a temporary pack of 1,000 complete cards (each with a code task, so the Python checks
run too), then times the command end to end, best of several runs, next to the bare
interpreter start-up so the share that is grill's own work is visible.
Run: .venv/bin/python tests/bench/bench_lint.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from questions.loader import load_library  # noqa: E402

TEMPLATE = ROOT / "tests" / "fixtures" / "packs" / "good" / "detach-metrics.yaml"
CARDS = 1000
RUNS = 5


def write_pack(folder: Path) -> None:
    (folder / "pack.yaml").write_text("name: bench\ntitle: Bench\ndescription: Generated cards.\nformat_version: 1\n")
    text = TEMPLATE.read_text()
    for index in range(CARDS):
        card_id = f"bench-card-{index:04d}"
        (folder / f"{card_id}.yaml").write_text(text.replace("id: detach-metrics", f"id: {card_id}"))


def best_of(action) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def command(*argv: str) -> None:
    subprocess.run([sys.executable, *argv], check=False, capture_output=True, cwd=ROOT)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pack = Path(tmp) / "bench"
        pack.mkdir()
        write_pack(pack)
        library = load_library([pack])
        assert len(library.cards) == CARDS and not library.problems, "the generated cards must be valid"

        startup = best_of(lambda: command("-c", "pass"))
        loading = best_of(lambda: load_library([pack]))
        lint = best_of(lambda: command("-m", "app.cli", "lint", str(pack)))
        help_ = best_of(lambda: command("-m", "app.cli", "--help"))

    print(f"best of {RUNS} runs; {CARDS} cards, each with a code task")
    print(f"{'python start-up':<36}{startup * 1000:8.0f} ms")
    print(f"{'load_library, in process':<36}{loading * 1000:8.0f} ms   {loading / CARDS * 1e6:6.0f} us/card")
    print(f"{'grill lint, end to end':<36}{lint * 1000:8.0f} ms   goal < 1000 ms: {'met' if lint < 1 else 'NOT met'}")
    print(f"{'grill --help, end to end':<36}{help_ * 1000:8.0f} ms   {help_ / startup:5.1f}x python start-up")


if __name__ == "__main__":
    main()
