"""10, 1,000 and 10,000 cards side by side in one run.

For a pack of 10, one of 1,000 and one of 10,000 copies of the 2 KB fixture card, each loaded
beside the shipped packs as a user's pack (GRILL_PACKS):
- cold `grill lint` of the pack (no cache: lint reads every file): linear means the ratio is 10;
- `grill stats`, cold (the pack cache emptied first) and warm (goal: under 1 s);
- `grill task list`, warm (every card of the pack has a code task);
- the app started in a pseudo-terminal until home lists the pack's cards, warm (goal: under
  1 s), wall and the process's own CPU, each run beside a run of a minimal Textual app painting
  one label, the floor any Textual UI pays here: their ratio is what grill adds to Textual's;
- `load_packs` (the packs through their cache) in process, warm, and per card.
Each figure is the median of several runs (fastest to slowest), wall and CPU; on a machine
whose cores are shared, the wall time stretches and the CPU time much less.
Run: .venv/bin/python tests/bench/bench_cards.py
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]

from bench_startup import MINIMAL_APP, painted, time_to_marker  # noqa: E402

from app.wording import count  # noqa: E402
from questions.cache import RACY_NS  # noqa: E402

FIXTURE_CARD = ROOT / "tests" / "fixtures" / "packs" / "good" / "detach-metrics.yaml"
SIZES = (10, 1_000, 10_000)
GRILL = Path(sys.executable).parent / "grill"
TITLE = "Benchpack"
RUNS = {
    "lint": 3,
    "stats cold": 2,
    "stats warm": 5,
    "tasks warm": 5,
    "start warm": 5,
    "load warm": 5,
}


def shipped_cards() -> int:
    from app.paths import SHIPPED_PACKS
    from questions.loader import load_library

    return len(load_library([SHIPPED_PACKS]).cards)


def write_pack(folder: Path, cards: int) -> None:
    folder.mkdir(parents=True)
    (folder / "pack.yaml").write_text(
        f"name: bench\ntitle: {TITLE}\ndescription: Generated cards.\nformat_version: 1\n"
    )
    text = FIXTURE_CARD.read_text()
    for index in range(cards):
        card_id = f"bench-card-{index:05d}"
        (folder / f"{card_id}.yaml").write_text(
            text.replace(f"id: {FIXTURE_CARD.stem}", f"id: {card_id}", 1)
        )


def timed_command(argv: list[str], env: dict[str, str], runs: int, before=None):
    """Wall and CPU seconds of each run; `before` runs ahead of each (emptying the cache)."""
    walls, cpus = [], []
    for _ in range(runs):
        if before is not None:
            before()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime)
        assert done.returncode in (0, 1), done.stderr[-2000:]
    return walls, cpus


def in_process_load(env: dict[str, str], runs: int) -> list[float]:
    code = (
        "import time, os\n"
        "from app.paths import load_packs\n"
        "times = []\n"
        f"for _ in range({runs}):\n"
        "    start = time.perf_counter()\n"
        "    library = load_packs()\n"
        "    times.append(time.perf_counter() - start)\n"
        "assert not any(card.is_read for card in library.cards)\n"
        "print(' '.join(map(str, times)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [float(t) for t in done.stdout.split()]


def spread(times: list[float]) -> str:
    return f"{statistics.median(times):7.3f} s ({min(times):.3f} to {max(times):.3f})"


def main() -> None:
    figures: dict[int, dict[str, tuple[list[float], list[float]]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            write_pack(Path(tmp) / f"cards-{size}" / "bench", size)
        # Files just written are 'just changed' to the cache for RACY_NS (see questions/cache.py).
        time.sleep(RACY_NS / 1e9 + 0.1)
        for size in SIZES:
            pack = Path(tmp) / f"cards-{size}"
            home = Path(tmp) / f"home-{size}"
            env = {**os.environ, "GRILL_HOME": str(home), "GRILL_PACKS": str(pack)}

            def empty_cache(home: Path = home) -> None:
                shutil.rmtree(home / "cache", ignore_errors=True)

            found = figures[size] = {}
            found["lint"] = timed_command(
                [sys.executable, "-m", "app.cli", "lint", str(pack / "bench")], env, RUNS["lint"]
            )
            stats = [sys.executable, "-m", "app.cli", "stats"]
            found["stats cold"] = timed_command(stats, env, RUNS["stats cold"], empty_cache)
            found["stats warm"] = timed_command(stats, env, RUNS["stats warm"])
            tasks = [sys.executable, "-m", "app.cli", "task", "list"]
            found["tasks warm"] = timed_command(tasks, env, RUNS["tasks warm"])
            welcomed = (
                "from app.progress.history import History\n"
                "with History.open() as h: h.set_setting('welcomed', True)\n"
            )
            subprocess.run([sys.executable, "-c", welcomed], env=env, cwd=ROOT, check=True)
            # home's "All packs" line counts every loaded card: the pack's own may be below the
            # fold of the list, beside six shipped packs
            listed = count(size + shipped_cards(), "card").encode()
            starts = []
            floors = []
            for _ in range(RUNS["start warm"]):  # one after the other: the same load for both
                starts.append(painted([str(GRILL)], listed, env))
                floors.append(painted([sys.executable, "-c", MINIMAL_APP], b"Packs", env))
            found["start warm"] = ([wall for wall, _ in starts], [cpu for _, cpu in starts])
            found["minimal app"] = ([wall for wall, _ in floors], [cpu for _, cpu in floors])
            found["load warm"] = (in_process_load(env, RUNS["load warm"]), [])
        bare = [time_to_marker([sys.executable, "-c", "print('x')"], None, dict(os.environ))]

    _, small, large = SIZES
    print(
        f"packs of {', '.join(f'{size:,}' for size in SIZES)} copies of the 2 KB fixture card, "
        "each beside the shipped packs;"
    )
    print("medians (fastest to slowest), wall and CPU; 2 shared cores here")
    print(
        f"{'':34}"
        + "".join(f"{f'{size:,} cards':>32}" for size in SIZES)
        + f"  ratio {large:,}/{small:,} (wall)"
    )
    labels = {
        "lint": "grill lint (cold; linear: 10)",
        "stats cold": "grill stats, cache emptied",
        "stats warm": "grill stats, warm (goal < 1 s)",
        "tasks warm": "grill task list, warm",
        "start warm": "app to home listing them, warm",
        "minimal app": "  minimal Textual app, same runs",
        "load warm": "load_packs in process, warm",
    }
    for name, label in labels.items():
        cells = []
        for size in SIZES:
            walls, cpus = figures[size][name]
            cells.append(spread(walls) + (f" CPU {statistics.median(cpus):.2f}" if cpus else ""))
        ratio = median_wall(figures, large, name) / median_wall(figures, small, name)
        print(f"{label:34}" + "".join(f"{cell:>32}" for cell in cells) + f"  {ratio:5.2f}")
    ratios = []
    for size in SIZES:
        grill, floor = figures[size]["start warm"], figures[size]["minimal app"]
        wall = statistics.median(grill[0]) / statistics.median(floor[0])
        cpu = statistics.median(grill[1]) / statistics.median(floor[1])
        ratios.append(f"{wall:.2f}x CPU {cpu:.2f}x")
    print(f"{'  home / minimal Textual app':34}" + "".join(f"{r:>32}" for r in ratios))
    per_card = {size: statistics.median(figures[size]["lint"][1]) / size * 1e3 for size in SIZES}
    print(
        f"cold lint CPU per card: {per_card[small]:.2f} ms and {per_card[large]:.2f} ms "
        f"(ratio {per_card[large] / per_card[small]:.2f}; linear: 1)"
    )
    print(f"python start {bare[0]:.3f} s")
    warm = median_wall(figures, large, "start warm")
    cpu = statistics.median(figures[large]["start warm"][1])
    print(
        f"goal: warm start with {large:,} cards under 1 s: {'met' if warm < 1 else 'NOT met'} "
        f"({warm:.3f} s wall, {cpu:.3f} s CPU)"
    )


def median_wall(figures, size: int, name: str) -> float:
    return statistics.median(figures[size][name][0])


if __name__ == "__main__":
    main()
